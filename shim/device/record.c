/* SPDX-License-Identifier: MIT */
/* Calls held back or recorded by the engine: their descriptions and argument bytes. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "launch_attributes.h"
#include "launch_attrs.h"
#include "libcuda.h"
#include "record.h"
#include "runtime.h"

/* Empties the list, keeping its memory. */
void record_reset(struct record_list *list)
{
    list->count = 0;
    list->arena_used = 0;
    list->differ_graph = NULL;
    list->differ_count = 0;
}

/* Frees the list's memory. */
void record_free(struct record_list *list)
{
    free(list->calls);
    free(list->arena);
    free(list->differ);
    memset(list, 0, sizeof *list);
}

/* Grows the arena to hold at least `needed` bytes; false if memory ran out. */
static bool __attribute__((noinline)) arena_grow(struct record_list *list, size_t needed)
{
    size_t capacity = list->arena_capacity ? list->arena_capacity : 4096;
    while (capacity < needed)
        capacity *= 2;
    unsigned char *grown = realloc(list->arena, capacity);
    if (grown == NULL)
        return false;
    list->arena = grown;
    list->arena_capacity = capacity;
    return true;
}

/* Makes room for n positions in the list of calls that differ; false if memory ran out. */
bool record_differ_reserve(struct record_list *list, unsigned n)
{
    if (n <= list->differ_capacity)
        return true;
    unsigned *grown = realloc(list->differ, sizeof *grown * n);
    if (grown == NULL)
        return false;
    list->differ = grown;
    list->differ_capacity = n;
    return true;
}

/*
 * Reserves n bytes of arena, 16-byte aligned; returns their offset or -1.
 * The arena exists once anything is taken, even 0 bytes (a kernel without
 * parameters): a block's address goes to memcpy, which must not get NULL.
 */
static inline long arena_take(struct record_list *list, size_t n)
{
    size_t offset = align16(list->arena_used);
    if (__builtin_expect(offset + n > list->arena_capacity || list->arena == NULL, 0) &&
        !arena_grow(list, offset + n))
        return -1;
    list->arena_used = offset + n;
    return (long)offset;
}

/* The bytes of pageable memory a sequence of calls copies from (staged, each rounded up to 16). */
size_t sigs_pageable_bytes(const struct call_sig *sigs, unsigned count)
{
    size_t total = 0;
    for (unsigned i = 0; i < count; i++)
        if (((sigs[i].copy_kind >> 8) & 0xf) == MEMORY_PAGEABLE)
            total += align16(sigs[i].bytes);
    return total;
}

/*
 * Describes a call's shape for matching: its signature (for copies, where
 * source and destination live).  A launch's grid, block and dynamic shared
 * memory and a copy's or set's size are left out: a graph's node takes new
 * ones in place (region_graph.c patches them), so iterations that differ
 * only there (a decode loop's growing sequence) are one region.  Kept: the
 * size of a copy from pageable memory (its bytes are staged at a fixed
 * place in a buffer sized when the graph is built) and whether a size is
 * zero (a graph has no zero-length copy or set node).
 */
void call_signature(const struct call *call, enum host_memory src_memory, enum host_memory dst_memory,
                    struct call_sig *sig)
{
    *sig = (struct call_sig){.api = (uint32_t)call->api, .stream = (uint64_t)(uintptr_t)call->stream};
    switch (call->kind) {
    case CALL_LAUNCH:
        sig->target = (uint64_t)(uintptr_t)call->func;
        sig->flags = call->num_attrs ? launch_attrs_hash(call) : 0;
        break;
    case CALL_COPY:
        sig->bytes = src_memory == MEMORY_PAGEABLE ? call->bytes : call->bytes != 0;
        /* A graph's copy node cannot move between host and device memory: where both ends live is shape. */
        sig->copy_kind = (uint32_t)call->copy_kind | ((uint32_t)src_memory << 8) | ((uint32_t)dst_memory << 12);
        break;
    case CALL_SET:
        sig->bytes = call->bytes != 0;
        sig->copy_kind = (uint32_t)dst_memory << 12;
        break;
    case CALL_HOST_FUNC:
        sig->target = (uint64_t)(uintptr_t)call->host_fn;
        break;
    case CALL_EVENT_RECORD:
        sig->target = (uint64_t)(uintptr_t)call->event;
        break;
    case CALL_EVENT_WAIT:
        sig->target = (uint64_t)(uintptr_t)call->event;
        sig->flags = call->flags;
        break;
    default:
        sig->flags = (uint32_t)call->kind;
        break;
    }
}

/*
 * A launch's attributes as a signature's flags: 0 for none, else a hash of
 * every id and the bytes of its value that mean something (FNV-1a): the
 * rest of the union holds whatever the program's memory held.
 */
uint32_t launch_attrs_hash(const struct call *launch)
{
    const CUlaunchAttribute *attrs = launch->attrs;
    uint32_t h = 2166136261u;
    for (unsigned i = 0; i < launch->num_attrs; i++) {
        const unsigned char *bytes = (const unsigned char *)&attrs[i].value;
        h = (h ^ (uint32_t)attrs[i].id) * 16777619u;
        for (size_t k = 0; k < launch_attr_value_bytes((unsigned)attrs[i].id); k++)
            h = (h ^ bytes[k]) * 16777619u;
    }
    return h ? h : 1;
}

/* Copies the fields of a call that its kind fills (shim/base/call.h): the whole struct is three times larger. */
static inline void copy_call(struct call *to, const struct call *from)
{
    to->api = from->api;
    to->kind = from->kind;
    to->stream = from->stream;
    switch (from->kind) {
    case CALL_LAUNCH:
        to->func = from->func;
        to->grid = from->grid;
        to->block = from->block;
        to->shared_mem = from->shared_mem;
        to->num_attrs = from->num_attrs;
        break;
    case CALL_COPY:
        to->dst = from->dst;
        to->src = from->src;
        to->bytes = from->bytes;
        to->copy_kind = from->copy_kind;
        break;
    case CALL_SET:
        to->dst = from->dst;
        to->value = from->value;
        to->bytes = from->bytes;
        to->element_size = from->element_size;
        break;
    case CALL_HOST_FUNC:
        to->host_fn = from->host_fn;
        to->host_data = from->host_data;
        break;
    case CALL_EVENT_RECORD:
        to->event = from->event;
        to->flags = from->flags;
        break;
    case CALL_EVENT_WAIT:
        to->event = from->event;
        to->flags = from->flags;
        break;
    default:
        *to = *from;
        break;
    }
}

/* How a launch made through api names its kernel. */
enum kernel_handle kernel_handle_of(enum hook_id api)
{
    if (call_api_is_driver(api))
        return KERNEL_BY_DRIVER;
    return api == HOOK_ID___cudaLaunchKernel || api == HOOK_ID___cudaLaunchKernel_ptsz ? KERNEL_BY_RT_KERNEL
                                                                                        : KERNEL_BY_STUB;
}

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

/* Appends any call (record_append's slow path); false if memory ran out or a kernel's parameters cannot be read. */
bool record_append_any(struct record_list *list, const struct call *call, enum host_memory src_memory)
{
    if (list->count == list->capacity) {
        unsigned capacity = list->capacity ? list->capacity * 2 : 64;
        struct recorded *grown = realloc(list->calls, sizeof *grown * capacity);
        if (grown == NULL)
            return false;
        /* Zeroed, so that every slot's layout is NULL or the one a call in it had last. */
        memset(grown + list->capacity, 0, sizeof *grown * (capacity - list->capacity));
        list->calls = grown;
        list->capacity = capacity;
    }
    struct recorded *r = &list->calls[list->count];
    /* The slot's previous call was most likely this call's previous occurrence: the same kernel. */
    const struct kernel_params *previous_layout = r->layout;
    copy_call(&r->call, call);
    r->layout = NULL;
    r->staged = false;
    r->programmatic = false;
    r->arena_offset = 0;
    r->num_attrs = 0;
    if (call->kind == CALL_LAUNCH) {
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
        long offset = arena_take(list, layout->total);
        if (offset < 0)
            return false;
        if (packed) {
            /* Parameter by parameter, as from an array: the program's padding between them may hold anything. */
            void *from[KERNEL_PARAMS_MAX];
            for (unsigned i = 0; i < layout->count; i++)
                from[i] = (unsigned char *)(uintptr_t)packed + layout->offset[i];
            record_copy_params(list->arena + offset, layout, from);
        } else {
            record_copy_params(list->arena + offset, layout, call->args);
        }
        r->layout = layout;
        r->arena_offset = (uint32_t)offset;
        r->call.args = NULL;
        if (call->num_attrs) {
            /* After the parameters: a kernel node is given them when it is made, a forwarded launch too. */
            size_t size = sizeof(CUlaunchAttribute) * call->num_attrs;
            long at = arena_take(list, size);
            if (at < 0)
                return false;
            memcpy(list->arena + at, call->attrs, size);
            r->num_attrs = (uint16_t)call->num_attrs;
            r->attrs_offset = (uint32_t)at;
            r->programmatic = launch_attrs_programmatic(call->attrs, call->num_attrs);
        }
        r->call.attrs = NULL;
    } else if (call->kind == CALL_COPY && src_memory == MEMORY_PAGEABLE) {
        /* The program may reuse pageable memory as soon as the call returns. */
        long offset = arena_take(list, call->bytes);
        if (offset < 0)
            return false;
        memcpy(list->arena + offset, call->src, call->bytes);
        r->staged = true;
        r->arena_offset = (uint32_t)offset;
    }
    list->count++;
    return true;
}

/* Fills argv with pointers to each parameter of a recorded launch. */
void record_kernel_argv(const struct record_list *list, const struct recorded *r, void **argv)
{
    for (unsigned i = 0; i < r->layout->count; i++)
        argv[i] = record_bytes(list, r) + r->layout->offset[i];
}

/*
 * Submits one recorded driver call to libcuda as the program made it; the
 * parameters come from the record (a launch's packed form as its
 * parameter array: the same block).  The stream is resolved (never NULL),
 * so each function's plain and _ptsz versions do the same.
 */
static CUresult forward_driver(const struct record_list *list, const struct recorded *r, cudaStream_t stream)
{
    const struct call *c = &r->call;
    int id = call_api_driver_id(c->api);
    void *real = libcuda_real(id);
    if (real == NULL)
        return CUDA_ERROR_NOT_FOUND;
    void *argv[KERNEL_PARAMS_MAX];
    CUdeviceptr dst = (CUdeviceptr)(uintptr_t)c->dst;
    const void *src = r->staged ? record_bytes(list, r) : c->src;
    switch (id) {
    case DRIVER_ID_cuLaunchKernel:
    case DRIVER_ID_cuLaunchKernel_ptsz:
        record_kernel_argv(list, r, argv);
        return ((__typeof__(cuLaunchKernel) *)real)((CUfunction)c->func, c->grid.x, c->grid.y, c->grid.z, c->block.x,
                                                     c->block.y, c->block.z, (unsigned)c->shared_mem, stream, argv,
                                                     NULL);
    case DRIVER_ID_cuLaunchKernelEx:
    case DRIVER_ID_cuLaunchKernelEx_ptsz: {
        record_kernel_argv(list, r, argv);
        CUlaunchConfig config = {.gridDimX = c->grid.x, .gridDimY = c->grid.y, .gridDimZ = c->grid.z,
                                 .blockDimX = c->block.x, .blockDimY = c->block.y, .blockDimZ = c->block.z,
                                 .sharedMemBytes = (unsigned)c->shared_mem, .hStream = stream,
                                 .attrs = r->num_attrs ? (CUlaunchAttribute *)(list->arena + r->attrs_offset) : NULL,
                                 .numAttrs = r->num_attrs};
        return ((__typeof__(cuLaunchKernelEx) *)real)(&config, (CUfunction)c->func, argv, NULL);
    }
    case DRIVER_ID_cuMemcpyAsync:
    case DRIVER_ID_cuMemcpyAsync_ptsz:
        return ((__typeof__(cuMemcpyAsync) *)real)(dst, (CUdeviceptr)(uintptr_t)src, c->bytes, stream);
    case DRIVER_ID_cuMemcpyHtoDAsync_v2:
    case DRIVER_ID_cuMemcpyHtoDAsync_v2_ptsz:
        return ((__typeof__(cuMemcpyHtoDAsync_v2) *)real)(dst, src, c->bytes, stream);
    case DRIVER_ID_cuMemcpyDtoHAsync_v2:
    case DRIVER_ID_cuMemcpyDtoHAsync_v2_ptsz:
        return ((__typeof__(cuMemcpyDtoHAsync_v2) *)real)(c->dst, (CUdeviceptr)(uintptr_t)src, c->bytes, stream);
    case DRIVER_ID_cuMemcpyDtoDAsync_v2:
    case DRIVER_ID_cuMemcpyDtoDAsync_v2_ptsz:
        return ((__typeof__(cuMemcpyDtoDAsync_v2) *)real)(dst, (CUdeviceptr)(uintptr_t)src, c->bytes, stream);
    case DRIVER_ID_cuMemsetD8Async:
    case DRIVER_ID_cuMemsetD8Async_ptsz:
        return ((__typeof__(cuMemsetD8Async) *)real)(dst, (unsigned char)c->value, c->bytes, stream);
    case DRIVER_ID_cuMemsetD16Async:
    case DRIVER_ID_cuMemsetD16Async_ptsz:
        return ((__typeof__(cuMemsetD16Async) *)real)(dst, (unsigned short)c->value, c->bytes / 2, stream);
    case DRIVER_ID_cuMemsetD32Async:
    case DRIVER_ID_cuMemsetD32Async_ptsz:
        return ((__typeof__(cuMemsetD32Async) *)real)(dst, (unsigned)c->value, c->bytes / 4, stream);
    case DRIVER_ID_cuLaunchHostFunc:
    case DRIVER_ID_cuLaunchHostFunc_ptsz:
        return ((__typeof__(cuLaunchHostFunc) *)real)(stream, c->host_fn, c->host_data);
    case DRIVER_ID_cuEventRecord:
    case DRIVER_ID_cuEventRecord_ptsz:
        return ((__typeof__(cuEventRecord) *)real)(c->event, stream);
    case DRIVER_ID_cuEventRecordWithFlags:
    case DRIVER_ID_cuEventRecordWithFlags_ptsz:
        return ((__typeof__(cuEventRecordWithFlags) *)real)(c->event, stream, c->flags);
    case DRIVER_ID_cuStreamWaitEvent:
    case DRIVER_ID_cuStreamWaitEvent_ptsz:
        return ((__typeof__(cuStreamWaitEvent) *)real)(stream, c->event, c->flags);
    default:
        return CUDA_ERROR_NOT_SUPPORTED;
    }
}

/* Submits one recorded call as the program made it, through its own door (see record.h); returns what it says. */
cudaError_t record_forward(const struct record_list *list, const struct recorded *r, cudaStream_t per_thread)
{
    const struct call *c = &r->call;
    cudaStream_t stream = c->stream == cudaStreamPerThread ? per_thread : c->stream;
    if (call_api_is_driver(c->api))
        return (cudaError_t)forward_driver(list, r, stream); /* a CUresult: the codes both doors share agree */
    void *argv[KERNEL_PARAMS_MAX];
    switch (c->api) {
    case HOOK_ID___cudaLaunchKernel:
    case HOOK_ID___cudaLaunchKernel_ptsz:
    case HOOK_ID_cudaLaunchKernel:
    case HOOK_ID_cudaLaunchKernel_ptsz:
        record_kernel_argv(list, r, argv);
        /* Every launch API takes the kernel the same way (a cudaKernel_t is accepted as a function). */
        return c->api == HOOK_ID___cudaLaunchKernel || c->api == HOOK_ID___cudaLaunchKernel_ptsz
                   ? REAL_CALL(__cudaLaunchKernel, (cudaKernel_t)c->func, c->grid, c->block, argv, c->shared_mem,
                               stream)
                   : REAL_CALL(cudaLaunchKernel, c->func, c->grid, c->block, argv, c->shared_mem, stream);
    case HOOK_ID_cudaLaunchKernelExC:
    case HOOK_ID_cudaLaunchKernelExC_ptsz: {
        record_kernel_argv(list, r, argv);
        cudaLaunchConfig_t config = {
            .gridDim = c->grid, .blockDim = c->block, .dynamicSmemBytes = c->shared_mem, .stream = stream,
            .attrs = r->num_attrs ? (cudaLaunchAttribute *)(list->arena + r->attrs_offset) : NULL,
            .numAttrs = r->num_attrs};
        return REAL_CALL(cudaLaunchKernelExC, &config, c->func, argv);
    }
    case HOOK_ID_cudaMemcpyAsync:
    case HOOK_ID_cudaMemcpyAsync_ptsz:
        return REAL_CALL(cudaMemcpyAsync, c->dst, r->staged ? record_bytes(list, r) : c->src, c->bytes, c->copy_kind,
                         stream);
    case HOOK_ID_cudaMemsetAsync:
    case HOOK_ID_cudaMemsetAsync_ptsz:
        return REAL_CALL(cudaMemsetAsync, c->dst, c->value, c->bytes, stream);
    case HOOK_ID_cudaLaunchHostFunc:
    case HOOK_ID_cudaLaunchHostFunc_ptsz:
        return REAL_CALL(cudaLaunchHostFunc, stream, c->host_fn, c->host_data);
    case HOOK_ID_cudaEventRecord:
    case HOOK_ID_cudaEventRecord_ptsz:
        return REAL_CALL(cudaEventRecord, c->event, stream);
    case HOOK_ID_cudaStreamWaitEvent:
    case HOOK_ID_cudaStreamWaitEvent_ptsz:
        return REAL_CALL(cudaStreamWaitEvent, stream, c->event, c->flags);
    default:
        return cudaErrorNotSupported;
    }
}

/* Submits every recorded call one by one, in order; returns the first runtime call's error (which also stays in the runtime) and the first driver call's in *driver_error. */
cudaError_t record_forward_all(const struct record_list *list, cudaStream_t per_thread, CUresult *driver_error)
{
    cudaError_t first = cudaSuccess;
    CUresult first_driver = CUDA_SUCCESS;
    for (unsigned i = 0; i < list->count; i++) {
        cudaError_t err = record_forward(list, &list->calls[i], per_thread);
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
