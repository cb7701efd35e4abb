/* SPDX-License-Identifier: MIT */
/* The exported wrappers, one per line of hooks.def: initialise, count (and time), hand to the engine, forward. */
#include "config.h"

#include "call.h"
#include "engine.h"
#include "engine_fast.h"
#include "launch_attributes.h"
#include "launch_config.h"
#include "observe.h"
#include "observe_sequences.h"
#include "real.h"
#include "runtime.h"
#include "shim.h"

/*
 * What auto mode does with a call before anything else, by kind: <<<>>>'s
 * push and pop are kept by the shim (launch_config.h), and a launch that
 * its thread's replay holds back in the common case goes no further
 * (engine_fast.h), and so does an event record or wait.  Each either returns from the wrapper, done, or leaves
 * the call to the engine; the parameter names are hooks.def's, as in
 * call.h's CALL_FIELDS_*.
 */
/* The first entry's push and pop were tried already (DOOR_FIRST_*, below): what is left is the deeper side. */
#define DOOR_TAKES_CONFIG_PUSH(id, s) return launch_config_push_deeper(gridDim, blockDim, sharedMem, stream)
#define DOOR_TAKES_CONFIG_POP(id, s)                                                                        \
    do {                                                                                                    \
        if (launch_config_pop_deeper(gridDim, blockDim, sharedMem, stream))                                 \
            return cudaSuccess;                                                                             \
    } while (0)
#define DOOR_TAKES_LAUNCH(id, s)                                                                            \
    do {                                                                                                    \
        struct tracker *taker = self; /* read once: the taker's lock exchange would have it read again */   \
        const struct recorded *slot = engine_fast_taker(taker, id, (const void *)func, gridDim, blockDim, args, \
                                                        sharedMem, stream, s);                              \
        if (slot)                                                                                           \
            return engine_fast_hold(taker, slot, args);                                                     \
    } while (0)
#define DOOR_TAKES_LAUNCH_EX(id, s) (void)0 /* the engine's way: not the common case */
#define DOOR_TAKES_LAUNCH_OTHER(id, s) (void)0
#define DOOR_TAKES_HOST_FUNC(id, s) (void)0
#define DOOR_TAKES_HOST_FUNC_OTHER(id, s) (void)0
#define DOOR_TAKES_COPY(id, s) (void)0
#define DOOR_TAKES_COPY_OTHER(id, s) (void)0
#define DOOR_TAKES_COPY_SYNC(id, s) (void)0
#define DOOR_TAKES_SET(id, s) (void)0
#define DOOR_TAKES_SET_OTHER(id, s) (void)0
#define DOOR_TAKES_SET_SYNC(id, s) (void)0
#define DOOR_TAKES_EVENT_CREATE(id, s) (void)0
#define DOOR_TAKES_EVENT_DESTROY(id, s) (void)0
#define DOOR_TAKES_EVENT_RECORD(id, s)                                                                      \
    do {                                                                                                    \
        struct tracker *taker = engine_fast_event_taker(id, event, false, 0, stream, s);                    \
        if (taker)                                                                                          \
            return engine_fast_event_hold(taker);                                                           \
    } while (0)
#define DOOR_TAKES_EVENT_RECORD_OTHER(id, s) (void)0
#define DOOR_TAKES_EVENT_WAIT(id, s)                                                                        \
    do {                                                                                                    \
        struct tracker *taker = engine_fast_event_taker(id, event, true, flags, stream, s);                 \
        if (taker)                                                                                          \
            return engine_fast_event_hold(taker);                                                           \
    } while (0)
#define DOOR_TAKES_EVENT_SYNC(id, s) (void)0
#define DOOR_TAKES_EVENT_QUERY(id, s) (void)0
#define DOOR_TAKES_QUERY(id, s) (void)0
#define DOOR_TAKES_STREAM_CREATE(id, s) (void)0
#define DOOR_TAKES_STREAM_DESTROY(id, s) (void)0
#define DOOR_TAKES_STREAM_SYNC(id, s) (void)0
#define DOOR_TAKES_DEVICE_SYNC(id, s) (void)0
#define DOOR_TAKES_ALLOC(id, s) (void)0
#define DOOR_TAKES_FREE(id, s) (void)0
#define DOOR_TAKES_CAPTURE(id, s) (void)0
#define DOOR_TAKES_CAPTURE_QUERY(id, s) (void)0
#define DOOR_TAKES_CAPTURE_STATUS(id, s) (void)0
#define DOOR_TAKES_CAPTURE_INFO(id, s) (void)0
#define DOOR_TAKES_GRAPH_LAUNCH(id, s) (void)0
#define DOOR_TAKES_ERROR_CHECK(id, s) (void)0

/*
 * What the exported wrapper does first, before it tests the door: the
 * first entry's push and pop, whose state says by itself whether they
 * apply (no flag in the thread's count: launch_config.h), so that nothing
 * else is on their path.  The launch tests the door first all the same:
 * before the fast path, GCC saves registers and moves the arguments, which
 * off mode's launches would pay (17 instructions more a launch, for 1 fewer
 * in auto: docs/measurements.md, session 8).
 */
#define DOOR_FIRST_CONFIG_PUSH(id, s)                                                                       \
    do {                                                                                                    \
        if (launch_config_push_first(gridDim, blockDim, sharedMem, stream))                                 \
            return cudaSuccess;                                                                             \
    } while (0)
#define DOOR_FIRST_CONFIG_POP(id, s)                                                                        \
    do {                                                                                                    \
        if (launch_config_pop_first(gridDim, blockDim, sharedMem, stream))                                  \
            return cudaSuccess;                                                                             \
    } while (0)
#define DOOR_FIRST_LAUNCH(id, s) (void)0
#define DOOR_FIRST_LAUNCH_EX(id, s) (void)0
#define DOOR_FIRST_LAUNCH_OTHER(id, s) (void)0
#define DOOR_FIRST_HOST_FUNC(id, s) (void)0
#define DOOR_FIRST_HOST_FUNC_OTHER(id, s) (void)0
#define DOOR_FIRST_COPY(id, s) (void)0
#define DOOR_FIRST_COPY_OTHER(id, s) (void)0
#define DOOR_FIRST_COPY_SYNC(id, s) (void)0
#define DOOR_FIRST_SET(id, s) (void)0
#define DOOR_FIRST_SET_OTHER(id, s) (void)0
#define DOOR_FIRST_SET_SYNC(id, s) (void)0
#define DOOR_FIRST_EVENT_CREATE(id, s) (void)0
#define DOOR_FIRST_EVENT_DESTROY(id, s) (void)0
#define DOOR_FIRST_EVENT_RECORD(id, s) (void)0
#define DOOR_FIRST_EVENT_RECORD_OTHER(id, s) (void)0
#define DOOR_FIRST_EVENT_WAIT(id, s) (void)0
#define DOOR_FIRST_EVENT_SYNC(id, s) (void)0
#define DOOR_FIRST_EVENT_QUERY(id, s) (void)0
#define DOOR_FIRST_QUERY(id, s) (void)0
#define DOOR_FIRST_STREAM_CREATE(id, s) (void)0
#define DOOR_FIRST_STREAM_DESTROY(id, s) (void)0
#define DOOR_FIRST_STREAM_SYNC(id, s) (void)0
#define DOOR_FIRST_DEVICE_SYNC(id, s) (void)0
#define DOOR_FIRST_ALLOC(id, s) (void)0
#define DOOR_FIRST_FREE(id, s) (void)0
#define DOOR_FIRST_CAPTURE(id, s) (void)0
#define DOOR_FIRST_CAPTURE_QUERY(id, s) (void)0
#define DOOR_FIRST_CAPTURE_STATUS(id, s) (void)0
#define DOOR_FIRST_CAPTURE_INFO(id, s) (void)0
#define DOOR_FIRST_GRAPH_LAUNCH(id, s) (void)0
#define DOOR_FIRST_ERROR_CHECK(id, s) (void)0

/*
 * cudaLaunchKernelExC (hooks.def's LAUNCH_EX): the launch its configuration
 * describes, held back like cudaLaunchKernel when its launch attributes
 * allow (shim/device/launch_attributes.h: kept on its kernel node, or a
 * programmatic edge); else a boundary, LAUNCH_OTHER, and the log names the
 * attribute.  The call's other fields (call.h's CALL_FIELDS_*) are here:
 * whether it is a launch at all is decided with them.
 */
static inline void launch_ex_fields(struct call *c, const cudaLaunchConfig_t *config, const void *func, void **args)
{
    if (config == NULL || !launch_attrs_holdable(config->attrs, config->numAttrs, call_api_name(c->api))) {
        c->kind = CALL_LAUNCH_OTHER;
        return;
    }
    c->func = func;
    c->grid = config->gridDim;
    c->block = config->blockDim;
    c->args = args;
    c->extra = NULL;
    c->shared_mem = config->dynamicSmemBytes;
    c->attrs = config->attrs;
    c->num_attrs = config->numAttrs;
}
#define CALL_FIELDS_LAUNCH_EX(c) launch_ex_fields(&(c), config, func, args)

/*
 * Observe mode times node calls and host syncs for the ceiling (observe.h):
 * out of line, so that auto's path through the wrapper stays as it was.
 * Auto mode's engine call is out of line too (name_engine), and so is
 * everything but auto mode's common case (name_other): a wrapper that
 * takes the call itself (DOOR_TAKES_*) is then a few loads and stores,
 * and one that does not hands its arguments on untouched.
 */
#define HOOK(kind, name, params, args, stream)                                                              \
    static __attribute__((noinline, cold)) cudaError_t name##_timed params                                  \
    {                                                                                                       \
        name##_fn real = (name##_fn)real_function(HOOK_ID_##name);                                          \
        if (__builtin_expect(real == NULL, 0))                                                              \
            return real_missing(HOOK_ID_##name);                                                            \
        uint64_t start = observe_clock();                                                                   \
        cudaError_t result = real args;                                                                     \
        observe_timed(CALL_##kind, start);                                                                  \
        return result;                                                                                      \
    }                                                                                                       \
    static __attribute__((noinline)) cudaError_t name##_engine params                                       \
    {                                                                                                       \
        shim_enter();                                                                                       \
        name##_fn real = (name##_fn)real_function(HOOK_ID_##name);                                          \
        if (__builtin_expect(real == NULL, 0))                                                              \
            return real_missing(HOOK_ID_##name);                                                            \
        if (CALL_##kind == CALL_ERROR_CHECK)                                                                \
            return engine_last_error(HOOK_ID_##name == HOOK_ID_cudaGetLastError);                           \
        struct call call;                                                                                   \
        CALL_HEAD(call, HOOK_ID_##name, CALL_##kind, stream);                                               \
        CALL_FIELDS_##kind(call);                                                                           \
        cudaError_t result;                                                                                 \
        if (engine_call(&call, &result))                                                                    \
            return result;                                                                                  \
        result = RUNTIME_KNOWN(real args); /* its driver calls are not another function's hidden work */    \
        engine_forwarded();                                                                                 \
        return result;                                                                                      \
    }                                                                                                       \
    static __attribute__((noinline)) cudaError_t name##_other params                                        \
    {                                                                                                       \
        shim_enter();                                                                                       \
        if (__builtin_expect(shim_observing, 0)) {                                                          \
            if (shim_counting)                                                                              \
                observe_call(HOOK_ID_##name, stream);                                                       \
            if (shim_auto) {                                                                                \
                DOOR_TAKES_##kind(HOOK_ID_##name, stream);                                                  \
                return name##_engine args;                                                                  \
            }                                                                                               \
            struct call call; /* observe mode follows sequences, to say why nothing would repeat */         \
            CALL_HEAD(call, HOOK_ID_##name, CALL_##kind, stream);                                           \
            CALL_FIELDS_##kind(call);                                                                       \
            observe_sequence_call(HOOK_ID_##name, CALL_##kind, stream, observe_sequence_target(&call));     \
            if (observe_times(CALL_##kind))                                                                 \
                return name##_timed args;                                                                   \
        }                                                                                                   \
        name##_fn real = (name##_fn)real_function(HOOK_ID_##name);                                          \
        if (__builtin_expect(real == NULL, 0))                                                              \
            return real_missing(HOOK_ID_##name);                                                            \
        return real args;                                                                                   \
    }                                                                                                       \
    cudaError_t name params                                                                                 \
    {                                                                                                       \
        DOOR_FIRST_##kind(HOOK_ID_##name, stream);                                                          \
        if (__builtin_expect(!engine_door_fast, 0))                                                         \
            return name##_other args;                                                                       \
        DOOR_TAKES_##kind(HOOK_ID_##name, stream);                                                          \
        return name##_engine args;                                                                          \
    }
#include "hooks.def"
#undef HOOK
