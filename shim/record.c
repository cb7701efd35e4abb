/* Calls held back or recorded by the engine: their descriptions and argument bytes. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "runtime.h"

/* Empties the list, keeping its memory. */
void record_reset(struct record_list *list)
{
    list->count = 0;
    list->arena_used = 0;
}

/* Frees the list's memory. */
void record_free(struct record_list *list)
{
    free(list->calls);
    free(list->arena);
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

/* Reserves n bytes of arena, 16-byte aligned; returns their offset or -1. */
static inline long arena_take(struct record_list *list, size_t n)
{
    size_t offset = align16(list->arena_used);
    if (__builtin_expect(offset + n > list->arena_capacity, 0) && !arena_grow(list, offset + n))
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

/* Describes a call's shape for matching: its signature (for copies, where source and destination live). */
void call_signature(const struct call *call, enum host_memory src_memory, enum host_memory dst_memory,
                    struct call_sig *sig)
{
    *sig = (struct call_sig){.api = (uint32_t)call->api, .stream = (uint64_t)(uintptr_t)call->stream};
    switch (call->kind) {
    case CALL_LAUNCH:
        sig->target = (uint64_t)(uintptr_t)call->func;
        sig->grid[0] = call->grid.x, sig->grid[1] = call->grid.y, sig->grid[2] = call->grid.z;
        sig->block[0] = call->block.x, sig->block[1] = call->block.y, sig->block[2] = call->block.z;
        sig->shared_mem = (uint32_t)call->shared_mem;
        break;
    case CALL_COPY:
        sig->bytes = call->bytes;
        /* A graph's copy node cannot move between host and device memory: where both ends live is shape. */
        sig->copy_kind = (uint32_t)call->copy_kind | ((uint32_t)src_memory << 8) | ((uint32_t)dst_memory << 12);
        break;
    case CALL_SET:
        sig->bytes = call->bytes;
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

/* Copies the fields of a call that its kind fills (shim/call.h): the whole struct is three times larger. */
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
        break;
    case CALL_HOST_FUNC:
        to->host_fn = from->host_fn;
        to->host_data = from->host_data;
        break;
    case CALL_EVENT_RECORD:
        to->event = from->event;
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
    r->arena_offset = 0;
    if (call->kind == CALL_LAUNCH) {
        const struct kernel_params *layout = previous_layout && previous_layout->func == call->func
                                                 ? previous_layout
                                                 : kernel_params_of(call->func);
        if (layout == NULL)
            return false;
        long offset = arena_take(list, layout->total);
        if (offset < 0)
            return false;
        record_copy_params(list->arena + offset, layout, call->args);
        r->layout = layout;
        r->arena_offset = (uint32_t)offset;
        r->call.args = NULL;
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

/* Submits one recorded call to the runtime as the program made it (see record.h); returns what the runtime says. */
cudaError_t record_forward(const struct record_list *list, const struct recorded *r, cudaStream_t per_thread)
{
    const struct call *c = &r->call;
    cudaStream_t stream = c->stream == cudaStreamPerThread ? per_thread : c->stream;
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

/* Submits every recorded call one by one, in order; errors stay in the runtime, as eager ones would, and the first is returned. */
cudaError_t record_forward_all(const struct record_list *list, cudaStream_t per_thread)
{
    cudaError_t first = cudaSuccess;
    for (unsigned i = 0; i < list->count; i++) {
        cudaError_t err = record_forward(list, &list->calls[i], per_thread);
        if (first == cudaSuccess)
            first = err;
    }
    return first;
}
