/* SPDX-License-Identifier: MIT */
/* A held call by its kind: one switch per operation on the kinds that can be graph nodes (call_kinds.def). */
#ifndef REPRISE_NODE_KINDS_H
#define REPRISE_NODE_KINDS_H

#include <string.h>

#include "libcuda.h"
#include "held_calls.h"

/*
 * The kinds whose calls can be graph nodes (CALL_KINDS_NODE: LAUNCH, COPY,
 * SET, HOST_FUNC, EVENT_RECORD, EVENT_WAIT) are kept, compared, made into
 * nodes, patched and resubmitted each its own way: each operation is one
 * switch over the kind, here for what a replay does for every node (its
 * state, hash, compare and patch: inline) and in node_kinds.c for the
 * rest, whose default is the kinds that are no node.  A new node kind is
 * a case in each.  Also written here, by kind:
 * what a call keeps and its signature (held_calls.h's held_append_any and
 * call_signature), the node itself (region_graph.c), the resubmission
 * (held_calls.h's held_forward).  Every call goes through libcuda.
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
    CUfunction function; /* LAUNCH: another kernel may take the node (kernel_node_takes) */
    uint32_t args_size;  /* LAUNCH: function's parameter block's size (the node keeps more room) */
    cudaEvent_t event;   /* EVENT_RECORD, EVENT_WAIT: the program's event (its record's or wait's position alone
                            is in the signature: which event it is rotates in a pool's programs) */
};

/* What a launch's kernel node holds for recorded launch r (its parameters apart): its geometry and kernel. */
static inline void launch_state_of(const struct held_call *r, struct node_state *st)
{
    const struct call *c = &r->call;
    st->grid = c->grid, st->block = c->block, st->shared_mem = c->shared_mem;
    st->function = r->layout->function;
    st->args_size = r->layout->total;
}

/* What a copy's node holds for recorded copy r: a staged copy's source is the graph's staging buffer. */
static inline void copy_state_of(const struct held_call *r, struct node_state *st)
{
    st->dst = r->call.dst;
    st->src = r->staged ? NULL : r->call.src;
    st->bytes = r->call.bytes;
}

/* What a set's node holds for recorded set r. */
static inline void set_state_of(const struct held_call *r, struct node_state *st)
{
    st->dst = r->call.dst;
    st->value = r->call.value;
    st->bytes = r->call.bytes;
}

/* What a node of recorded call r's kind holds for it (st's other fields are left as they are). */
static inline void node_state_of(const struct held_call *r, struct node_state *st)
{
    switch (r->call.kind) {
    case CALL_LAUNCH: launch_state_of(r, st); return;
    case CALL_COPY: copy_state_of(r, st); return;
    case CALL_SET: set_state_of(r, st); return;
    case CALL_HOST_FUNC: st->host_data = r->call.host_data; return;
    case CALL_EVENT_RECORD:
    case CALL_EVENT_WAIT: st->event = r->call.event; return;
    default: return;
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
 * block args (of st->args_size bytes): the same as node_call_hash's for the
 * recorded call that it holds the arguments of.
 */
static inline __attribute__((always_inline)) uint64_t node_state_hash(enum call_kind kind, unsigned i,
                                                                      const struct node_state *st,
                                                                      const unsigned char *args)
{
    switch (kind) {
    case CALL_LAUNCH:
        return bytes_hash(i, args, st->args_size) ^
               key_mix(i + 1, geometry_word(st->grid, st->block, st->shared_mem) ^ (uintptr_t)st->function);
    case CALL_COPY: return fields_hash(i, st->dst, st->src, 0, NULL, st->bytes);
    case CALL_SET: return fields_hash(i, st->dst, NULL, st->value, NULL, st->bytes);
    case CALL_HOST_FUNC: return fields_hash(i, NULL, NULL, 0, st->host_data, 0);
    default: return 0; /* event nodes: not hashed (see node_state_differs) */
    }
}

/*
 * The hash of node i, of kind, for recorded call r of list:
 * node_state_hash's for what the node holds then (node_state_of), hashed
 * where the call has it, with no state built on a replay's way.
 */
static inline __attribute__((always_inline)) uint64_t node_call_hash(enum call_kind kind, unsigned i,
                                                                     const struct held_list *list,
                                                                     const struct held_call *r)
{
    const struct call *c = &r->call;
    switch (kind) {
    case CALL_LAUNCH:
        return bytes_hash(i, held_bytes(list, r), r->layout->total) ^
               key_mix(i + 1, geometry_word(c->grid, c->block, c->shared_mem) ^ (uintptr_t)r->layout->function);
    case CALL_COPY: return fields_hash(i, c->dst, r->staged ? NULL : c->src, 0, NULL, c->bytes);
    case CALL_SET: return fields_hash(i, c->dst, NULL, c->value, NULL, c->bytes);
    case CALL_HOST_FUNC: return fields_hash(i, NULL, NULL, 0, c->host_data, 0);
    default: return 0;
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
 * launch's: its geometry, or its kernel (another the node may run, which
 * the engine lets stand in: engine_call.c).
 */
static inline bool launch_shape_differs(const struct node_state *st, const struct held_call *r)
{
    const struct call *c = &r->call;
    return st->grid.x != c->grid.x || st->grid.y != c->grid.y || st->grid.z != c->grid.z ||
           st->block.x != c->block.x || st->block.y != c->block.y || st->block.z != c->block.z ||
           st->shared_mem != c->shared_mem || st->function != r->layout->function;
}

/*
 * Whether a node of kind holding st and (a launch) the parameter block args
 * holds other arguments than recorded call r of list: whether it needs a
 * patch.  A launch's blocks are compared only when its kernel is the
 * node's, and so its layout.
 */
static inline bool node_state_differs(enum call_kind kind, const struct node_state *st, const unsigned char *args,
                                      const struct held_list *list, const struct held_call *r)
{
    const struct call *c = &r->call;
    switch (kind) {
    case CALL_LAUNCH:
        return launch_shape_differs(st, r) || args_differ(args, r->layout->total, held_bytes(list, r));
    case CALL_COPY:
        return st->dst != c->dst || (!r->staged && st->src != c->src) || st->bytes != c->bytes;
    case CALL_SET:
        return st->dst != c->dst || st->value != c->value || st->bytes != c->bytes;
    case CALL_HOST_FUNC:
        return st->host_data != c->host_data;
    case CALL_EVENT_RECORD:
    case CALL_EVENT_WAIT:
        /* Compared and patched, but no part of the argument set's key (node_state_hash): a pool's events rotate on
           their own, and would multiply the sets of a region whose buffers rotate too. */
        return st->event != c->event;
    default:
        return false;
    }
}

/* The copy parameters of a 1-D copy: unified addressing names both ends (device, pinned or staging memory). */
static inline CUDA_MEMCPY3D copy_params(void *dst, const void *src, size_t bytes)
{
    return (CUDA_MEMCPY3D){.srcMemoryType = CU_MEMORYTYPE_UNIFIED, .srcDevice = (CUdeviceptr)(uintptr_t)src,
                           .dstMemoryType = CU_MEMORYTYPE_UNIFIED, .dstDevice = (CUdeviceptr)(uintptr_t)dst,
                           .WidthInBytes = bytes, .Height = 1, .Depth = 1};
}

/* A recorded set's memset parameters: a byte memset for the runtime's, 1, 2 or 4-byte elements for the driver's. */
static inline CUDA_MEMSET_NODE_PARAMS memset_params(const struct call *c)
{
    unsigned size = c->element_size ? c->element_size : 1;
    unsigned value = size == 1 ? (unsigned char)c->value : size == 2 ? (unsigned short)c->value : (unsigned)c->value;
    return (CUDA_MEMSET_NODE_PARAMS){.dst = (CUdeviceptr)(uintptr_t)c->dst, .pitch = 0, .value = value,
                                     .elementSize = size, .width = c->bytes / size, .height = 1};
}

/* A kernel node's parameters for a recorded launch, its parameters in argv. */
static inline CUDA_KERNEL_NODE_PARAMS kernel_params_for(const struct held_call *r, void **argv)
{
    const struct call *c = &r->call;
    return (CUDA_KERNEL_NODE_PARAMS){.func = r->layout->function, .gridDimX = c->grid.x, .gridDimY = c->grid.y,
                                     .gridDimZ = c->grid.z, .blockDimX = c->block.x, .blockDimY = c->block.y,
                                     .blockDimZ = c->block.z, .sharedMemBytes = (unsigned)c->shared_mem,
                                     .kernelParams = argv};
}

/*
 * Patches node of exec to recorded call r's arguments (a staged copy reads
 * staged_src, its place in the staging buffer); CUDA_SUCCESS or the error.
 * Patched, st holds them (a launch's parameters are the caller's to copy:
 * region_graph.c keeps them).  An event node takes the call's event.
 */
static inline __attribute__((always_inline)) CUresult
node_patch(cudaGraphExec_t exec, cudaGraphNode_t node, CUcontext context, const struct held_list *list,
           const struct held_call *r, const void *staged_src, struct node_state *st)
{
    const struct call *c = &r->call;
    CUresult err;
    switch (c->kind) {
    case CALL_LAUNCH: {
        void *argv[KERNEL_PARAMS_MAX];
        held_kernel_argv(list, r, argv);
        CUDA_KERNEL_NODE_PARAMS p = kernel_params_for(r, argv);
        err = DEVICE_CALL(cuGraphExecKernelNodeSetParams_v2, exec, node, &p);
        if (err == CUDA_SUCCESS)
            launch_state_of(r, st);
        return err;
    }
    case CALL_COPY: {
        CUDA_MEMCPY3D p = copy_params(c->dst, r->staged ? staged_src : c->src, c->bytes);
        err = DEVICE_CALL(cuGraphExecMemcpyNodeSetParams, exec, node, &p, context);
        if (err == CUDA_SUCCESS)
            copy_state_of(r, st);
        return err;
    }
    case CALL_SET: {
        CUDA_MEMSET_NODE_PARAMS p = memset_params(c);
        err = DEVICE_CALL(cuGraphExecMemsetNodeSetParams, exec, node, &p, context);
        if (err == CUDA_SUCCESS)
            set_state_of(r, st);
        return err;
    }
    case CALL_HOST_FUNC: {
        CUDA_HOST_NODE_PARAMS p = {.fn = c->host_fn, .userData = c->host_data};
        err = DEVICE_CALL(cuGraphExecHostNodeSetParams, exec, node, &p);
        if (err == CUDA_SUCCESS)
            st->host_data = c->host_data;
        return err;
    }
    case CALL_EVENT_RECORD:
    case CALL_EVENT_WAIT:
        err = c->kind == CALL_EVENT_RECORD ? DEVICE_CALL(cuGraphExecEventRecordNodeSetEvent, exec, node, c->event)
                                           : DEVICE_CALL(cuGraphExecEventWaitNodeSetEvent, exec, node, c->event);
        if (err == CUDA_SUCCESS)
            st->event = c->event;
        return err;
    default:
        return CUDA_SUCCESS;
    }
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
bool node_keep(struct held_list *list, struct held_call *r, const struct call *call, enum host_memory src_memory,
               const struct kernel_params *previous_layout);

/*
 * Adds the node of recorded call r of list to graph, after deps, with
 * copies and sets in context; *node.  A copy's is added by
 * region_graph_build instead, once the staging buffer it may read is
 * allocated: CUDA_SUCCESS here, *node untouched.  A kernel node keeps the
 * launch's attributes that a node takes, and runs at its launch's
 * priority attribute, else at stream_priority (its stream's, as stream
 * capture gives a node its stream's: the graph is instantiated to use its
 * nodes' priorities, see docs/design.md, "Launch attributes").
 */
CUresult node_add(cudaGraph_t graph, CUcontext context, const struct held_list *list, const struct held_call *r,
                  const cudaGraphNode_t *deps, size_t ndeps, int stream_priority, cudaGraphNode_t *node);

/* Submits recorded call r of list as the program made it, on stream, through its own door: held_forward's. */
cudaError_t node_resubmit(const struct held_list *list, const struct held_call *r, cudaStream_t stream);

#endif
