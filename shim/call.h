/* One intercepted call, described for the engine: which function, on which stream, with what. */
#ifndef REPRISE_CALL_H
#define REPRISE_CALL_H

#include "hooks.h"

/*
 * Filled by the wrappers from the hooked function's own parameters (see the
 * CALL_FIELDS_* macros below); only the fields of the call's kind are set,
 * the others are left unwritten (no zeroing on the hot path): read a field
 * only for the kinds that fill it.
 */
struct call {
    enum hook_id api;
    enum call_kind kind;
    cudaStream_t stream;        /* as hooks.def resolves it: never NULL */
    /* LAUNCH */
    const void *func;           /* host stub or cudaKernel_t */
    dim3 grid, block;
    void **args;
    size_t shared_mem;
    /* COPY and SET */
    void *dst;
    const void *src;
    size_t bytes;
    enum cudaMemcpyKind copy_kind;
    int value;
    /* HOST_FUNC */
    cudaHostFn_t host_fn;
    void *host_data;
    /* CONFIG_PUSH uses grid, block, shared_mem and config_stream; CONFIG_POP writes through these */
    cudaStream_t config_stream;
    dim3 *grid_out, *block_out;
    size_t *shared_mem_out;
    void *stream_out;
    /* EVENT_RECORD and EVENT_WAIT */
    cudaEvent_t event;
    unsigned flags;
    /* CAPTURE_STATUS and CAPTURE_INFO */
    enum cudaStreamCaptureStatus *status_out;
};

/* The fields every call fills (a macro, so that HOOK's parameter names do not capture them). */
#define CALL_HEAD(c, api_, kind_, stream_) ((c).api = (api_), (c).kind = (kind_), (c).stream = (stream_))

/* The fields each kind fills, from the parameter names hooks.def gives its functions. */
#define CALL_FIELDS_LAUNCH(c)                                                                               \
    ((c).func = (const void *)func, (c).grid = gridDim, (c).block = blockDim, (c).args = args,                \
     (c).shared_mem = sharedMem)
#define CALL_FIELDS_COPY(c) ((c).dst = dst, (c).src = src, (c).bytes = count, (c).copy_kind = kind)
#define CALL_FIELDS_SET(c) ((c).dst = devPtr, (c).value = value, (c).bytes = count)
#define CALL_FIELDS_HOST_FUNC(c) ((c).host_fn = fn, (c).host_data = userData)
#define CALL_FIELDS_EVENT_RECORD(c) ((c).event = event)
#define CALL_FIELDS_EVENT_WAIT(c) ((c).event = event, (c).flags = flags)
#define CALL_FIELDS_CONFIG_PUSH(c)                                                                          \
    ((c).grid = gridDim, (c).block = blockDim, (c).shared_mem = sharedMem, (c).config_stream = stream)
#define CALL_FIELDS_CONFIG_POP(c)                                                                           \
    ((c).grid_out = gridDim, (c).block_out = blockDim, (c).shared_mem_out = sharedMem, (c).stream_out = stream)
#define CALL_FIELDS_LAUNCH_OTHER(c) ((void)0)
#define CALL_FIELDS_HOST_FUNC_OTHER(c) ((void)0)
#define CALL_FIELDS_COPY_OTHER(c) ((void)0)
#define CALL_FIELDS_COPY_SYNC(c) ((void)0)
#define CALL_FIELDS_SET_OTHER(c) ((void)0)
#define CALL_FIELDS_SET_SYNC(c) ((void)0)
#define CALL_FIELDS_EVENT_CREATE(c) ((void)0)
#define CALL_FIELDS_EVENT_DESTROY(c) ((void)0)
#define CALL_FIELDS_EVENT_RECORD_OTHER(c) ((void)0)
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
