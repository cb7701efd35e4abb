/* One intercepted call, described for the engine: which function, on which stream, with what. */
#ifndef REPRISE_CALL_H
#define REPRISE_CALL_H

#include "hooks.h"

/*
 * Filled by the wrappers from the hooked function's own parameters (see the
 * CALL_FIELDS_* macros below); only the fields of the call's kind are set.
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
};

/* The fields every call fills (a macro, so that HOOK's parameter names do not capture them). */
#define CALL_HEAD(api_, kind_, stream_) .api = (api_), .kind = (kind_), .stream = (stream_),

/* The fields each kind fills, from the parameter names hooks.def gives its functions. */
#define CALL_FIELDS_LAUNCH                                                                                  \
    .func = (const void *)func, .grid = gridDim, .block = blockDim, .args = args, .shared_mem = sharedMem,
#define CALL_FIELDS_COPY .dst = dst, .src = src, .bytes = count, .copy_kind = kind,
#define CALL_FIELDS_SET .dst = devPtr, .value = value, .bytes = count,
#define CALL_FIELDS_HOST_FUNC .host_fn = fn, .host_data = userData,
#define CALL_FIELDS_EVENT_RECORD .event = event,
#define CALL_FIELDS_EVENT_WAIT .event = event, .flags = flags,
#define CALL_FIELDS_CONFIG_PUSH .grid = gridDim, .block = blockDim, .shared_mem = sharedMem, .config_stream = stream,
#define CALL_FIELDS_CONFIG_POP                                                                              \
    .grid_out = gridDim, .block_out = blockDim, .shared_mem_out = sharedMem, .stream_out = stream,
#define CALL_FIELDS_LAUNCH_OTHER
#define CALL_FIELDS_HOST_FUNC_OTHER
#define CALL_FIELDS_COPY_OTHER
#define CALL_FIELDS_COPY_SYNC
#define CALL_FIELDS_SET_OTHER
#define CALL_FIELDS_SET_SYNC
#define CALL_FIELDS_EVENT_CREATE
#define CALL_FIELDS_EVENT_DESTROY
#define CALL_FIELDS_EVENT_RECORD_OTHER
#define CALL_FIELDS_EVENT_SYNC .event = event,
#define CALL_FIELDS_QUERY
#define CALL_FIELDS_EVENT_QUERY .event = event,
#define CALL_FIELDS_STREAM_CREATE
#define CALL_FIELDS_STREAM_DESTROY
#define CALL_FIELDS_STREAM_SYNC
#define CALL_FIELDS_DEVICE_SYNC
#define CALL_FIELDS_ALLOC
#define CALL_FIELDS_FREE
#define CALL_FIELDS_CAPTURE
#define CALL_FIELDS_CAPTURE_QUERY
#define CALL_FIELDS_GRAPH_LAUNCH
#define CALL_FIELDS_ERROR_CHECK

#endif
