/* SPDX-License-Identifier: MIT */
/* One intercepted call, described for the engine: which function, on which stream, with what. */
#ifndef REPRISE_CALL_H
#define REPRISE_CALL_H

#include <stdbool.h>

#include "hooks.h"

/*
 * Filled by the wrappers from the hooked function's own parameters (see the
 * CALL_FIELDS_* macros below); only the fields of the call's kind are set,
 * the others are left unwritten (no zeroing on the hot path): read a field
 * only for the kinds that fill it.
 */
struct call {
    enum hook_id api;           /* a runtime hook's id, or CALL_API_DRIVER(a driver_hooks.def id) */
    enum call_kind kind;
    cudaStream_t stream;        /* as hooks.def resolves it: never NULL */
    /* LAUNCH */
    const void *func;           /* host stub or cudaKernel_t */
    dim3 grid, block;
    void **args;
    void **extra;               /* cuLaunchKernel's packed form (CU_LAUNCH_PARAM_BUFFER_POINTER), when args is NULL */
    const void *attrs;          /* cuLaunchKernelEx's CUlaunchAttribute array (cudaLaunchKernelExC's: the same layout),
                                   none a boundary (shim/device/launch_attributes.h) */
    unsigned num_attrs;         /* 0 for every other launch */
    size_t shared_mem;
    /* COPY and SET */
    void *dst;
    const void *src;
    size_t bytes;
    enum cudaMemcpyKind copy_kind; /* cudaMemcpyDefault for cuMemcpyAsync: both ends are looked up */
    int value;                  /* SET: the element's bits (a byte, or cuMemsetD16/D32's 2 or 4 bytes) */
    unsigned element_size;      /* SET: 1, 2 or 4 */
    /* HOST_FUNC */
    cudaHostFn_t host_fn;
    void *host_data;
    /* CONFIG_PUSH uses grid, block, shared_mem and config_stream; CONFIG_POP writes through these */
    cudaStream_t config_stream;
    dim3 *grid_out, *block_out;
    size_t *shared_mem_out;
    void *stream_out;
    /* EVENT_RECORD and EVENT_WAIT (the event also for EVENT_RECORD_OTHER, _SYNC, _QUERY and _DESTROY) */
    cudaEvent_t event;
    unsigned flags;
    /* CAPTURE_STATUS and CAPTURE_INFO */
    enum cudaStreamCaptureStatus *status_out;
};

/*
 * The two front doors share one id space: a driver function's id follows
 * every runtime hook's, so that signatures and logs tell them apart.
 */
#define CALL_API_DRIVER(id) ((enum hook_id)(HOOK_COUNT + 1 + (int)(id)))

/* Whether a call came through the driver's door (a driver_hooks.def wrapper). */
static inline bool call_api_is_driver(enum hook_id api)
{
    return (int)api > HOOK_COUNT;
}

/* The driver_hooks.def id of a driver-door call. */
static inline int call_api_driver_id(enum hook_id api)
{
    return (int)api - HOOK_COUNT - 1;
}

/* The kind of call a function makes (a driver function that is no front door: CALL_KIND_COUNT). */
enum call_kind call_api_kind(unsigned api);

/* The kinds of call that can be graph nodes (launches, copies, sets, host functions, event records and waits). */
#define CALL_KINDS_NODE                                                                                     \
    ((1u << CALL_LAUNCH) | (1u << CALL_COPY) | (1u << CALL_SET) | (1u << CALL_HOST_FUNC) |                  \
     (1u << CALL_EVENT_RECORD) | (1u << CALL_EVENT_WAIT))
/* The kinds of call that wait on the host for stream work (syncs, synchronous copies and sets). */
#define CALL_KINDS_HOST_SYNC                                                                                \
    ((1u << CALL_COPY_SYNC) | (1u << CALL_SET_SYNC) | (1u << CALL_EVENT_SYNC) | (1u << CALL_STREAM_SYNC) |  \
     (1u << CALL_DEVICE_SYNC))
/* The kinds of call that order nothing against stream work (creations, capture questions, error checks). */
#define CALL_KINDS_NO_ORDER                                                                                 \
    ((1u << CALL_EVENT_CREATE) | (1u << CALL_STREAM_CREATE) | (1u << CALL_CAPTURE_QUERY) |                   \
     (1u << CALL_CAPTURE_STATUS) | (1u << CALL_CAPTURE_INFO) | (1u << CALL_ERROR_CHECK))

/* Whether kind is one of the set (CALL_KINDS_*). */
static inline bool call_kind_in(enum call_kind kind, unsigned set)
{
    _Static_assert(CALL_KIND_COUNT <= 32, "call kinds must fit a 32-bit set");
    return (set >> kind) & 1u;
}

/* The name of the function a call was made through, for logs ("cudaLaunchKernel", "cuLaunchKernel_ptsz"). */
const char *call_api_name(enum hook_id api);

/* The fields every call fills (a macro, so that HOOK's parameter names do not capture them). */
#define CALL_HEAD(c, api_, kind_, stream_) ((c).api = (api_), (c).kind = (kind_), (c).stream = (stream_))

/* The fields each kind fills, from the parameter names hooks.def gives its functions. */
#define CALL_FIELDS_LAUNCH(c)                                                                               \
    ((c).func = (const void *)func, (c).grid = gridDim, (c).block = blockDim, (c).args = args,                \
     (c).shared_mem = sharedMem, (c).extra = NULL, (c).num_attrs = 0)
#define CALL_FIELDS_COPY(c) ((c).dst = dst, (c).src = src, (c).bytes = count, (c).copy_kind = kind)
#define CALL_FIELDS_SET(c) ((c).dst = devPtr, (c).value = value, (c).bytes = count, (c).element_size = 1)
#define CALL_FIELDS_HOST_FUNC(c) ((c).host_fn = fn, (c).host_data = userData)
#define CALL_FIELDS_EVENT_RECORD(c) ((c).event = event)
#define CALL_FIELDS_EVENT_WAIT(c) ((c).event = event, (c).flags = flags)
#define CALL_FIELDS_CONFIG_PUSH(c)                                                                          \
    ((c).grid = gridDim, (c).block = blockDim, (c).shared_mem = sharedMem, (c).config_stream = stream)
#define CALL_FIELDS_CONFIG_POP(c)                                                                           \
    ((c).grid_out = gridDim, (c).block_out = blockDim, (c).shared_mem_out = sharedMem, (c).stream_out = stream)
/* LAUNCH_EX's (cudaLaunchKernelExC's) are the runtime door's: whether it is a launch depends on its attributes. */
#define CALL_FIELDS_LAUNCH_OTHER(c) ((void)0)
#define CALL_FIELDS_HOST_FUNC_OTHER(c) ((void)0)
#define CALL_FIELDS_COPY_OTHER(c) ((void)0)
#define CALL_FIELDS_COPY_SYNC(c) ((void)0)
#define CALL_FIELDS_SET_OTHER(c) ((void)0)
#define CALL_FIELDS_SET_SYNC(c) ((void)0)
#define CALL_FIELDS_EVENT_CREATE(c) ((void)0)
#define CALL_FIELDS_EVENT_DESTROY(c) ((c).event = event)
#define CALL_FIELDS_EVENT_RECORD_OTHER(c) ((c).event = event)
#define CALL_FIELDS_EVENT_SYNC(c) ((c).event = event)
#define CALL_FIELDS_QUERY(c) ((void)0)
#define CALL_FIELDS_EVENT_QUERY(c) ((c).event = event)
#define CALL_FIELDS_STREAM_CREATE(c) ((void)0)
#define CALL_FIELDS_STREAM_DESTROY(c) ((void)0)
#define CALL_FIELDS_STREAM_SYNC(c) ((void)0)
#define CALL_FIELDS_DEVICE_SYNC(c) ((void)0)
#define CALL_FIELDS_ALLOC(c) ((void)0)
#define CALL_FIELDS_FREE(c) ((void)0)
#define CALL_FIELDS_CAPTURE(c) ((void)0)
#define CALL_FIELDS_CAPTURE_QUERY(c) ((void)0)
#define CALL_FIELDS_CAPTURE_STATUS(c) ((c).status_out = pCaptureStatus)
#define CALL_FIELDS_CAPTURE_INFO(c) ((c).status_out = captureStatus_out)
#define CALL_FIELDS_GRAPH_LAUNCH(c) ((void)0)
#define CALL_FIELDS_ERROR_CHECK(c) ((void)0)

#endif
