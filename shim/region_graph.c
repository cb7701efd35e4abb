/* A region's executable graph: built from one recorded occurrence, patched and launched for the next ones. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errors.h"
#include "log.h"
#include "region_graph.h"
#include "runtime.h"

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
    void *host_data;       /* HOST_FUNC */
    size_t staging_offset; /* staged COPY: where its bytes go in the staging buffer */
};

struct region_graph {
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

/*
 * Whether every stream of g but the legacy one was created non-blocking.
 * Those do not synchronise implicitly with the legacy stream, so a region
 * mixing them with it is ordered by its events alone, which the graph keeps;
 * the joins around the launch only add order.  A blocking stream's implicit
 * barriers with the legacy stream would be lost inside a graph.
 */
static bool others_non_blocking(const struct region_graph *g)
{
    struct saved_error saved;
    errors_save(&saved);
    bool all = true;
    for (unsigned i = 0; i < g->stream_count && all; i++) {
        unsigned flags = 0;
        if (g->streams[i] != cudaStreamLegacy)
            all = RT_CALL(cudaStreamGetFlags, g->streams[i], &flags) == cudaSuccess &&
                  (flags & cudaStreamNonBlocking);
    }
    errors_restore(&saved);
    return all;
}

/* The memset parameters of a recorded set. */
static struct cudaMemsetParams memset_params(const struct call *c)
{
    struct cudaMemsetParams p = {0};
    p.dst = c->dst;
    p.value = (unsigned)(unsigned char)c->value;
    p.elementSize = 1;
    p.width = c->bytes;
    p.height = 1;
    p.pitch = 0;
    return p;
}

/* Creates an event without timing for joins. */
static cudaError_t join_event(cudaEvent_t *event)
{
    return REAL_CALL(cudaEventCreateWithFlags, event, cudaEventDisableTiming);
}

/* Adds the node for one recorded call, after deps; fills gn. */
static cudaError_t add_node(struct region_graph *g, const struct record_list *list, const struct recorded *r,
                            const cudaGraphNode_t *deps, size_t ndeps, struct graph_node *gn, size_t *staging_used)
{
    const struct call *c = &r->call;
    gn->kind = c->kind;
    switch (c->kind) {
    case CALL_LAUNCH: {
        void *argv[KERNEL_PARAMS_MAX];
        record_kernel_argv(list, r, argv);
        struct cudaKernelNodeParams p = {.func = (void *)c->func, .gridDim = c->grid, .blockDim = c->block,
                                         .sharedMemBytes = (unsigned)c->shared_mem, .kernelParams = argv};
        gn->args_size = r->layout->total;
        gn->args = malloc(gn->args_size ? gn->args_size : 1);
        if (gn->args == NULL)
            return cudaErrorMemoryAllocation;
        memcpy(gn->args, record_bytes(list, r), gn->args_size);
        return RT_CALL(cudaGraphAddKernelNode, &gn->node, g->graph, deps, ndeps, &p);
    }
    case CALL_COPY:
        gn->dst = c->dst;
        if (r->staged) {
            gn->staging_offset = *staging_used;
            *staging_used += (c->bytes + 15) & ~(size_t)15;
            gn->src = NULL; /* set once the staging buffer exists */
        } else {
            gn->src = c->src;
        }
        return cudaSuccess; /* added in a second pass, once staging is allocated */
    case CALL_SET: {
        struct cudaMemsetParams p = memset_params(c);
        gn->dst = c->dst;
        gn->value = c->value;
        return RT_CALL(cudaGraphAddMemsetNode, &gn->node, g->graph, deps, ndeps, &p);
    }
    case CALL_HOST_FUNC: {
        struct cudaHostNodeParams p = {.fn = c->host_fn, .userData = c->host_data};
        gn->host_data = c->host_data;
        return RT_CALL(cudaGraphAddHostNode, &gn->node, g->graph, deps, ndeps, &p);
    }
    case CALL_EVENT_RECORD:
        return RT_CALL(cudaGraphAddEventRecordNode, &gn->node, g->graph, deps, ndeps, c->event);
    case CALL_EVENT_WAIT:
        return RT_CALL(cudaGraphAddEventWaitNode, &gn->node, g->graph, deps, ndeps, c->event);
    default:
        return cudaErrorNotSupported;
    }
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
    bool legacy = false;
    for (unsigned i = 0; i < list->count; i++) {
        cudaStream_t s = list->calls[i].call.stream;
        if (s == cudaStreamPerThread) {
            say_why(why, why_len, "it uses the per-thread default stream, which cannot be joined across threads");
            goto fail_early;
        }
        legacy |= s == cudaStreamLegacy;
        if (stream_index(g, s) < 0) {
            say_why(why, why_len, "it uses more than %d streams", GRAPH_STREAMS_MAX);
            goto fail_early;
        }
    }
    if (legacy && g->stream_count > 1 && !others_non_blocking(g)) {
        say_why(why, why_len, "it mixes the legacy default stream with blocking streams, whose implicit "
                              "synchronisation a graph would not keep");
        goto fail_early;
    }

    struct saved_error saved;
    errors_save(&saved);
    cudaError_t err = RT_CALL(cudaGraphCreate, &g->graph, 0);
    /* Per stream: the last node, and the nodes its next node must also follow (event waits). */
    cudaGraphNode_t tail[GRAPH_STREAMS_MAX] = {0};
    /* Each wait hands on at most the dependencies its stream had gathered: bounded by all nodes. */
    size_t extra_capacity = (size_t)list->count * (GRAPH_STREAMS_MAX + 2) + 4;
    cudaGraphNode_t *extra = calloc(extra_capacity, sizeof *extra);
    unsigned *extra_stream = calloc(extra_capacity, sizeof *extra_stream);
    unsigned extra_count = 0;
    cudaGraphNode_t *deps = calloc(extra_capacity + 2, sizeof *deps);
    size_t staging_used = 0;
    if (extra == NULL || extra_stream == NULL || deps == NULL)
        err = cudaErrorMemoryAllocation;

    /* Copies need the staging buffer's address: size it first. */
    for (unsigned i = 0; err == cudaSuccess && i < list->count; i++)
        if (list->calls[i].staged)
            g->staging_size += (list->calls[i].call.bytes + 15) & ~(size_t)15;
    if (err == cudaSuccess && g->staging_size) {
        err = REAL_CALL(cudaMallocHost, (void **)&g->staging, g->staging_size);
        if (err == cudaSuccess)
            err = REAL_CALL(cudaEventCreateWithFlags, &g->staging_free, cudaEventDisableTiming);
    }

    for (unsigned i = 0; err == cudaSuccess && i < list->count; i++) {
        const struct recorded *r = &list->calls[i];
        unsigned si = (unsigned)stream_index(g, r->call.stream);
        size_t ndeps = 0;
        if (tail[si])
            deps[ndeps++] = tail[si];
        for (unsigned k = 0; k < extra_count; k++) {
            if (extra_stream[k] != si || extra[k] == NULL)
                continue;
            bool seen = false; /* the runtime refuses duplicate dependencies */
            for (size_t d = 0; d < ndeps && !seen; d++)
                seen = deps[d] == extra[k];
            if (!seen)
                deps[ndeps++] = extra[k];
            extra[k] = NULL;
        }
        if (r->call.kind == CALL_EVENT_WAIT) {
            /* An event recorded earlier in the region is an edge; one recorded before it is a wait node. */
            cudaGraphNode_t recorded_at = NULL;
            for (unsigned j = i; j-- > 0;)
                if (list->calls[j].call.kind == CALL_EVENT_RECORD && list->calls[j].call.event == r->call.event) {
                    recorded_at = g->nodes[j].node;
                    break;
                }
            if (recorded_at && extra_count + 1 + ndeps <= extra_capacity) {
                g->nodes[i].kind = CALL_EVENT_WAIT;
                g->nodes[i].node = NULL;
                extra[extra_count] = recorded_at;
                extra_stream[extra_count++] = si;
                /* The dependencies gathered for this call carry over to the stream's next node. */
                for (size_t d = 0; d < ndeps; d++) {
                    extra[extra_count] = deps[d];
                    extra_stream[extra_count++] = si;
                }
                tail[si] = NULL;
                continue;
            }
        }
        err = add_node(g, list, r, deps, ndeps, &g->nodes[i], &staging_used);
        if (err == cudaSuccess && r->call.kind == CALL_COPY) {
            struct graph_node *gn = &g->nodes[i];
            const void *src = r->staged ? g->staging + gn->staging_offset : r->call.src;
            gn->src = r->staged ? NULL : r->call.src;
            err = RT_CALL(cudaGraphAddMemcpyNode1D, &gn->node, g->graph, deps, ndeps, r->call.dst, src,
                          r->call.bytes, r->call.copy_kind);
        }
        if (err == cudaSuccess)
            tail[si] = g->nodes[i].node;
    }
    free(extra);
    free(extra_stream);
    free(deps);
    if (err == cudaSuccess)
        err = RT_CALL(cudaGraphInstantiate, &g->exec, g->graph, 0);
    for (unsigned i = 1; err == cudaSuccess && i < g->stream_count; i++)
        err = join_event(&g->before[i]);
    if (err == cudaSuccess && g->stream_count > 1)
        err = join_event(&g->after);
    errors_restore(&saved);
    if (err != cudaSuccess) {
        say_why(why, why_len, "building the graph failed: %s", cudaGetErrorName(err));
        region_graph_destroy(g);
        return NULL;
    }
    return g;

fail_early:
    *unsupported = true;
    free(g->nodes);
    free(g);
    return NULL;
}

/* Whether a kernel node's parameters differ from the recorded ones. */
static bool args_differ(const struct graph_node *gn, const struct record_list *list, const struct recorded *r)
{
    return memcmp(gn->args, record_bytes(list, r), gn->args_size) != 0;
}

/* Brings one node up to date with a new occurrence; returns 1 if patched, 0 if not, -1 on error. */
static int patch_node(struct region_graph *g, struct graph_node *gn, const struct record_list *list,
                      const struct recorded *r, cudaError_t *error)
{
    const struct call *c = &r->call;
    switch (gn->kind) {
    case CALL_LAUNCH: {
        if (!args_differ(gn, list, r))
            return 0;
        void *argv[KERNEL_PARAMS_MAX];
        record_kernel_argv(list, r, argv);
        struct cudaKernelNodeParams p = {.func = (void *)c->func, .gridDim = c->grid, .blockDim = c->block,
                                         .sharedMemBytes = (unsigned)c->shared_mem, .kernelParams = argv};
        *error = RT_CALL(cudaGraphExecKernelNodeSetParams, g->exec, gn->node, &p);
        if (*error != cudaSuccess)
            return -1;
        memcpy(gn->args, record_bytes(list, r), gn->args_size);
        return 1;
    }
    case CALL_COPY:
        if (gn->dst == c->dst && (r->staged || gn->src == c->src))
            return 0;
        *error = RT_CALL(cudaGraphExecMemcpyNodeSetParams1D, g->exec, gn->node, c->dst,
                         r->staged ? (const void *)(g->staging + gn->staging_offset) : c->src, c->bytes,
                         c->copy_kind);
        if (*error != cudaSuccess)
            return -1;
        gn->dst = c->dst;
        gn->src = r->staged ? NULL : c->src;
        return 1;
    case CALL_SET: {
        if (gn->dst == c->dst && gn->value == c->value)
            return 0;
        struct cudaMemsetParams p = memset_params(c);
        *error = RT_CALL(cudaGraphExecMemsetNodeSetParams, g->exec, gn->node, &p);
        if (*error != cudaSuccess)
            return -1;
        gn->dst = c->dst;
        gn->value = c->value;
        return 1;
    }
    case CALL_HOST_FUNC: {
        if (gn->host_data == c->host_data)
            return 0;
        struct cudaHostNodeParams p = {.fn = c->host_fn, .userData = c->host_data};
        *error = RT_CALL(cudaGraphExecHostNodeSetParams, g->exec, gn->node, &p);
        if (*error != cudaSuccess)
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
    struct saved_error saved;
    errors_save(&saved);
    int patched = 0;
    *error = cudaSuccess;
    for (unsigned i = 0; i < g->count && *error == cudaSuccess; i++) {
        int p = patch_node(g, &g->nodes[i], list, &list->calls[i], error);
        patched += p > 0;
        if (p < 0)
            log_debug("patching node %u (%s) failed: %s", i, call_kind_name(g->nodes[i].kind), cudaGetErrorName(*error));
    }
    if (*error == cudaSuccess && g->staging) {
        /* The previous launch may still be reading the staging buffer. */
        *error = REAL_CALL(cudaEventSynchronize, g->staging_free);
        for (unsigned i = 0; *error == cudaSuccess && i < g->count; i++)
            if (list->calls[i].staged)
                memcpy(g->staging + g->nodes[i].staging_offset, record_bytes(list, &list->calls[i]),
                       list->calls[i].call.bytes);
    }
    for (unsigned i = 1; *error == cudaSuccess && i < g->stream_count; i++) {
        *error = REAL_CALL(cudaEventRecord, g->before[i], g->streams[i]);
        if (*error == cudaSuccess)
            *error = REAL_CALL(cudaStreamWaitEvent, g->streams[0], g->before[i], 0);
    }
    if (*error == cudaSuccess) {
        *error = REAL_CALL(cudaGraphLaunch, g->exec, g->streams[0]);
        if (*error != cudaSuccess)
            log_debug("cudaGraphLaunch failed: %s", cudaGetErrorName(*error));
    }
    bool launched = *error == cudaSuccess;
    if (launched && g->staging)
        *error = REAL_CALL(cudaEventRecord, g->staging_free, g->streams[0]);
    if (launched && g->stream_count > 1 && *error == cudaSuccess) {
        *error = REAL_CALL(cudaEventRecord, g->after, g->streams[0]);
        for (unsigned i = 1; *error == cudaSuccess && i < g->stream_count; i++)
            *error = REAL_CALL(cudaStreamWaitEvent, g->streams[i], g->after, 0);
    }
    errors_restore(&saved);
    if (launched && *error != cudaSuccess) {
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
    struct saved_error saved;
    errors_save(&saved);
    if (g->exec)
        RT_CALL(cudaGraphExecDestroy, g->exec);
    if (g->graph)
        RT_CALL(cudaGraphDestroy, g->graph);
    for (unsigned i = 1; i < g->stream_count; i++)
        if (g->before[i])
            REAL_CALL(cudaEventDestroy, g->before[i]);
    if (g->after)
        REAL_CALL(cudaEventDestroy, g->after);
    if (g->staging_free)
        REAL_CALL(cudaEventDestroy, g->staging_free);
    if (g->staging)
        REAL_CALL(cudaFreeHost, g->staging);
    errors_restore(&saved);
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
