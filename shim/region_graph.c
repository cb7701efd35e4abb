/* A region's executable graph: built from one recorded occurrence, patched and launched for the next ones. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errors.h"
#include "libcuda.h"
#include "log.h"
#include "region_graph.h"
#include "stream_facts.h"
#include "stream_order.h"

/*
 * Everything here goes through libcuda (shim/libcuda.h): a program built
 * with the static runtime has no runtime the shim could call, and a
 * driver call leaves the runtime's last error alone.  A recorded call is
 * the same node whichever door it came by; a runtime launch's kernel is
 * its driver function (kernel_params.h).  The runtime's handles are the
 * driver's (cudaStream_t is CUstream, cudaGraph_t CUgraph, ...).
 */

#define GRAPH_STREAMS_MAX 16

/* What one node was last given, to patch only what changed. */
struct graph_node {
    cudaGraphNode_t node;
    enum call_kind kind;
    unsigned char *args;   /* LAUNCH: the parameter block the node holds now */
    uint32_t args_size;
    void *dst;             /* COPY, SET */
    const void *src;       /* COPY (not staged) */
    int value;             /* SET */
    unsigned element_size; /* SET */
    void *host_data;       /* HOST_FUNC */
    size_t staging_offset; /* staged COPY: where its bytes go in the staging buffer */
};

struct region_graph {
    CUcontext context;                /* current when it was built: its copies and sets run there */
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    unsigned count;
    struct graph_node *nodes;
    unsigned stream_count;            /* streams[0] is the one the graph is launched on */
    cudaStream_t streams[GRAPH_STREAMS_MAX];
    cudaEvent_t before[GRAPH_STREAMS_MAX]; /* other streams' earlier work, joined before the launch */
    cudaEvent_t after;                     /* the launch, joined by the other streams after it */
    unsigned char *staging;                /* pinned copy sources for pageable copies */
    size_t staging_size;
    cudaEvent_t staging_free;              /* recorded after each launch: the staging buffer's readers are done */
};

/* Formats the reason a graph could not be built. */
static void __attribute__((format(printf, 3, 4))) say_why(char *why, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
}

/* The index of stream s in g, adding it if new; -1 if there are too many. */
static int stream_index(struct region_graph *g, cudaStream_t s)
{
    for (unsigned i = 0; i < g->stream_count; i++)
        if (g->streams[i] == s)
            return (int)i;
    if (g->stream_count == GRAPH_STREAMS_MAX)
        return -1;
    g->streams[g->stream_count] = s;
    return (int)g->stream_count++;
}

/* The memset parameters of a recorded set: a byte memset for the runtime's, 1, 2 or 4-byte elements for the driver's. */
static CUDA_MEMSET_NODE_PARAMS memset_params(const struct call *c)
{
    unsigned size = c->element_size ? c->element_size : 1;
    unsigned value = size == 1 ? (unsigned char)c->value : size == 2 ? (unsigned short)c->value : (unsigned)c->value;
    return (CUDA_MEMSET_NODE_PARAMS){.dst = (CUdeviceptr)(uintptr_t)c->dst, .pitch = 0, .value = value,
                                     .elementSize = size, .width = c->bytes / size, .height = 1};
}

/* The copy parameters of a 1-D copy: unified addressing names both ends (device, pinned or staging memory). */
static CUDA_MEMCPY3D copy_params(void *dst, const void *src, size_t bytes)
{
    return (CUDA_MEMCPY3D){.srcMemoryType = CU_MEMORYTYPE_UNIFIED, .srcDevice = (CUdeviceptr)(uintptr_t)src,
                           .dstMemoryType = CU_MEMORYTYPE_UNIFIED, .dstDevice = (CUdeviceptr)(uintptr_t)dst,
                           .WidthInBytes = bytes, .Height = 1, .Depth = 1};
}

/* A kernel node's parameters for a recorded launch, its parameters in argv. */
static CUDA_KERNEL_NODE_PARAMS kernel_params_for(const struct recorded *r, void **argv)
{
    const struct call *c = &r->call;
    return (CUDA_KERNEL_NODE_PARAMS){.func = r->layout->function, .gridDimX = c->grid.x, .gridDimY = c->grid.y,
                                     .gridDimZ = c->grid.z, .blockDimX = c->block.x, .blockDimY = c->block.y,
                                     .blockDimZ = c->block.z, .sharedMemBytes = (unsigned)c->shared_mem,
                                     .kernelParams = argv};
}

/* Adds the node for one recorded call, after deps; fills gn. */
static CUresult add_node(struct region_graph *g, const struct record_list *list, const struct recorded *r,
                         const cudaGraphNode_t *deps, size_t ndeps, struct graph_node *gn, size_t *staging_used)
{
    const struct call *c = &r->call;
    gn->kind = c->kind;
    switch (c->kind) {
    case CALL_LAUNCH: {
        void *argv[KERNEL_PARAMS_MAX];
        record_kernel_argv(list, r, argv);
        CUDA_KERNEL_NODE_PARAMS p = kernel_params_for(r, argv);
        gn->args_size = r->layout->total;
        gn->args = malloc(gn->args_size ? gn->args_size : 1);
        if (gn->args == NULL)
            return CUDA_ERROR_OUT_OF_MEMORY;
        memcpy(gn->args, record_bytes(list, r), gn->args_size);
        CUresult err = DEVICE_CALL(cuGraphAddKernelNode_v2, &gn->node, g->graph, deps, ndeps, &p);
        /* Its launch attributes (cuLaunchKernelEx's, each one a kernel node keeps): part of its signature. */
        const CUlaunchAttribute *attrs = (const CUlaunchAttribute *)(list->arena + r->attrs_offset);
        for (unsigned k = 0; err == CUDA_SUCCESS && k < r->num_attrs; k++)
            if (attrs[k].id != CU_LAUNCH_ATTRIBUTE_IGNORE)
                err = DEVICE_CALL(cuGraphKernelNodeSetAttribute, gn->node, attrs[k].id, &attrs[k].value);
        return err;
    }
    case CALL_COPY:
        gn->dst = c->dst;
        if (r->staged) {
            gn->staging_offset = *staging_used;
            *staging_used += align16(c->bytes);
            gn->src = NULL; /* set once the staging buffer exists */
        } else {
            gn->src = c->src;
        }
        return CUDA_SUCCESS; /* added in a second pass, once staging is allocated */
    case CALL_SET: {
        CUDA_MEMSET_NODE_PARAMS p = memset_params(c);
        gn->dst = c->dst;
        gn->value = c->value;
        gn->element_size = c->element_size;
        return DEVICE_CALL(cuGraphAddMemsetNode, &gn->node, g->graph, deps, ndeps, &p, g->context);
    }
    case CALL_HOST_FUNC: {
        CUDA_HOST_NODE_PARAMS p = {.fn = c->host_fn, .userData = c->host_data};
        gn->host_data = c->host_data;
        return DEVICE_CALL(cuGraphAddHostNode, &gn->node, g->graph, deps, ndeps, &p);
    }
    case CALL_EVENT_RECORD:
        return DEVICE_CALL(cuGraphAddEventRecordNode, &gn->node, g->graph, deps, ndeps, c->event);
    case CALL_EVENT_WAIT:
        return DEVICE_CALL(cuGraphAddEventWaitNode, &gn->node, g->graph, deps, ndeps, c->event);
    default:
        return CUDA_ERROR_NOT_SUPPORTED;
    }
}

/*
 * Where each stream's next node goes while a graph is built: after the
 * stream's last node and after the nodes its event waits handed on, and,
 * across the legacy stream's implicit barrier, after the other side's.
 */
struct build_order {
    cudaGraphNode_t tail[GRAPH_STREAMS_MAX]; /* each stream's last node */
    bool blocking[GRAPH_STREAMS_MAX];        /* it synchronises with the legacy stream */
    int legacy;                              /* the legacy stream's index, or -1 */
    cudaGraphNode_t *extra;                  /* nodes a stream's next node must also follow (event waits) */
    unsigned *extra_stream;
    unsigned extra_count;
    size_t extra_capacity;
};

/* Adds node to deps unless it is NULL or there already: the runtime refuses duplicate dependencies. */
static void add_dependency(cudaGraphNode_t *deps, size_t *ndeps, cudaGraphNode_t node)
{
    if (node == NULL)
        return;
    for (size_t d = 0; d < *ndeps; d++)
        if (deps[d] == node)
            return;
    deps[(*ndeps)++] = node;
}

/* Adds what stream si's next node must follow; consume takes its event-wait nodes (its own next node). */
static void add_position(struct build_order *o, unsigned si, bool consume, cudaGraphNode_t *deps, size_t *ndeps)
{
    add_dependency(deps, ndeps, o->tail[si]);
    for (unsigned k = 0; k < o->extra_count; k++)
        if (o->extra_stream[k] == si && o->extra[k] != NULL) {
            add_dependency(deps, ndeps, o->extra[k]);
            if (consume)
                o->extra[k] = NULL;
        }
}

/*
 * Adds the legacy stream's implicit barrier: a node on it follows every
 * blocking stream's work so far, and a node on a blocking stream follows
 * the legacy stream's.
 */
static void add_legacy_barrier(struct build_order *o, unsigned stream_count, unsigned si, cudaGraphNode_t *deps,
                               size_t *ndeps)
{
    if (o->legacy < 0)
        return;
    if (si == (unsigned)o->legacy) {
        for (unsigned j = 0; j < stream_count; j++)
            if (j != si && o->blocking[j])
                add_position(o, j, false, deps, ndeps);
    } else if (o->blocking[si]) {
        add_position(o, (unsigned)o->legacy, false, deps, ndeps);
    }
}

/* Numbers the region's streams (the legacy stream first: the graph is launched there); false if too many. */
static bool index_streams(struct region_graph *g, const struct record_list *list, struct build_order *o)
{
    o->legacy = -1;
    for (unsigned i = 0; i < list->count && o->legacy < 0; i++)
        if (list->calls[i].call.stream == cudaStreamLegacy)
            o->legacy = stream_index(g, cudaStreamLegacy);
    for (unsigned i = 0; i < list->count; i++)
        if (stream_index(g, list->calls[i].call.stream) < 0)
            return false;
    for (unsigned i = 0; o->legacy >= 0 && i < g->stream_count; i++) {
        /* It waits for, and is waited for by, the legacy stream (only add_legacy_barrier asks). */
        enum stream_kind kind = stream_kind_of(g->streams[i]);
        o->blocking[i] = kind == STREAM_KIND_BLOCKING || kind == STREAM_KIND_PER_THREAD;
    }
    return true;
}

/* Builds and instantiates a graph from a recorded occurrence; NULL with a reason if it cannot. */
struct region_graph *region_graph_build(const struct record_list *list, char *why, size_t why_len,
                                        bool *unsupported)
{
    *unsupported = false;
    struct region_graph *g = calloc(1, sizeof *g);
    if (g == NULL || (g->nodes = calloc(list->count ? list->count : 1, sizeof *g->nodes)) == NULL) {
        free(g);
        say_why(why, why_len, "out of memory");
        return NULL;
    }
    g->count = list->count;
    struct build_order o = {0};
    if (!index_streams(g, list, &o)) {
        say_why(why, why_len, "it uses more than %d streams", GRAPH_STREAMS_MAX);
        *unsupported = true;
        free(g->nodes);
        free(g);
        return NULL;
    }

    CUresult err = DEVICE_CALL(cuCtxGetCurrent, &g->context);
    if (err == CUDA_SUCCESS)
        err = DEVICE_CALL(cuGraphCreate, &g->graph, 0);
    /* Each wait hands on at most the dependencies its stream had gathered: bounded by all nodes. */
    o.extra_capacity = (size_t)list->count * (GRAPH_STREAMS_MAX + 2) + 4;
    o.extra = calloc(o.extra_capacity, sizeof *o.extra);
    o.extra_stream = calloc(o.extra_capacity, sizeof *o.extra_stream);
    cudaGraphNode_t *deps = calloc(o.extra_capacity + GRAPH_STREAMS_MAX + 2, sizeof *deps);
    size_t staging_used = 0;
    if (o.extra == NULL || o.extra_stream == NULL || deps == NULL)
        err = CUDA_ERROR_OUT_OF_MEMORY;

    /* Copies need the staging buffer's address: size it first. */
    for (unsigned i = 0; err == CUDA_SUCCESS && i < list->count; i++)
        if (list->calls[i].staged)
            g->staging_size += align16(list->calls[i].call.bytes);
    if (err == CUDA_SUCCESS && g->staging_size) {
        err = DEVICE_CALL(cuMemAllocHost_v2, (void **)&g->staging, g->staging_size);
        if (err == CUDA_SUCCESS)
            err = private_event(&g->staging_free);
    }

    /* A kernel's function belongs to the context it was found in (the first that launched it). */
    for (unsigned i = 0; err == CUDA_SUCCESS && i < list->count; i++)
        if (list->calls[i].call.kind == CALL_LAUNCH && list->calls[i].layout->context != g->context) {
            say_why(why, why_len, "it launches a kernel in a second context (another device), where the shim "
                                  "graphs nothing yet");
            *unsupported = true;
            region_graph_destroy(g);
            free(o.extra);
            free(o.extra_stream);
            free(deps);
            return NULL;
        }
    for (unsigned i = 0; err == CUDA_SUCCESS && i < list->count; i++) {
        const struct recorded *r = &list->calls[i];
        unsigned si = (unsigned)stream_index(g, r->call.stream);
        size_t ndeps = 0;
        add_position(&o, si, true, deps, &ndeps);
        if (r->call.kind == CALL_EVENT_WAIT) {
            /* An event recorded earlier in the region is an edge; one recorded before it is a wait node. */
            cudaGraphNode_t recorded_at = NULL;
            for (unsigned j = i; j-- > 0;)
                if (list->calls[j].call.kind == CALL_EVENT_RECORD && list->calls[j].call.event == r->call.event) {
                    recorded_at = g->nodes[j].node;
                    break;
                }
            if (recorded_at && o.extra_count + 1 + ndeps <= o.extra_capacity) {
                g->nodes[i].kind = CALL_EVENT_WAIT;
                g->nodes[i].node = NULL;
                o.extra[o.extra_count] = recorded_at;
                o.extra_stream[o.extra_count++] = si;
                /* The dependencies gathered for this call carry over to the stream's next node. */
                for (size_t d = 0; d < ndeps; d++) {
                    o.extra[o.extra_count] = deps[d];
                    o.extra_stream[o.extra_count++] = si;
                }
                o.tail[si] = NULL;
                continue;
            }
        }
        add_legacy_barrier(&o, g->stream_count, si, deps, &ndeps);
        err = add_node(g, list, r, deps, ndeps, &g->nodes[i], &staging_used);
        if (err == CUDA_SUCCESS && r->call.kind == CALL_COPY) {
            struct graph_node *gn = &g->nodes[i];
            const void *src = r->staged ? g->staging + gn->staging_offset : r->call.src;
            gn->src = r->staged ? NULL : r->call.src;
            CUDA_MEMCPY3D p = copy_params(r->call.dst, src, r->call.bytes);
            err = DEVICE_CALL(cuGraphAddMemcpyNode, &gn->node, g->graph, deps, ndeps, &p, g->context);
        }
        if (err == CUDA_SUCCESS)
            o.tail[si] = g->nodes[i].node;
    }
    free(o.extra);
    free(o.extra_stream);
    free(deps);
    if (err == CUDA_SUCCESS)
        err = DEVICE_CALL(cuGraphInstantiateWithFlags, &g->exec, g->graph, 0);
    /* The launch's events, made now: a region that cannot have them is not graphed. */
    for (unsigned i = 1; err == CUDA_SUCCESS && i < g->stream_count; i++)
        err = private_event(&g->before[i]);
    if (err == CUDA_SUCCESS && g->stream_count > 1)
        err = private_event(&g->after);
    if (err != CUDA_SUCCESS) {
        say_why(why, why_len, "building the graph failed: %s", libcuda_error_name(err));
        region_graph_destroy(g);
        return NULL;
    }
    return g;
}

/*
 * Whether a kernel node's parameters differ from the recorded ones.  Eight
 * bytes at a time, inline: it runs for every node of every replay, and a
 * parameter block is a few words, for which a call to memcmp cost as much
 * as the comparison.
 */
static inline bool args_differ(const struct graph_node *gn, const struct record_list *list, const struct recorded *r)
{
    const unsigned char *now = gn->args, *recorded = record_bytes(list, r);
    uint32_t i = 0;
    for (; i + 8 <= gn->args_size; i += 8) {
        uint64_t a, b;
        memcpy(&a, now + i, 8);
        memcpy(&b, recorded + i, 8);
        if (a != b)
            return true;
    }
    if (i + 4 <= gn->args_size) {
        uint32_t a, b;
        memcpy(&a, now + i, 4);
        memcpy(&b, recorded + i, 4);
        if (a != b)
            return true;
        i += 4;
    }
    for (; i < gn->args_size; i++)
        if (now[i] != recorded[i])
            return true;
    return false;
}

/* Brings one node up to date with a new occurrence (a kernel node: whose parameters differ); 1 if patched, 0 if not, -1 on error. */
static int patch_node(struct region_graph *g, struct graph_node *gn, const struct record_list *list,
                      const struct recorded *r, CUresult *error)
{
    const struct call *c = &r->call;
    switch (gn->kind) {
    case CALL_LAUNCH: {
        void *argv[KERNEL_PARAMS_MAX];
        record_kernel_argv(list, r, argv);
        CUDA_KERNEL_NODE_PARAMS p = kernel_params_for(r, argv);
        *error = DEVICE_CALL(cuGraphExecKernelNodeSetParams_v2, g->exec, gn->node, &p);
        if (*error != CUDA_SUCCESS)
            return -1;
        memcpy(gn->args, record_bytes(list, r), gn->args_size);
        return 1;
    }
    case CALL_COPY: {
        if (gn->dst == c->dst && (r->staged || gn->src == c->src))
            return 0;
        CUDA_MEMCPY3D p =
            copy_params(c->dst, r->staged ? (const void *)(g->staging + gn->staging_offset) : c->src, c->bytes);
        *error = DEVICE_CALL(cuGraphExecMemcpyNodeSetParams, g->exec, gn->node, &p, g->context);
        if (*error != CUDA_SUCCESS)
            return -1;
        gn->dst = c->dst;
        gn->src = r->staged ? NULL : c->src;
        return 1;
    }
    case CALL_SET: {
        if (gn->dst == c->dst && gn->value == c->value)
            return 0;
        CUDA_MEMSET_NODE_PARAMS p = memset_params(c);
        *error = DEVICE_CALL(cuGraphExecMemsetNodeSetParams, g->exec, gn->node, &p, g->context);
        if (*error != CUDA_SUCCESS)
            return -1;
        gn->dst = c->dst;
        gn->value = c->value;
        return 1;
    }
    case CALL_HOST_FUNC: {
        if (gn->host_data == c->host_data)
            return 0;
        CUDA_HOST_NODE_PARAMS p = {.fn = c->host_fn, .userData = c->host_data};
        *error = DEVICE_CALL(cuGraphExecHostNodeSetParams, g->exec, gn->node, &p);
        if (*error != CUDA_SUCCESS)
            return -1;
        gn->host_data = c->host_data;
        return 1;
    }
    default:
        return 0; /* event nodes: the event is part of the signature */
    }
}

/* Patches what differs, then launches on the region's streams; patched count, or -1 with *error. */
int region_graph_launch(struct region_graph *g, const struct record_list *list, cudaError_t *error)
{
    int patched = 0;
    /* The same calls in another context (the legacy stream after cudaSetDevice) are not this graph's work. */
    CUcontext now = NULL;
    CUresult err = DEVICE_CALL(cuCtxGetCurrent, &now);
    if (err == CUDA_SUCCESS && now != g->context)
        err = CUDA_ERROR_INVALID_CONTEXT;
    if (err != CUDA_SUCCESS) {
        *error = (cudaError_t)err;
        return -1;
    }
    for (unsigned i = 0; i < g->count && err == CUDA_SUCCESS; i++) {
        /* The common case, a kernel node whose parameters did not change, costs no call. */
        if (g->nodes[i].kind == CALL_LAUNCH && !args_differ(&g->nodes[i], list, &list->calls[i]))
            continue;
        int p = patch_node(g, &g->nodes[i], list, &list->calls[i], &err);
        patched += p > 0;
        if (p < 0)
            log_debug("patching node %u (%s) failed: %s", i, call_kind_name(g->nodes[i].kind), libcuda_error_name(err));
    }
    if (err == CUDA_SUCCESS && g->staging) {
        /* The previous launch may still be reading the staging buffer. */
        err = DEVICE_CALL(cuEventSynchronize, g->staging_free);
        for (unsigned i = 0; err == CUDA_SUCCESS && i < g->count; i++)
            if (list->calls[i].staged)
                memcpy(g->staging + g->nodes[i].staging_offset, record_bytes(list, &list->calls[i]),
                       list->calls[i].call.bytes);
    }
    if (err == CUDA_SUCCESS)
        err = streams_join_first(g->streams, g->stream_count, g->before);
    if (err == CUDA_SUCCESS) {
        err = DEVICE_CALL(cuGraphLaunch, g->exec, g->streams[0]);
        if (err != CUDA_SUCCESS)
            log_debug("cuGraphLaunch failed: %s", libcuda_error_name(err));
    }
    bool launched = err == CUDA_SUCCESS;
    if (launched && g->staging)
        err = DEVICE_CALL(cuEventRecord, g->staging_free, g->streams[0]);
    if (launched && err == CUDA_SUCCESS)
        err = streams_follow_first(g->streams, g->stream_count, &g->after);
    *error = (cudaError_t)err; /* the codes both APIs share agree */
    if (launched && err != CUDA_SUCCESS) {
        /* The work is submitted; only the joins after it failed.  Owe the error rather than resubmit. */
        errors_owe(*error);
        return patched;
    }
    return launched ? patched : -1;
}

/* Destroys the graph and everything it owns. */
void region_graph_destroy(struct region_graph *g)
{
    if (g == NULL)
        return;
    if (g->exec)
        (void)DEVICE_CALL(cuGraphExecDestroy, g->exec);
    if (g->graph)
        (void)DEVICE_CALL(cuGraphDestroy, g->graph);
    for (unsigned i = 1; i < g->stream_count; i++)
        private_event_destroy(g->before[i]);
    private_event_destroy(g->after);
    private_event_destroy(g->staging_free);
    if (g->staging)
        (void)DEVICE_CALL(cuMemFreeHost, g->staging);
    for (unsigned i = 0; i < g->count; i++)
        free(g->nodes[i].args);
    free(g->nodes);
    free(g);
}

/* How many nodes and streams the graph has, for logs. */
void region_graph_shape(const struct region_graph *g, unsigned *nodes, unsigned *streams)
{
    *nodes = g->count;
    *streams = g->stream_count;
}
