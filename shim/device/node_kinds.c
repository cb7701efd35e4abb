/* SPDX-License-Identifier: MIT */
/* A held call by its kind: what it keeps, its signature, its graph node, its resubmission (see node_kinds.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "event_refs.h"
#include "launch_attributes.h"
#include "libcuda.h"
#include "node_kinds.h"
#include "held_calls.h"
#include "runtime.h"

/* The packed parameter buffer of cuLaunchKernel's extra form, if it holds at least need bytes; NULL if not. */
static const void *packed_params(void **extra, uint32_t need)
{
    const void *buffer = NULL;
    size_t size = 0;
    bool sized = false;
    for (unsigned i = 0; i < 64 && extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
        if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
            buffer = extra[i + 1];
        else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE && extra[i + 1] != NULL)
            size = *(const size_t *)extra[i + 1], sized = true;
        else
            return NULL; /* an option a graph's node would not take as it is */
    }
    return buffer != NULL && sized && size >= need ? buffer : NULL;
}

/* Keeps a launch's parameters and launch attributes in the arena, for slot r; false as node_keep says. */
static bool keep_launch_bytes(struct held_list *list, struct held_call *r, const struct call *call,
                              const struct kernel_params *previous_layout)
{
    const struct kernel_params *layout = previous_layout && previous_layout->func == call->func
                                             ? previous_layout
                                             : kernel_params_of(call->func, kernel_handle_of(call->api));
    if (layout == NULL)
        return false;
    /* The packed form's buffer is the parameter block itself: kept so, it is a launch like any other. */
    const void *packed = call->args == NULL && call->extra != NULL ? packed_params(call->extra, layout->total)
                                                                   : NULL;
    if (call->args == NULL && packed == NULL && layout->count > 0)
        return false;
    long offset = held_arena_take(list, layout->total);
    if (offset < 0)
        return false;
    if (packed) {
        /* Parameter by parameter, as from an array: the program's padding between them may hold anything. */
        void *from[KERNEL_PARAMS_MAX];
        for (unsigned i = 0; i < layout->count; i++)
            from[i] = (unsigned char *)(uintptr_t)packed + layout->offset[i];
        held_copy_params(list->arena + offset, layout, from);
    } else {
        held_copy_params(list->arena + offset, layout, call->args);
    }
    r->layout = layout;
    r->arena_offset = (uint32_t)offset;
    r->call.args = NULL;
    if (call->num_attrs) {
        /* After the parameters: a kernel node is given them when it is made, a forwarded launch too. */
        size_t size = sizeof(CUlaunchAttribute) * call->num_attrs;
        long at = held_arena_take(list, size);
        if (at < 0)
            return false;
        memcpy(list->arena + at, call->attrs, size);
        r->num_attrs = (uint16_t)call->num_attrs;
        r->attrs_offset = (uint32_t)at;
        r->programmatic = launch_attrs_programmatic(call->attrs, call->num_attrs);
    }
    r->call.attrs = NULL;
    return true;
}

/* Keeps the bytes a copy from pageable memory reads, for slot r: the program may reuse them once it returns. */
static bool keep_copy_source(struct held_list *list, struct held_call *r, const struct call *call)
{
    long offset = held_arena_take(list, call->bytes);
    if (offset < 0)
        return false;
    memcpy(list->arena + offset, call->src, call->bytes);
    r->staged = true;
    r->arena_offset = (uint32_t)offset;
    return true;
}

/* Keeps call in record slot r of list: its kind's fields and the bytes it points to (see node_kinds.h). */
bool node_keep(struct held_list *list, struct held_call *r, const struct call *call, enum host_memory src_memory,
               const struct kernel_params *previous_layout)
{
    struct call *to = &r->call;
    to->api = call->api;
    to->kind = call->kind;
    to->stream = call->stream;
    switch (call->kind) {
    case CALL_LAUNCH:
        to->func = call->func;
        to->grid = call->grid;
        to->block = call->block;
        to->shared_mem = call->shared_mem;
        to->num_attrs = call->num_attrs;
        return keep_launch_bytes(list, r, call, previous_layout);
    case CALL_COPY:
        to->dst = call->dst;
        to->src = call->src;
        to->bytes = call->bytes;
        to->copy_kind = call->copy_kind;
        return src_memory != MEMORY_PAGEABLE || keep_copy_source(list, r, call);
    case CALL_SET:
        to->dst = call->dst;
        to->value = call->value;
        to->bytes = call->bytes;
        to->element_size = call->element_size;
        return true;
    case CALL_HOST_FUNC:
        to->host_fn = call->host_fn;
        to->host_data = call->host_data;
        return true;
    case CALL_EVENT_RECORD:
    case CALL_EVENT_WAIT:
        to->event = call->event;
        to->flags = call->flags;
        return true;
    default:
        *to = *call;
        return true;
    }
}

/* What a call's signature names as its target: call.h's call_target, but for a launch its kernel's twin. */
uint64_t call_sig_target(const struct call *call)
{
    return call->kind == CALL_LAUNCH ? kernel_twin_of(call->func, kernel_handle_of(call->api)) : call_target(call);
}

/*
 * Describes a call's shape for matching: its signature (for copies, where
 * source and destination live).  A launch's grid, block and dynamic shared
 * memory and a copy's or set's size are left out: a graph's node takes new
 * ones in place (node_patch), so iterations that differ only there (a
 * decode loop's growing sequence) are one region; so is the size of a
 * copy from pageable memory (its bytes are staged into a buffer that a
 * graph re-plans when a larger one comes: region_graph.c's restage).
 * Kept: whether a size is zero (a graph has no zero-length copy or set
 * node).  The target (a kernel, a host
 * function) is call_sig_target's; an event call's names no event: how its
 * event relates to its sequence's others is the sequence's to say (the
 * engine's, policy/event_refs.h), which event it is its node's.
 */
void call_signature(const struct call *call, enum host_memory src_memory, enum host_memory dst_memory,
                    struct call_sig *sig)
{
    *sig = (struct call_sig){.api = (uint32_t)call->api, .stream = (uint64_t)(uintptr_t)call->stream,
                             .target = call_sig_target(call)};
    switch (call->kind) {
    case CALL_LAUNCH:
        sig->flags = call->num_attrs ? launch_attrs_hash(call) : 0;
        break;
    case CALL_COPY:
        sig->bytes = call->bytes != 0;
        /* A graph's copy node cannot move between host and device memory: where both ends live is shape. */
        sig->copy_kind = (uint32_t)call->copy_kind | ((uint32_t)src_memory << 8) | ((uint32_t)dst_memory << 12);
        break;
    case CALL_SET:
        sig->bytes = call->bytes != 0;
        sig->copy_kind = (uint32_t)dst_memory << 12;
        break;
    case CALL_EVENT_WAIT:
        sig->flags = call->flags;
        sig->target = EVENT_REF_NEW;
        break;
    case CALL_EVENT_RECORD:
        sig->target = EVENT_REF_NEW;
        break;
    case CALL_HOST_FUNC:
        break;
    default:
        sig->flags = (uint32_t)call->kind;
        break;
    }
}

/* Adds the node of recorded call r to graph, after deps; *node (a copy's: region_graph_build's, see node_kinds.h). */
CUresult node_add(cudaGraph_t graph, CUcontext context, const struct held_list *list, const struct held_call *r,
                  const cudaGraphNode_t *deps, size_t ndeps, int stream_priority, cudaGraphNode_t *node)
{
    const struct call *c = &r->call;
    switch (c->kind) {
    case CALL_LAUNCH: {
        void *argv[KERNEL_PARAMS_MAX];
        held_kernel_argv(list, r, argv);
        CUDA_KERNEL_NODE_PARAMS p = kernel_params_for(r, argv);
        CUresult err = DEVICE_CALL(cuGraphAddKernelNode_v2, node, graph, deps, ndeps, &p);
        /* Its launch attributes that a kernel node keeps (launch_attributes.h; the programmatic one is an edge). */
        const CUlaunchAttribute *attrs = (const CUlaunchAttribute *)(list->arena + r->attrs_offset);
        bool prioritised = false;
        for (unsigned k = 0; err == CUDA_SUCCESS && k < r->num_attrs; k++)
            if (launch_attr_on_node((unsigned)attrs[k].id)) {
                err = DEVICE_CALL(cuGraphKernelNodeSetAttribute, *node, attrs[k].id, &attrs[k].value);
                prioritised |= attrs[k].id == CU_LAUNCH_ATTRIBUTE_PRIORITY;
            }
        /* Else its stream's priority, as stream capture gives a node (0, a node's own, needs no call). */
        if (err == CUDA_SUCCESS && !prioritised && stream_priority != 0) {
            CUkernelNodeAttrValue priority = {.priority = stream_priority};
            err = DEVICE_CALL(cuGraphKernelNodeSetAttribute, *node, CU_LAUNCH_ATTRIBUTE_PRIORITY, &priority);
        }
        return err;
    }
    case CALL_COPY:
        return CUDA_SUCCESS; /* added in a second pass, once staging is allocated */
    case CALL_SET: {
        CUDA_MEMSET_NODE_PARAMS p = memset_params(c);
        return DEVICE_CALL(cuGraphAddMemsetNode, node, graph, deps, ndeps, &p, context);
    }
    case CALL_HOST_FUNC: {
        CUDA_HOST_NODE_PARAMS p = {.fn = c->host_fn, .userData = c->host_data};
        return DEVICE_CALL(cuGraphAddHostNode, node, graph, deps, ndeps, &p);
    }
    case CALL_EVENT_RECORD:
        return DEVICE_CALL(cuGraphAddEventRecordNode, node, graph, deps, ndeps, c->event);
    case CALL_EVENT_WAIT:
        return DEVICE_CALL(cuGraphAddEventWaitNode, node, graph, deps, ndeps, c->event);
    default:
        return CUDA_ERROR_NOT_SUPPORTED;
    }
}

/* A node API's function and its per-thread default stream twin, through the runtime's door or the driver's. */
#define RUNTIME_CASES(name) case HOOK_ID_##name: case HOOK_ID_##name##_ptsz
#define DRIVER_CASES(name) case CALL_API_DRIVER(DRIVER_ID_##name): case CALL_API_DRIVER(DRIVER_ID_##name##_ptsz)
/* libcuda's function name (real, looked up already), as its own type. */
#define DRIVER_REAL(name) ((__typeof__(name) *)real)

/*
 * Submits recorded call r as the program made it, through the function it
 * came by: the parameters come from the record (a launch's packed form as
 * its parameter array: the same block).  The stream is resolved (never
 * NULL), so each function's plain and _ptsz versions do the same.  A
 * driver call's CUresult comes back as the cudaError_t of the same value.
 */
cudaError_t node_resubmit(const struct held_list *list, const struct held_call *r, cudaStream_t stream)
{
    const struct call *c = &r->call;
    void *real = NULL;
    if (call_api_is_driver(c->api) && (real = libcuda_real(call_api_driver_id(c->api))) == NULL)
        return (cudaError_t)CUDA_ERROR_NOT_FOUND;
    void *argv[KERNEL_PARAMS_MAX];
    if (c->kind == CALL_LAUNCH)
        held_kernel_argv(list, r, argv);
    const void *src = r->staged ? held_bytes(list, r) : c->src;
    CUdeviceptr dst = (CUdeviceptr)(uintptr_t)c->dst;
    const CUlaunchAttribute *attrs = r->num_attrs ? (const CUlaunchAttribute *)(list->arena + r->attrs_offset) : NULL;
    switch ((int)c->api) {
    /* Launches.  Every launch API takes the kernel the same way (a cudaKernel_t is accepted as a function). */
    RUNTIME_CASES(__cudaLaunchKernel):
        return REAL_CALL(__cudaLaunchKernel, (cudaKernel_t)c->func, c->grid, c->block, argv, c->shared_mem, stream);
    RUNTIME_CASES(cudaLaunchKernel):
        return REAL_CALL(cudaLaunchKernel, c->func, c->grid, c->block, argv, c->shared_mem, stream);
    RUNTIME_CASES(cudaLaunchKernelExC): {
        cudaLaunchConfig_t config = {.gridDim = c->grid, .blockDim = c->block, .dynamicSmemBytes = c->shared_mem,
                                     .stream = stream, .attrs = (cudaLaunchAttribute *)attrs,
                                     .numAttrs = r->num_attrs};
        return REAL_CALL(cudaLaunchKernelExC, &config, c->func, argv);
    }
    DRIVER_CASES(cuLaunchKernel):
        return (cudaError_t)DRIVER_REAL(cuLaunchKernel)((CUfunction)c->func, c->grid.x, c->grid.y, c->grid.z,
                                                        c->block.x, c->block.y, c->block.z,
                                                        (unsigned)c->shared_mem, stream, argv, NULL);
    DRIVER_CASES(cuLaunchKernelEx): {
        CUlaunchConfig config = {.gridDimX = c->grid.x, .gridDimY = c->grid.y, .gridDimZ = c->grid.z,
                                 .blockDimX = c->block.x, .blockDimY = c->block.y, .blockDimZ = c->block.z,
                                 .sharedMemBytes = (unsigned)c->shared_mem, .hStream = stream,
                                 .attrs = (CUlaunchAttribute *)attrs, .numAttrs = r->num_attrs};
        return (cudaError_t)DRIVER_REAL(cuLaunchKernelEx)(&config, (CUfunction)c->func, argv, NULL);
    }
    /* Copies (a staged one from the record's bytes). */
    RUNTIME_CASES(cudaMemcpyAsync):
        return REAL_CALL(cudaMemcpyAsync, c->dst, src, c->bytes, c->copy_kind, stream);
    DRIVER_CASES(cuMemcpyAsync):
        return (cudaError_t)DRIVER_REAL(cuMemcpyAsync)(dst, (CUdeviceptr)(uintptr_t)src, c->bytes, stream);
    DRIVER_CASES(cuMemcpyHtoDAsync_v2):
        return (cudaError_t)DRIVER_REAL(cuMemcpyHtoDAsync_v2)(dst, src, c->bytes, stream);
    DRIVER_CASES(cuMemcpyDtoHAsync_v2):
        return (cudaError_t)DRIVER_REAL(cuMemcpyDtoHAsync_v2)(c->dst, (CUdeviceptr)(uintptr_t)src, c->bytes, stream);
    DRIVER_CASES(cuMemcpyDtoDAsync_v2):
        return (cudaError_t)DRIVER_REAL(cuMemcpyDtoDAsync_v2)(dst, (CUdeviceptr)(uintptr_t)src, c->bytes, stream);
    /* Sets: the runtime's bytes, the driver's 1, 2 or 4-byte elements. */
    RUNTIME_CASES(cudaMemsetAsync):
        return REAL_CALL(cudaMemsetAsync, c->dst, c->value, c->bytes, stream);
    DRIVER_CASES(cuMemsetD8Async):
        return (cudaError_t)DRIVER_REAL(cuMemsetD8Async)(dst, (unsigned char)c->value, c->bytes, stream);
    DRIVER_CASES(cuMemsetD16Async):
        return (cudaError_t)DRIVER_REAL(cuMemsetD16Async)(dst, (unsigned short)c->value, c->bytes / 2, stream);
    DRIVER_CASES(cuMemsetD32Async):
        return (cudaError_t)DRIVER_REAL(cuMemsetD32Async)(dst, (unsigned)c->value, c->bytes / 4, stream);
    /* Host functions. */
    RUNTIME_CASES(cudaLaunchHostFunc):
        return REAL_CALL(cudaLaunchHostFunc, stream, c->host_fn, c->host_data);
    DRIVER_CASES(cuLaunchHostFunc):
        return (cudaError_t)DRIVER_REAL(cuLaunchHostFunc)(stream, c->host_fn, c->host_data);
    /* Event records and waits. */
    RUNTIME_CASES(cudaEventRecord):
        return REAL_CALL(cudaEventRecord, c->event, stream);
    DRIVER_CASES(cuEventRecord):
        return (cudaError_t)DRIVER_REAL(cuEventRecord)(c->event, stream);
    DRIVER_CASES(cuEventRecordWithFlags):
        return (cudaError_t)DRIVER_REAL(cuEventRecordWithFlags)(c->event, stream, c->flags);
    RUNTIME_CASES(cudaStreamWaitEvent):
        return REAL_CALL(cudaStreamWaitEvent, stream, c->event, c->flags);
    DRIVER_CASES(cuStreamWaitEvent):
        return (cudaError_t)DRIVER_REAL(cuStreamWaitEvent)(stream, c->event, c->flags);
    default:
        return call_api_is_driver(c->api) ? (cudaError_t)CUDA_ERROR_NOT_SUPPORTED : cudaErrorNotSupported;
    }
}

/*
 * The held-call list's operations that go by kind (node_keep,
 * node_resubmit): here, above held_calls.c's list and arena, so that the
 * two files call one way.
 */

/* Appends any call (held_append's slow path); false if memory ran out or a kernel's parameters cannot be read. */
bool held_append_any(struct held_list *list, const struct call *call, enum host_memory src_memory)
{
    if (list->count == list->capacity) {
        unsigned capacity = list->capacity ? list->capacity * 2 : 64;
        struct held_call *grown = realloc(list->calls, sizeof *grown * capacity);
        if (grown == NULL)
            return false;
        /* Zeroed, so that every slot's layout is NULL or the one a call in it had last. */
        memset(grown + list->capacity, 0, sizeof *grown * (capacity - list->capacity));
        list->calls = grown;
        list->capacity = capacity;
    }
    struct held_call *r = &list->calls[list->count];
    /* The slot's previous call was most likely this call's previous occurrence: the same kernel. */
    const struct kernel_params *previous_layout = r->layout;
    r->layout = NULL;
    r->staged = false;
    r->programmatic = false;
    r->arena_offset = 0;
    r->num_attrs = 0;
    if (!node_keep(list, r, call, src_memory, previous_layout))
        return false;
    list->count++;
    return true;
}

/* Submits one recorded call as the program made it, through its own door (see held_calls.h); returns what it says. */
cudaError_t held_forward(const struct held_list *list, const struct held_call *r, cudaStream_t per_thread)
{
    const struct call *c = &r->call;
    return node_resubmit(list, r, c->stream == cudaStreamPerThread ? per_thread : c->stream);
}

/* Submits every recorded call one by one, in order; returns the first runtime call's error (which also stays in the runtime) and the first driver call's in *driver_error. */
cudaError_t held_forward_all(const struct held_list *list, cudaStream_t per_thread, CUresult *driver_error)
{
    cudaError_t first = cudaSuccess;
    CUresult first_driver = CUDA_SUCCESS;
    for (unsigned i = 0; i < list->count; i++) {
        cudaError_t err = held_forward(list, &list->calls[i], per_thread);
        if (call_api_is_driver(list->calls[i].call.api)) {
            if (first_driver == CUDA_SUCCESS)
                first_driver = (CUresult)err;
        } else if (first == cudaSuccess) {
            first = err;
        }
    }
    if (driver_error)
        *driver_error = first_driver;
    return first;
}
