/* The driver API, seen: wrappers for driver_hooks.def, handed out by cuGetProcAddress and dlsym. */
#define _GNU_SOURCE
#include "config.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "driver_api.h"

#include "caller.h"
#include "dlsym.h"
#include "driver.h"
#include "driver_table.h"
#include "driver_work.h"
#include "engine.h"
#include "foreign.h"
#include "log.h"
#include "shim.h"

/* libcuda's functions, by id; the two cuGetProcAddress versions apart. */
static void *_Atomic driver_reals[DRIVER_COUNT];
static void *_Atomic real_proc_address, *_Atomic real_proc_address_v2;
static atomic_bool resolved;
static pthread_mutex_t resolve_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool missing_reported[DRIVER_COUNT];

/* Work entry points handed out unwrapped (first few names, for the log and hidden_work). */
#define UNWRAPPED_MAX 8
static pthread_mutex_t unwrapped_lock = PTHREAD_MUTEX_INITIALIZER;
static char unwrapped[UNWRAPPED_MAX][64];
static unsigned unwrapped_count;
static atomic_bool unwrapped_any;

/* Looks every table name up in libcuda once it is loaded; false while it is not. */
static bool driver_resolve(void)
{
    if (atomic_load_explicit(&resolved, memory_order_acquire))
        return true;
    void *handle = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (handle == NULL) {
        (void)dlerror();
        return false;
    }
    pthread_mutex_lock(&resolve_lock);
    if (!atomic_load(&resolved)) {
        for (int id = 0; id < DRIVER_COUNT; id++)
            atomic_store(&driver_reals[id], real_dlsym(handle, driver_table[id].name));
        atomic_store(&real_proc_address, real_dlsym(handle, "cuGetProcAddress"));
        atomic_store(&real_proc_address_v2, real_dlsym(handle, "cuGetProcAddress_v2"));
        (void)dlerror(); /* leave no stale error for the program's own dlerror() */
        atomic_store_explicit(&resolved, true, memory_order_release);
    }
    pthread_mutex_unlock(&resolve_lock);
    dlclose(handle);
    return true;
}

/* The real function of a wrapper, or NULL if libcuda is not loaded or lacks it. */
static inline void *driver_real(enum driver_id id)
{
    void *fn = atomic_load_explicit(&driver_reals[id], memory_order_relaxed);
    if (__builtin_expect(fn != NULL, 1))
        return fn;
    return driver_resolve() ? atomic_load_explicit(&driver_reals[id], memory_order_relaxed) : NULL;
}

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
 * The wrappers: who called?  The interposed runtime (its calls are the
 * implementation of runtime calls the shim saw) and the shim go straight
 * through; anything else is foreign work (shim/foreign.c).  A setting
 * changed (SETTING kind) is a boundary whoever calls it, since the runtime
 * calls that lead to it are not hooked; the shim's own are not
 * (in_engine).  Off mode only forwards.  The result is the driver's,
 * unchanged.
 */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations" /* cuLaunch, cuLaunchGrid...: still exported */
/* What every wrapper does first: note its caller, initialise, find the real function (or say it is missing). */
#define DRIVER_WRAPPER_START(name, params)                                                                \
    const void *caller = __builtin_return_address(0);                                                     \
    shim_enter();                                                                                         \
    typedef CUresult (*real_fn) params;                                                                   \
    real_fn real = (real_fn)driver_real(DRIVER_ID_##name);                                                \
    if (__builtin_expect(real == NULL, 0))                                                                \
        return driver_missing(DRIVER_ID_##name)
#define DRIVER_HOOK(kind, name, params, args, stream)                                                     \
    CUresult CUDAAPI name params                                                                          \
    {                                                                                                     \
        DRIVER_WRAPPER_START(name, params);                                                               \
        if (__builtin_expect(shim_observing, 0)) {                                                       \
            if (!caller_is_runtime(caller)) {                                                             \
                if (foreign_call(DRIVER_ID_##name, (const void *)(stream))) {                             \
                    CUresult result = real args; /* into the shim's capture */                            \
                    engine_foreign_done();                                                                \
                    return result;                                                                        \
                }                                                                                         \
            } else if (DRIVER_KIND_##kind == DRIVER_KIND_SETTING && shim_auto) {                          \
                /* The runtime's cudaStreamSetAttribute, cudaDeviceSetLimit...: not hooked themselves. */ \
                (void)engine_foreign_call((cudaStream_t)(stream), #name, 0, false);                       \
            }                                                                                             \
        }                                                                                                 \
        return real args;                                                                                 \
    }
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
#undef DRIVER_HOOK
#undef DRIVER_WRAPPER_START

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
    if (fn == NULL || !driver_resolve())
        return fn;
    for (int id = 0; id < DRIVER_COUNT; id++)
        if (fn == driver_wrappers[id])
            return fn; /* already ours: the runtime asked the shim's cuGetProcAddress */
    if (fn == (void *)cuGetProcAddress || fn == (void *)cuGetProcAddress_v2)
        return fn;
    if (fn == atomic_load(&real_proc_address))
        return (void *)cuGetProcAddress;
    if (fn == atomic_load(&real_proc_address_v2))
        return (void *)cuGetProcAddress_v2;
    for (int id = 0; id < DRIVER_COUNT; id++)
        if (fn == atomic_load_explicit(&driver_reals[id], memory_order_relaxed))
            return driver_wrappers[id];
    if (driver_symbol_is_work(symbol))
        note_unwrapped(symbol, how);
    return fn;
}

/* The real cuGetProcAddress_v2 in libcuda (NULL while libcuda is not loaded): marks libcuda's text. */
void *driver_real_address(void)
{
    return driver_resolve() ? atomic_load(&real_proc_address_v2) : NULL;
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
        driver_resolve() ? atomic_load(&real_proc_address_v2) : NULL;
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
        driver_resolve() ? atomic_load(&real_proc_address) : NULL;
    if (real == NULL)
        return CUDA_ERROR_NOT_FOUND;
    CUresult result = real(symbol, pfn, cudaVersion, flags);
    if (result == CUDA_SUCCESS && pfn != NULL)
        *pfn = driver_substitute(symbol, *pfn, "cuGetProcAddress");
    return result;
}
