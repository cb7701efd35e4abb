/* SPDX-License-Identifier: MIT */
/* The driver API, seen: wrappers for driver_hooks.def, handed out by cuGetProcAddress and dlsym. */
#define _GNU_SOURCE
#include "config.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "driver_api.h"

#include "call.h"
#include "caller.h"
#include "calling_object.h"
#include "owed_records.h"
#include "owed_waits.h"
#include "dlsym.h"
#include "driver.h"
#include "driver_table.h"
#include "driver_work.h"
#include "engine.h"
#include "engine_fast.h"
#include "direct_calls.h"
#include "launch_attributes.h"
#include "runtime.h"
#include "libcuda.h"
#include "log.h"
#include "macro_piece.h"
#include "observe.h"
#include "settings.h"

static atomic_bool missing_reported[DRIVER_COUNT];

/* Work entry points handed out unwrapped (first few names, for the log and hidden_work). */
#define UNWRAPPED_MAX 8
static pthread_mutex_t unwrapped_lock = PTHREAD_MUTEX_INITIALIZER;
static char unwrapped[UNWRAPPED_MAX][64];
static unsigned unwrapped_count;
static atomic_bool unwrapped_any;

/* What a wrapper returns when libcuda lacks its function; logs once. */
static CUresult driver_missing(enum driver_id id)
{
    if (!atomic_exchange(&missing_reported[id], true))
        log_always(LOG_ERROR, "%s: not found in the CUDA driver; returning CUDA_ERROR_NOT_FOUND",
                   driver_table[id].name);
    return CUDA_ERROR_NOT_FOUND;
}

/* A capture query's answer, with the shim's own capture on stream (if it is the only one there) taken out. */
static CUresult hide_shim_capture(cudaStream_t stream, CUresult result, CUstreamCaptureStatus *status)
{
    bool seen = (result == CUDA_SUCCESS && *status != CU_STREAM_CAPTURE_STATUS_NONE) ||
                (result == CUDA_ERROR_STREAM_CAPTURE_IMPLICIT && stream == cudaStreamLegacy);
    if (!seen || !engine_hides_capture(stream))
        return result;
    *status = CU_STREAM_CAPTURE_STATUS_NONE;
    return CUDA_SUCCESS;
}

/*
 * The caller of the exported front-door function whose door (name_door)
 * runs next: stored just before the call, read first thing there.
 */
static __thread const void *driver_door_caller __attribute__((tls_model("initial-exec")));

/* A caller found to be neither the runtime nor a communication library, while real_found_generation stays. */
static __thread struct caller_seen driver_holdable __attribute__((tls_model("initial-exec")));

/* Whether the caller is neither the runtime nor a communication library: checked once, then by driver_holdable. */
static __attribute__((noinline)) bool driver_caller_check(const void *caller)
{
    /* Read first: if objects are found meanwhile, the next call checks again. */
    unsigned generation = atomic_load_explicit(&real_found_generation, memory_order_relaxed);
    if (caller_is_runtime(caller) || calling_object_is_communication(caller))
        return false;
    driver_holdable.outside = (uintptr_t)caller;
    driver_holdable.generation = generation; /* a calling object's verdict never changes (calling_object.h) */
    return true;
}

/* Whether a driver launch from caller may be held back by its caller (the fast path's test): two compares again. */
static inline __attribute__((always_inline)) bool driver_caller_may_hold(const void *caller)
{
    if ((uintptr_t)caller == driver_holdable.outside &&
        driver_holdable.generation == atomic_load_explicit(&real_found_generation, memory_order_relaxed))
        return true;
    return driver_caller_check(caller);
}

/*
 * What a wrapper does around the real call, once the call's kind and caller
 * are known: decided by the functions below, made by the wrapper (the real
 * call needs the wrapped function's own parameters: DRIVER_WAY_FORWARD),
 * finished by driver_way_done.
 */
enum driver_way {
    DRIVER_WAY_PLAIN,          /* forwarded, nothing more */
    DRIVER_WAY_HELD,           /* held back by the engine (a front-door call): not forwarded */
    DRIVER_WAY_INTO_CAPTURE,   /* a boundary the engine took: forwarded into the shim's capture */
    DRIVER_WAY_FORWARDED,      /* a boundary, or a front-door call not held: forwarded, the engine told */
    DRIVER_WAY_FORWARDED_WAIT, /* the same for a wait: it returns held-back work's errors, as direct ones do */
    DRIVER_WAY_TIMED_NODE,     /* observe mode: a front-door call, timed for the ceiling */
    DRIVER_WAY_TIMED_WAIT,     /* observe mode: a direct wait, timed for the ceiling */
};

/* How a boundary is forwarded once the engine has seen it: taken (into the shim's capture), or a wait, or not. */
static enum driver_way boundary_way(bool taken, bool waits)
{
    return taken ? DRIVER_WAY_INTO_CAPTURE : waits ? DRIVER_WAY_FORWARDED_WAIT : DRIVER_WAY_FORWARDED;
}

/*
 * The runtime's own driver call on a stream that owes a graph's wait
 * (shim/device/owed_waits.h) makes it first: the hooked runtime calls settled
 * already (a relaxed load more), but the runtime's functions the shim does
 * not hook (array copies, external semaphores...) reach the GPU only
 * here.  A call without a stream (0) is left: device-wide, or the legacy
 * stream's, which the engine's own hooks see.
 */
static void runtime_work_settles(const void *stream)
{
    if (shim_auto && stream != 0) {
        owed_waits_settle((cudaStream_t)stream);
        owed_records_settle((cudaStream_t)stream, NULL);
    }
}

/*
 * What a wrapped driver function's call is, in observe and auto mode: who
 * called?  The interposed runtime (its calls are the implementation of
 * runtime calls the shim saw) and the shim go straight through; anything
 * else is direct work (shim/driver_door/direct_calls.c).  A setting changed
 * (SETTING kind) is a boundary whoever calls it, since the runtime calls
 * that lead to it are not hooked; the shim's own are not (in_engine).  The
 * runtime's driver call while no call into the runtime that the shim knows
 * of is under way (runtime_calls_known) is made for a runtime function the
 * shim does not hook, work the engine has not seen: a boundary.
 */
static enum driver_way driver_hook_way(enum driver_id id, enum driver_kind kind, const void *stream,
                                       const void *caller)
{
    if (!caller_is_runtime(caller)) {
        bool taken = direct_call(id, stream, caller); /* counts */
        if (kind == DRIVER_KIND_SYNC && !shim_auto)
            return DRIVER_WAY_TIMED_WAIT; /* the ceiling's timings */
        return boundary_way(taken, kind == DRIVER_KIND_SYNC);
    }
    if (kind == DRIVER_KIND_SETTING && shim_auto) {
        /* The runtime's cudaStreamSetAttribute, cudaDeviceSetLimit...: not hooked themselves; never taken (not
           capturable). */
        return boundary_way(
            engine_direct_call((cudaStream_t)stream, driver_table[id].name, 0, false, FALLBACK_MISMATCH, HOOK_COUNT),
            false);
    }
    if (shim_auto && runtime_calls_known == 0 && driver_kind_ordered(kind))
        return boundary_way(unhooked_runtime_call(id, stream), kind == DRIVER_KIND_SYNC);
    runtime_work_settles(stream);
    return DRIVER_WAY_PLAIN;
}

/*
 * What a front-door call (DRIVER_NODE) from anyone but the runtime is, in
 * observe and auto mode: counted and timed in observe mode; in auto mode,
 * described to the engine as a runtime call would be (call, which node
 * says can be a node) and held back (*held for the program) or passed on,
 * else direct work like any other.  A communication library's is always
 * passed on.
 */
static enum driver_way driver_node_way(const struct call *call, bool node, const void *caller, cudaError_t *held)
{
    enum driver_id id = (enum driver_id)call_api_driver_id(call->api);
    if (!shim_auto) { /* observe mode: counted (its kernel named as regions name it, its event as it is), and timed */
        direct_count(id, call->stream, call_sig_target(call));
        if (calling_object_is_communication(caller))
            observe_communication_call();
        return DRIVER_WAY_TIMED_NODE;
    }
    if (node && !calling_object_is_communication(caller)) {
        if (shim_counting)
            direct_count(id, call->stream, 0); /* the engine follows its sequences in auto mode */
        return engine_driver_call(call, held) ? DRIVER_WAY_HELD : DRIVER_WAY_FORWARDED;
    }
    return direct_call(id, call->stream, caller) ? DRIVER_WAY_INTO_CAPTURE : DRIVER_WAY_FORWARDED;
}

/* When a call made the way way says began, if it is timed (monotonic_ns); else 0. */
static inline uint64_t driver_way_start(enum driver_way way)
{
    return way == DRIVER_WAY_TIMED_NODE || way == DRIVER_WAY_TIMED_WAIT ? monotonic_ns() : 0;
}

/* What follows the real call of driver function id made the way way says; the result for the program. */
static CUresult driver_way_done(enum driver_way way, enum driver_id id, uint64_t start, CUresult result)
{
    switch (way) {
    case DRIVER_WAY_INTO_CAPTURE:
        engine_direct_done();
        return result;
    case DRIVER_WAY_FORWARDED:
        engine_forwarded(); /* not the runtime's own: they are inside a call still in flight */
        return result;
    case DRIVER_WAY_FORWARDED_WAIT:
        engine_forwarded();
        return result == CUDA_SUCCESS ? engine_driver_error_owed() : result;
    case DRIVER_WAY_TIMED_NODE:
        observe_node_done(start);
        return result;
    case DRIVER_WAY_TIMED_WAIT:
        direct_wait_done(id, start);
        return result;
    default:
        return result;
    }
}

/* Whether a driver function of kind begins or ends a capture: counted even while auto mode steps aside. */
static inline bool driver_kind_counted_aside(enum driver_kind kind)
{
    return kind == DRIVER_KIND_CAPTURE_BEGIN || kind == DRIVER_KIND_CAPTURE_END;
}

/* Auto mode stepped aside: a capture begun or ended by anyone but the runtime (whose own its hooks count). */
static void driver_aside_capture(enum driver_kind kind, const void *caller)
{
    if (shim_auto && !caller_is_runtime(caller))
        engine_capture_aside_count(kind == DRIVER_KIND_CAPTURE_BEGIN ? 1 : -1);
}

/* Whether a driver function of kind may be a host sync (waits, and the synchronous copies and sets among WORK). */
static inline bool driver_kind_may_end_stretch(enum driver_kind kind)
{
    return kind == DRIVER_KIND_SYNC || kind == DRIVER_KIND_WORK;
}

/* Whether function id's call from caller ends a stretch for the governor: a host sync, the runtime's excepted. */
static bool driver_ends_stretch(enum driver_id id, const void *caller)
{
    return direct_call_ends_stretch(id) && !caller_is_runtime(caller);
}

#pragma GCC diagnostic ignored "-Wdeprecated-declarations" /* cuLaunch, cuLaunchGrid...: still exported */
/* What every wrapper does first: note its caller, initialise, find the real function (or say it is missing). */
#define DRIVER_WRAPPER_START(name, params) DRIVER_WRAPPER_START_FOR(name, params, __builtin_return_address(0))
#define DRIVER_WRAPPER_START_FOR(name, params, caller_address)                                            \
    const void *caller = (caller_address);                                                                \
    shim_enter();                                                                                         \
    typedef CUresult (*real_fn) params;                                                                   \
    real_fn real = (real_fn)libcuda_real(DRIVER_ID_##name);                                                \
    if (__builtin_expect(real == NULL, 0))                                                                \
        return driver_missing(DRIVER_ID_##name)
/* Makes the real call the way way says (not PLAIN or HELD) and returns what the program gets. */
#define DRIVER_WAY_FORWARD(way, name, args)                                                               \
    do {                                                                                                  \
        uint64_t start = driver_way_start(way);                                                           \
        CUresult result = real args;                                                                      \
        return driver_way_done(way, DRIVER_ID_##name, start, result);                                     \
    } while (0)
/*
 * A wrapped driver function: before (a statement) runs first, in every
 * mode; then the call is counted, is a boundary or settles what it must,
 * as its kind and caller say (driver_hook_way), and is forwarded.  Off
 * mode only forwards, and so does auto mode stepped aside (shim_looks
 * false), but that it counts the program's captures and, during the
 * governor's probe, ends a stretch at a host sync.  The result is the
 * driver's, unchanged.
 */
#define DRIVER_WRAPPER(kind, name, params, args, stream, before)                                          \
    CUresult CUDAAPI name params                                                                          \
    {                                                                                                     \
        DRIVER_WRAPPER_START(name, params);                                                               \
        before;                                                                                           \
        if (__builtin_expect(shim_looks(), 0)) {                                                          \
            enum driver_way way = driver_hook_way(DRIVER_ID_##name, DRIVER_KIND_##kind, (const void *)(stream), \
                                                  caller);                                                \
            if (way != DRIVER_WAY_PLAIN)                                                                  \
                DRIVER_WAY_FORWARD(way, name, args);                                                      \
        } else if (driver_kind_counted_aside(DRIVER_KIND_##kind)) {                                       \
            driver_aside_capture(DRIVER_KIND_##kind, caller);                                             \
        } else if (driver_kind_may_end_stretch(DRIVER_KIND_##kind) &&                                     \
                   __builtin_expect(engine_governor_timing(), 0) &&                                      \
                   driver_ends_stretch(DRIVER_ID_##name, caller)) {                                      \
            CUresult result = real args;                                                                  \
            engine_stretch_ended(CALL_API_DRIVER(DRIVER_ID_##name), (cudaStream_t)(stream));              \
            return result;                                                                                \
        }                                                                                                 \
        return real args;                                                                                 \
    }
#define DRIVER_HOOK(kind, name, params, args, stream) DRIVER_WRAPPER(kind, name, params, args, stream, (void)0)
/* A call that ends an object graphs can refer to: what refers to it ends first (engine_object_ends). */
#define DRIVER_ENDS(what, name, params, args, stream, handle)                                             \
    DRIVER_WRAPPER(BOUNDARY, name, params, args, stream,                                                  \
                   engine_object_ends(ENDS_##what, (const void *)(uintptr_t)(handle), #name))
/*
 * The driver's front door (DRIVER_NODE): a call that can be a graph node,
 * from anyone but the runtime, is described to the engine as a runtime
 * call would be (the DRIVER_FIELDS_* below; false: this one cannot be a
 * node, and it is direct work like any other) and held back or passed on
 * (driver_node_way).  Observe mode counts it and times it, as it times the
 * waits (SYNC), for the exit summary's ceiling (shim/diagnostics/observe.c).
 * The runtime's own is a boundary or settles what it must, as a
 * DRIVER_WRAPPER's.  Before all that, the exported function tries a
 * launch's fast path (DRIVER_FIELDS_*_FRONT), and the door an event
 * record's or wait's (_FAST), where the fields macro has one (pieces:
 * shim/base/macro_piece.h).
 */
#define DRIVER_NODE(kind, node, name, params, args, stream, fields)                                       \
    static __attribute__((noinline)) CUresult name##_door params                                          \
    {                                                                                                     \
        DRIVER_WRAPPER_START_FOR(name, params, driver_door_caller);                                       \
        enum driver_way way = DRIVER_WAY_PLAIN;                                                           \
        bool looks = shim_looks();                                                                        \
        if (__builtin_expect(looks, 0) && !caller_is_runtime(caller)) {                                   \
            PIECE_OR(fields##_FAST(CALL_API_DRIVER(DRIVER_ID_##name), (cudaStream_t)(stream), caller), (void)0); \
            struct call call;                                                                             \
            CALL_HEAD(call, CALL_API_DRIVER(DRIVER_ID_##name), CALL_##node, (cudaStream_t)(stream));      \
            cudaError_t held;                                                                             \
            bool described = fields(call); /* in observe mode too: its kernel names a launch */           \
            way = driver_node_way(&call, shim_auto && described, caller, &held);                          \
            if (way == DRIVER_WAY_HELD)                                                                   \
                return (CUresult)held;                                                                    \
        } else if (__builtin_expect(looks && shim_auto, 0) && runtime_calls_known == 0) {                 \
            way = boundary_way(unhooked_runtime_call(DRIVER_ID_##name, (const void *)(stream)), false);   \
        } else if (__builtin_expect(looks, 0)) {                                                          \
            runtime_work_settles((const void *)(stream));                                                 \
        }                                                                                                 \
        if (way != DRIVER_WAY_PLAIN)                                                                      \
            DRIVER_WAY_FORWARD(way, name, args);                                                          \
        return real args;                                                                                 \
    }                                                                                                     \
    CUresult CUDAAPI name params                                                                          \
    {                                                                                                     \
        const void *caller = __builtin_return_address(0);                                                 \
        PIECE_OR(fields##_FRONT(CALL_API_DRIVER(DRIVER_ID_##name), (cudaStream_t)(stream), caller), (void)0); \
        driver_door_caller = caller;                                                                      \
        return name##_door args;                                                                          \
    }
/* What each front-door function tells the engine, from its parameters; true if it can be a node. */
#define DRIVER_FIELDS_LAUNCH(c)                                                                           \
    ((c).func = (const void *)f, (c).grid = (dim3){gridDimX, gridDimY, gridDimZ},                         \
     (c).block = (dim3){blockDimX, blockDimY, blockDimZ}, (c).shared_mem = sharedMemBytes,                \
     (c).args = kernelParams, (c).extra = extra, (c).num_attrs = 0, true)
/*
 * What auto mode does with an event record or wait before describing it,
 * in the wrapper's door, after the caller was found not to be the runtime
 * (DRIVER_FIELDS_*_FAST, pieces: the other fields macros have none):
 * held back in the common case (engine_fast_event_taker).
 */
#define DRIVER_FIELDS_EVENT_FAST_(id, s, caller, wait, flags)                                             \
    do {                                                                                                  \
        if (!in_engine && engine_door_is_fast() && !calling_object_is_communication(caller)) {            \
            struct tracker *taker =                                                                       \
                engine_fast_event_taker(id, (cudaEvent_t)hEvent, wait, flags, (cudaStream_t)hStream, s);  \
            if (taker)                                                                                    \
                return (CUresult)engine_fast_event_hold(taker);                                           \
        }                                                                                                 \
    } while (0)
#define DRIVER_FIELDS_EVENT_RECORD_FAST(id, s, caller) PIECE, DRIVER_FIELDS_EVENT_FAST_(id, s, caller, false, 0)
#define DRIVER_FIELDS_EVENT_WAIT_FAST(id, s, caller) PIECE, DRIVER_FIELDS_EVENT_FAST_(id, s, caller, true, Flags)
/*
 * What the exported function does before the wrapper's door (name_door,
 * which it calls with the caller in driver_door_caller): the launch's
 * DRIVER_FIELDS_*_FRONT, the only one, a piece.  A launch that its
 * thread's replay holds back in the common case returns at once
 * (engine_fast.h), unless the runtime or the shim itself makes it
 * (caller_is_runtime, in_engine) or a communication library, or it is
 * counted (door_self is NULL then, as outside auto mode).  The geometry
 * goes as a compound literal inside the call's parentheses: a piece has
 * no comma outside them.
 */
#define DRIVER_FIELDS_LAUNCH_FRONT(id, s, caller)                                                         \
    PIECE, do {                                                                                           \
        struct tracker *taker = door_self;                                                                \
        if (taker && engine_door_is_fast() && extra == NULL && !in_engine && driver_caller_may_hold(caller)) { \
            const struct held_call *slot = engine_fast_taker_dims(                                         \
                taker, id, (const void *)f,                                                               \
                (const unsigned[6]){gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ},       \
                kernelParams, sharedMemBytes, (cudaStream_t)hStream, s);                                  \
            if (slot)                                                                                     \
                return (CUresult)engine_fast_hold(taker, slot, kernelParams);                             \
        }                                                                                                 \
    } while (0)
/*
 * Launch attributes that let a launch be held back (shim/device/launch_attributes.h: kept on its kernel node,
 * or a programmatic edge) travel with it; any other makes it direct work (the log names the attribute).
 */
#define DRIVER_FIELDS_LAUNCH_EX(c)                                                                        \
    (config != NULL && launch_attrs_holdable(config->attrs, config->numAttrs, call_api_name((c).api)) && \
     ((c).func = (const void *)f, (c).grid = (dim3){config->gridDimX, config->gridDimY, config->gridDimZ}, \
      (c).block = (dim3){config->blockDimX, config->blockDimY, config->blockDimZ},                        \
      (c).shared_mem = config->sharedMemBytes, (c).args = kernelParams, (c).extra = extra,                \
      (c).attrs = config->attrs, (c).num_attrs = config->numAttrs, true))
#define DRIVER_FIELDS_HOST_FUNC(c) ((c).host_fn = fn, (c).host_data = userData, true)
#define DRIVER_FIELDS_COPY_(c, to, from, count, how)                                                      \
    ((c).dst = (void *)(uintptr_t)(to), (c).src = (const void *)(uintptr_t)(from), (c).bytes = (count),   \
     (c).copy_kind = (how), true)
#define DRIVER_FIELDS_COPY_UNIFIED(c) DRIVER_FIELDS_COPY_(c, dst, src, ByteCount, cudaMemcpyDefault)
#define DRIVER_FIELDS_COPY_HTOD(c) DRIVER_FIELDS_COPY_(c, dstDevice, srcHost, ByteCount, cudaMemcpyHostToDevice)
#define DRIVER_FIELDS_COPY_DTOH(c) DRIVER_FIELDS_COPY_(c, dstHost, srcDevice, ByteCount, cudaMemcpyDeviceToHost)
#define DRIVER_FIELDS_COPY_DTOD(c)                                                                        \
    DRIVER_FIELDS_COPY_(c, dstDevice, srcDevice, ByteCount, cudaMemcpyDeviceToDevice)
#define DRIVER_FIELDS_SET_(c, v, size)                                                                    \
    ((c).dst = (void *)(uintptr_t)dstDevice, (c).value = (int)(v), (c).bytes = N * (size),                \
     (c).element_size = (size), true)
#define DRIVER_FIELDS_SET_8(c) DRIVER_FIELDS_SET_(c, uc, 1)
#define DRIVER_FIELDS_SET_16(c) DRIVER_FIELDS_SET_(c, us, 2)
#define DRIVER_FIELDS_SET_32(c) DRIVER_FIELDS_SET_(c, ui, 4)
#define DRIVER_FIELDS_EVENT_RECORD(c) ((c).event = hEvent, (c).flags = 0, true)
/* An external record (CU_EVENT_RECORD_EXTERNAL) means something else inside a graph: direct work. */
#define DRIVER_FIELDS_EVENT_RECORD_FLAGS(c) (flags == 0 && ((c).event = hEvent, (c).flags = 0, true))
#define DRIVER_FIELDS_EVENT_WAIT(c) ((c).event = hEvent, (c).flags = Flags, true)
/*
 * The capture queries: the driver's answer, except that a stream whose only
 * capture is the shim's is "not capturing" to anyone but the runtime (whose
 * own cudaStreamIsCapturing the shim answers) and the shim.  A library
 * that saw the shim's capture would take its capture-safe path (cuBLAS
 * allocates its workspace stream-ordered) and fail once the shim ends it.
 */
#define DRIVER_CAPTURE_QUERY(name, params, args, stream, status)                                          \
    CUresult CUDAAPI name params                                                                          \
    {                                                                                                     \
        DRIVER_WRAPPER_START(name, params);                                                               \
        CUresult result = real args;                                                                      \
        if (shim_auto && status != NULL && !caller_is_runtime(caller))                                    \
            result = hide_shim_capture((cudaStream_t)(stream), result, status);                           \
        return result;                                                                                    \
    }
#include "driver_hooks.def"
#undef DRIVER_CAPTURE_QUERY
#undef DRIVER_ENDS
#undef DRIVER_NODE
#undef DRIVER_HOOK
#undef DRIVER_WRAPPER_START
#undef DRIVER_WRAPPER_START_FOR

/* The wrappers by id. */
static void *const driver_wrappers[DRIVER_COUNT] = {
#define DRIVER_HOOK(kind, name, params, args, stream) [DRIVER_ID_##name] = (void *)name,
#include "driver_hooks.def"
#undef DRIVER_HOOK
};

/* Remembers (and logs once) that symbol was handed out unwrapped although it submits work. */
static void note_unwrapped(const char *symbol, const char *how)
{
    pthread_mutex_lock(&unwrapped_lock);
    bool known = false;
    for (unsigned i = 0; i < unwrapped_count && !known; i++)
        known = strcmp(unwrapped[i], symbol) == 0;
    if (!known && unwrapped_count < UNWRAPPED_MAX)
        snprintf(unwrapped[unwrapped_count++], sizeof unwrapped[0], "%s", symbol);
    atomic_store(&unwrapped_any, true);
    pthread_mutex_unlock(&unwrapped_lock);
    if (!known)
        log_info("%s: handed out by %s in a version the shim has no wrapper for: work it submits is not seen, "
                 "so from now on only regions on created streams are graphed, on the robust path",
                 symbol, how);
}

/* What to hand out for symbol when `how` (dlsym, cuGetProcAddress, cudaGetDriverEntryPoint) found fn: our wrapper if it is libcuda's, or fn itself. */
void *driver_substitute(const char *symbol, void *fn, const char *how)
{
    if (fn == NULL || !libcuda_resolve())
        return fn;
    for (int id = 0; id < DRIVER_COUNT; id++)
        if (fn == driver_wrappers[id])
            return fn; /* already ours: the runtime asked the shim's cuGetProcAddress */
    if (fn == (void *)cuGetProcAddress || fn == (void *)cuGetProcAddress_v2)
        return fn;
    if (fn == libcuda_proc_address(false))
        return (void *)cuGetProcAddress;
    if (fn == libcuda_proc_address(true))
        return (void *)cuGetProcAddress_v2;
    for (int id = 0; id < DRIVER_COUNT; id++)
        if (fn == atomic_load_explicit(&libcuda_wrapped[id], memory_order_relaxed))
            return driver_wrappers[id];
    if (driver_symbol_is_work(symbol))
        note_unwrapped(symbol, how);
    return fn;
}

/* True once a library was handed a work entry point that the table has no wrapper for; names it. */
bool driver_unwrapped_work(char *name, size_t name_len)
{
    if (!atomic_load_explicit(&unwrapped_any, memory_order_acquire))
        return false;
    pthread_mutex_lock(&unwrapped_lock);
    snprintf(name, name_len, "%s", unwrapped[0]);
    pthread_mutex_unlock(&unwrapped_lock);
    return true;
}

/* cuGetProcAddress (CUDA 12+): the driver's answer, with the shim's wrapper in place of a wrapped function. */
CUresult CUDAAPI cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                                     CUdriverProcAddressQueryResult *symbolStatus)
{
    shim_enter();
    CUresult (*real)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *) =
        libcuda_proc_address(true);
    if (real == NULL)
        return CUDA_ERROR_NOT_FOUND;
    CUresult result = real(symbol, pfn, cudaVersion, flags, symbolStatus);
    if (result == CUDA_SUCCESS && pfn != NULL)
        *pfn = driver_substitute(symbol, *pfn, "cuGetProcAddress");
    return result;
}

/* cuGetProcAddress before CUDA 12: the same, without the query result. */
CUresult CUDAAPI cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags)
{
    shim_enter();
    CUresult (*real)(const char *, void **, int, cuuint64_t) =
        libcuda_proc_address(false);
    if (real == NULL)
        return CUDA_ERROR_NOT_FOUND;
    CUresult result = real(symbol, pfn, cudaVersion, flags);
    if (result == CUDA_SUCCESS && pfn != NULL)
        *pfn = driver_substitute(symbol, *pfn, "cuGetProcAddress");
    return result;
}
