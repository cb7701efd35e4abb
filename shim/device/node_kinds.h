/* SPDX-License-Identifier: MIT */
/* A held call by its kind: one switch per operation on the kinds that can be graph nodes (call_kinds.def). */
#ifndef REPRISE_NODE_KINDS_H
#define REPRISE_NODE_KINDS_H

#include <string.h>

#include "libcuda.h"
#include "record.h"

/*
 * The kinds whose calls can be graph nodes (CALL_KINDS_NODE: LAUNCH, COPY,
 * SET, HOST_FUNC, EVENT_RECORD, EVENT_WAIT) are kept, compared, made into
 * nodes, patched and resubmitted each its own way: each operation is one
 * switch over the kind, here (the ones a replay runs for every node,
 * inline) and in node_kinds.c, whose default is the kinds that are no
 * node.  A new node kind is a case in each.  Also written here, by kind:
 * what a call keeps and its signature (record.h's record_append_any and
 * call_signature), the node itself (region_graph.c), the resubmission
 * (record.h's record_forward).  Every call goes through libcuda.
 */

/*
 * What one node of one instance was last given, to patch only what
 * changed.  The geometry (a launch's grid, block and dynamic shared memory,
 * a copy's or set's size) is no part of a call's signature: iterations
 * that differ there are one region, and the node takes the new one.  A
 * launch's parameter block is kept apart (region_graph.c's instances).
 */
struct node_state {
    void *dst;       /* COPY, SET */
    const void *src; /* COPY (not staged) */
    void *host_data; /* HOST_FUNC */
    int value;       /* SET */
    size_t bytes;    /* COPY, SET */
    dim3 grid, block; /* LAUNCH */
    size_t shared_mem; /* LAUNCH */
    CUfunction function; /* LAUNCH: another kernel of the same parameter layout may take the node */
};

/* What a node of recorded call r's kind holds for it (st's other fields are left as they are). */
static inline void node_state_of(const struct recorded *r, struct node_state *st)
{
    const struct call *c = &r->call;
    switch (c->kind) {
    case CALL_LAUNCH:
        st->grid = c->grid, st->block = c->block, st->shared_mem = c->shared_mem;
        st->function = r->layout->function;
        return;
    case CALL_COPY:
        st->dst = c->dst;
        st->src = r->staged ? NULL : c->src; /* a staged copy's source is the graph's staging buffer */
        st->bytes = c->bytes;
        return;
    case CALL_SET:
        st->dst = c->dst;
        st->value = c->value;
        st->bytes = c->bytes;
        return;
    case CALL_HOST_FUNC:
        st->host_data = c->host_data;
        return;
    default:
        return; /* event nodes: the event is part of the signature */
    }
}

/* Mixes one word into a hash. */
static inline uint64_t key_mix(uint64_t h, uint64_t w)
{
    return (h ^ w) * 0x9e3779b97f4a7c15ULL;
}

/* The hash of node i's kernel parameter block, eight bytes at a time. */
static inline uint64_t bytes_hash(unsigned i, const unsigned char *b, uint32_t n)
{
    uint64_t h = key_mix(i + 1, n);
    uint32_t k = 0;
    for (; k + 8 <= n; k += 8) {
        uint64_t w;
        memcpy(&w, b + k, 8);
        h = key_mix(h, w);
    }
    if (k + 4 <= n) {
        uint32_t w;
        memcpy(&w, b + k, 4);
        h = key_mix(h, w);
        k += 4;
    }
    for (; k < n; k++)
        h = key_mix(h, b[k]);
    return h ^ (h >> 29);
}

/* The hash of node i's other arguments (what node_state_differs compares; a staged copy's src is NULL). */
static inline uint64_t fields_hash(unsigned i, const void *dst, const void *src, int value, const void *host_data,
                                   size_t bytes)
{
    uint64_t h = key_mix(key_mix(key_mix(key_mix(key_mix(~(uint64_t)i, (uintptr_t)dst), (uintptr_t)src),
                                         (unsigned)value),
                                 (uintptr_t)host_data),
                         bytes);
    return h ^ (h >> 29);
}

/* A launch's geometry folded into a word for its node's hash (grid, block and shared memory). */
static inline uint64_t geometry_word(dim3 grid, dim3 block, size_t shared_mem)
{
    uint64_t a = ((uint64_t)grid.x << 32) | grid.y, b = ((uint64_t)grid.z << 32) | block.x;
    uint64_t c = ((uint64_t)block.y << 32) | block.z;
    return a ^ ((b << 21) | (b >> 43)) ^ ((c << 42) | (c >> 22)) ^ ((uint64_t)shared_mem * 0xff51afd7ed558ccdULL);
}

/*
 * The hash of node i, of kind, holding st and (a launch) the parameter
 * block args of size bytes: the same for an occurrence's call
 * (node_state_of) as for an instance that holds its arguments.
 */
static inline __attribute__((always_inline)) uint64_t node_state_hash(enum call_kind kind, unsigned i,
                                                                      const struct node_state *st,
                                                                      const unsigned char *args, uint32_t size)
{
    switch (kind) {
    case CALL_LAUNCH:
        return bytes_hash(i, args, size) ^
               key_mix(i + 1, geometry_word(st->grid, st->block, st->shared_mem) ^ (uintptr_t)st->function);
    case CALL_COPY: return fields_hash(i, st->dst, st->src, 0, NULL, st->bytes);
    case CALL_SET: return fields_hash(i, st->dst, NULL, st->value, NULL, st->bytes);
    case CALL_HOST_FUNC: return fields_hash(i, NULL, NULL, 0, st->host_data, 0);
    default: return 0; /* event nodes: the event is part of the signature */
    }
}

/*
 * Whether a kernel node's parameters differ from the recorded ones.  Eight
 * bytes at a time, inline: it runs for every node of every replay, and a
 * parameter block is a few words, for which a call to memcmp cost as much
 * as the comparison.
 */
static inline bool args_differ(const unsigned char *now, uint32_t size, const unsigned char *recorded)
{
    uint32_t i = 0;
    for (; i + 8 <= size; i += 8) {
        uint64_t a, b;
        memcpy(&a, now + i, 8);
        memcpy(&b, recorded + i, 8);
        if (a != b)
            return true;
    }
    if (i + 4 <= size) {
        uint32_t a, b;
        memcpy(&a, now + i, 4);
        memcpy(&b, recorded + i, 4);
        if (a != b)
            return true;
        i += 4;
    }
    for (; i < size; i++)
        if (now[i] != recorded[i])
            return true;
    return false;
}

/*
 * Whether a launch node's shape in an instance differs from a recorded
 * launch's: its geometry, or its kernel (another of the same parameter
 * layout, which the engine lets stand in: engine_call.c).
 */
static inline bool launch_shape_differs(const struct node_state *st, const struct recorded *r)
{
    const struct call *c = &r->call;
    return st->grid.x != c->grid.x || st->grid.y != c->grid.y || st->grid.z != c->grid.z ||
           st->block.x != c->block.x || st->block.y != c->block.y || st->block.z != c->block.z ||
           st->shared_mem != c->shared_mem || st->function != r->layout->function;
}

/*
 * Whether a node of kind holding st and (a launch) the parameter block args
 * of size bytes holds other arguments than recorded call r of list: whether
 * it needs a patch.
 */
static inline bool node_state_differs(enum call_kind kind, const struct node_state *st, const unsigned char *args,
                                      uint32_t size, const struct record_list *list, const struct recorded *r)
{
    const struct call *c = &r->call;
    switch (kind) {
    case CALL_LAUNCH:
        return args_differ(args, size, record_bytes(list, r)) || launch_shape_differs(st, r);
    case CALL_COPY:
        return st->dst != c->dst || (!r->staged && st->src != c->src) || st->bytes != c->bytes;
    case CALL_SET:
        return st->dst != c->dst || st->value != c->value || st->bytes != c->bytes;
    case CALL_HOST_FUNC:
        return st->host_data != c->host_data;
    default:
        return false; /* event nodes: the event is part of the signature */
    }
}

/* The copy parameters of a 1-D copy: unified addressing names both ends (device, pinned or staging memory). */
static inline CUDA_MEMCPY3D copy_params(void *dst, const void *src, size_t bytes)
{
    return (CUDA_MEMCPY3D){.srcMemoryType = CU_MEMORYTYPE_UNIFIED, .srcDevice = (CUdeviceptr)(uintptr_t)src,
                           .dstMemoryType = CU_MEMORYTYPE_UNIFIED, .dstDevice = (CUdeviceptr)(uintptr_t)dst,
                           .WidthInBytes = bytes, .Height = 1, .Depth = 1};
}

/*
 * Keeps call in record slot r of list (the slot's other fields reset
 * already): its kind's fields only (the whole struct call is three times
 * larger), and the bytes it points to that may change: a launch's
 * parameters and launch attributes, into the arena (previous_layout: the
 * slot's last kernel's, most likely this one's), and a copy's source when
 * it is pageable memory (src_memory), which the program may reuse as soon
 * as the call returns.  False if memory ran out or a kernel's parameters
 * cannot be read.
 */
bool node_keep(struct record_list *list, struct recorded *r, const struct call *call, enum host_memory src_memory,
               const struct kernel_params *previous_layout);

/*
 * Adds the node of recorded call r of list to graph, after deps, with
 * copies and sets in context; *node.  A copy's is added by
 * region_graph_build instead, once the staging buffer it may read is
 * allocated: CUDA_SUCCESS here, *node untouched.
 */
CUresult node_add(cudaGraph_t graph, CUcontext context, const struct record_list *list, const struct recorded *r,
                  const cudaGraphNode_t *deps, size_t ndeps, cudaGraphNode_t *node);

/*
 * Patches node of exec to recorded call r's arguments (a staged copy reads
 * staged_src, its place in the staging buffer); CUDA_SUCCESS or the error.
 * Patched, st holds them, and a launch's parameter block args (size
 * bytes) its parameters.  An event node never differs: CUDA_SUCCESS.
 */
CUresult node_patch(cudaGraphExec_t exec, cudaGraphNode_t node, CUcontext context, const struct record_list *list,
                    const struct recorded *r, const void *staged_src, struct node_state *st, unsigned char *args,
                    uint32_t size);

/* Submits recorded call r of list as the program made it, on stream, through its own door: record_forward's. */
cudaError_t node_resubmit(const struct record_list *list, const struct recorded *r, cudaStream_t stream);

#endif
