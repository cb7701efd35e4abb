/* SPDX-License-Identifier: MIT */
/* Calls held back or recorded by the engine: their descriptions and argument bytes. */
#ifndef REPRISE_HELD_CALLS_H
#define REPRISE_HELD_CALLS_H

#include <stdbool.h>
#include <stdint.h>

#include "call.h"
#include "kernel_params.h"
#include "signature.h"

/* Rounds n up to a multiple of 16: the arena's blocks and the staging buffers' copies are laid out so. */
static inline size_t align16(size_t n)
{
    return (n + 15) & ~(size_t)15;
}

/* Where a host pointer's memory lives, as far as copies care. */
enum host_memory { MEMORY_DEVICE, MEMORY_PINNED, MEMORY_PAGEABLE };

/* One call, kept with copies of everything it pointed to that may change. */
struct held_call {
    struct call call;                   /* its kind's fields only; args and, for staged copies, src are stale */
    const struct kernel_params *layout; /* LAUNCH: where each parameter is in the arena block */
    uint32_t arena_offset;              /* LAUNCH: packed parameters; staged COPY: the host bytes */
    bool staged;                        /* COPY from pageable memory: the bytes were taken at call time */
    bool programmatic;                  /* LAUNCH: a programmatic dependent launch (launch_attributes.h): its graph
                                           edge from its stream's previous kernel node is programmatic */
    uint16_t num_attrs;                 /* LAUNCH: its launch attributes, kept in the arena at attrs_offset */
    uint32_t attrs_offset;
};

/* A growing list of recorded calls and the bytes they own; reused, so steady state allocates nothing. */
struct held_list {
    struct held_call *calls;
    unsigned count, capacity;
    unsigned char *arena;
    size_t arena_used, arena_capacity;
    /*
     * The positions of the calls whose arguments differ from those of
     * differ_graph's instance launched last, each call compared with its
     * node as it was recorded; NULL: not compared (the graph's launch
     * compares every node then).  Emptied by held_reset.
     */
    const void *differ_graph;
    unsigned *differ;
    unsigned differ_count, differ_capacity;
};

/* How a launch made through api names its kernel (a host stub, a cudaKernel_t, a driver handle). */
enum kernel_handle kernel_handle_of(enum hook_id api);

/* Empties the list, keeping its memory. */
void held_reset(struct held_list *list);

/* Frees the list's memory. */
void held_free(struct held_list *list);

/* Makes room for n positions in the list of calls that differ; false if memory ran out. */
bool held_differ_reserve(struct held_list *list, unsigned n);

/*
 * Reserves n bytes of the list's arena, 16-byte aligned; returns their
 * offset, or -1 if memory ran out.  The arena exists once anything is
 * taken, even 0 bytes (a kernel without parameters): a block's address
 * goes to memcpy, which must not get NULL.
 */
long held_arena_take(struct held_list *list, size_t n);

/*
 * Appends any call (held_append's slow path); false if memory ran out or
 * a kernel's parameters cannot be read.  What each kind keeps is
 * node_kinds.c's (node_keep).
 */
bool held_append_any(struct held_list *list, const struct call *call, enum host_memory src_memory);

/*
 * Copies a launch's parameters into block, each at its offset in the
 * kernel's parameter layout, and zeroes the gaps between them: the block
 * is compared and hashed whole (a graph's instance, its argument set's
 * key), and the arena's bytes there are another call's.  The fast path
 * writes into a block made here, the parameters only.
 */
static inline void held_copy_params(unsigned char *block, const struct kernel_params *layout, void *const *args)
{
    if (layout->gapped)
        __builtin_memset(block, 0, layout->total);
    for (unsigned i = 0; i < layout->count; i++) {
        /* Most parameters are pointers or 4-byte scalars: copy those without a call. */
        if (layout->size[i] == 8)
            __builtin_memcpy(block + layout->offset[i], args[i], 8);
        else if (layout->size[i] == 4)
            __builtin_memcpy(block + layout->offset[i], args[i], 4);
        else
            __builtin_memcpy(block + layout->offset[i], args[i], layout->size[i]);
    }
}

/*
 * Whether recorded launch c has this launch's shape but for its stream (its
 * function, geometry, shared memory and api: everything but the arguments),
 * in the order of struct call's fields, as few words as they fit.
 */
static inline bool held_is_launch(const struct call *c, enum hook_id api, const void *func, dim3 grid, dim3 block,
                                    size_t shared_mem)
{
    uint64_t grid_xy, block_xy, want_grid_xy, want_block_xy;
    __builtin_memcpy(&grid_xy, &grid, 8);
    __builtin_memcpy(&block_xy, &block, 8);
    __builtin_memcpy(&want_grid_xy, &c->grid, 8);
    __builtin_memcpy(&want_block_xy, &c->block, 8);
    return c->api == api && c->func == func && want_grid_xy == grid_xy && c->grid.z == grid.z &&
           want_block_xy == block_xy && c->block.z == block.z && c->shared_mem == shared_mem;
}

/*
 * Appends a call; false if memory ran out or a kernel's parameters cannot be
 * read (the call must then pass through).  Inline for the common case, a
 * launch of the kernel the same slot held last time, with room to spare.
 */
static inline bool held_append(struct held_list *list, const struct call *call, enum host_memory src_memory)
{
    struct held_call *r = &list->calls[list->count];
    size_t offset = align16(list->arena_used);
    if (call->kind != CALL_LAUNCH || list->count == list->capacity || r->layout == NULL ||
        r->layout->func != call->func || call->args == NULL || call->num_attrs != 0 ||
        offset + r->layout->total > list->arena_capacity)
        return held_append_any(list, call, src_memory);
    const struct kernel_params *layout = r->layout;
    held_copy_params(list->arena + offset, layout, call->args);
    list->arena_used = offset + layout->total;
    r->call.api = call->api;
    r->call.kind = CALL_LAUNCH;
    r->call.stream = call->stream;
    r->call.func = call->func;
    r->call.grid = call->grid;
    r->call.block = call->block;
    r->call.shared_mem = call->shared_mem;
    r->call.args = NULL;
    r->arena_offset = (uint32_t)offset;
    r->staged = false;
    r->programmatic = false;
    r->num_attrs = 0;
    list->count++;
    return true;
}

/* The bytes a recorded call owns in the arena. */
static inline unsigned char *held_bytes(const struct held_list *list, const struct held_call *r)
{
    return list->arena + r->arena_offset;
}

/* Fills argv with pointers to each parameter of a recorded launch. */
void held_kernel_argv(const struct held_list *list, const struct held_call *r, void **argv);

/*
 * Submits one recorded call as the program made it, through the door it
 * came by (the runtime, or libcuda for a driver call: node_kinds.c's
 * node_resubmit); returns what that says (a driver call's CUresult as the cudaError_t of the same value).
 * Calls on the per-thread default stream go to per_thread:
 * cudaStreamPerThread on the thread that made them, and cudaStreamLegacy
 * on another thread, which cannot name that stream.  The
 * legacy stream waits for all of the owner's earlier work on it, and the
 * owner's later work waits for the legacy stream: nothing is reordered,
 * at the price of waiting for other blocking streams too.
 */
cudaError_t held_forward(const struct held_list *list, const struct held_call *r, cudaStream_t per_thread);

/*
 * Submits every recorded call one by one, in order (per_thread as above);
 * returns the first error of a runtime call, which also stays in the
 * runtime as an eager one would, and puts the first of a driver call in
 * *driver_error (NULL: not wanted): the driver keeps none for later.
 */
cudaError_t held_forward_all(const struct held_list *list, cudaStream_t per_thread, CUresult *driver_error);

/* What a call's signature names as its target: call.h's call_target, but for a launch its kernel's twin. */
uint64_t call_sig_target(const struct call *call);

/* Describes a call's shape for matching: its signature (for copies, where both ends live; node_kinds.c). */
void call_signature(const struct call *call, enum host_memory src_memory, enum host_memory dst_memory,
                    struct call_sig *sig);

/* The staging a sequence's copies from pageable memory take at least: 16 bytes each (a signature has no size). */
size_t sigs_pageable_bytes(const struct call_sig *sigs, unsigned count);
/* A launch's attributes as a signature's flags: 0 for none, else a hash of every id and the value bytes it uses. */
uint32_t launch_attrs_hash(const struct call *launch);

/* Whether a launch's signature is sig: sig_equal(call_signature(launch), sig) without building one. */
static inline bool launch_matches(const struct call *launch, const struct call_sig *sig)
{
    /* The same api means sig is a launch's too, whose geometry, bytes and copy_kind are zero. */
    return sig->api == (uint32_t)launch->api && sig->stream == (uint64_t)(uintptr_t)launch->stream &&
           (sig->target == (uint64_t)(uintptr_t)launch->func ||
            sig->target == kernel_twin_of(launch->func, kernel_handle_of(launch->api))) &&
           sig->flags == (launch->num_attrs ? launch_attrs_hash(launch) : 0);
}

#endif
