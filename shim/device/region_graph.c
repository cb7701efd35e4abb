/* SPDX-License-Identifier: MIT */
/* A region's executable graph: built from one recorded occurrence, patched and launched for the next ones. */
#include "config.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errors.h"
#include "graph_step.h"
#include "launch_attributes.h"
#include "libcuda.h"
#include "log.h"
#include "monotonic.h"
#include "node_kinds.h"
#include "owed_records.h"
#include "region_graph.h"
#include "stream_facts.h"
#include "stream_order.h"

/*
 * Everything here goes through libcuda (shim/device/libcuda.h): a program built
 * with the static runtime has no runtime the shim could call, and a
 * driver call leaves the runtime's last error alone.  A recorded call is
 * the same node whichever door it came by; a runtime launch's kernel is
 * its driver function (kernel_params.h).  The runtime's handles are the
 * driver's (cudaStream_t is CUstream, cudaGraph_t CUgraph, ...).
 */

#define GRAPH_STREAMS_MAX 16

/*
 * Argument sets.  A region whose arguments rotate among a few values
 * (ping-pong buffers, a caching allocator handing blocks back in turn)
 * would have nodes patched at every replay, each patch a driver call.  So
 * a graph keeps up to max_instances executable instances of its one
 * CUgraph, each remembering what its nodes hold now and the key (a hash)
 * of that argument set.  A replay launches the instance launched last if
 * it holds the same arguments; else the one whose key is the occurrence's;
 * else, for a set seen before (among the last GRAPH_SEEN_SETS that no
 * instance held), a new instance while there is room or the least
 * recently used one; else (a one-off set) the one needing the fewest
 * patches.  Whatever the chosen one holds that differs is patched: a key
 * that matched by chance costs patches, never results.
 */
#define GRAPH_SEEN_SETS 8

/* The events a graph remembers as created without timing (untimed_known): a pool's, which rotate. */
#define GRAPH_UNTIMED_KNOWN 32

/* The kind of a recorded call that has no node (an event record owed after the launch, a wait that is an edge). */
#define NODELESS CALL_KIND_COUNT

/*
 * Program events a graph names, each by the position of the first of the
 * occurrence's calls that names it: the events there are the launch's own
 * occurrence's (take_events), as the calls of a pool's program name
 * others every time (call_signature names none: docs/design.md, "Events
 * that rotate").
 */
struct event_list {
    unsigned *at;        /* positions of calls in an occurrence */
    cudaEvent_t *events; /* the events there: the build's, then each launch's occurrence's */
    unsigned count;
};

/* What never changes about a node, in every instance. */
struct graph_node {
    cudaGraphNode_t node;
    enum call_kind kind;
    uint32_t args_room;    /* LAUNCH: the bytes its parameter block may take (kernel_node_args_room) */
    uint32_t args_offset;  /* LAUNCH: where that room is in each instance's args */
    size_t staging_offset; /* staged COPY: where its bytes go in the staging buffer */
    size_t staging_room;   /* staged COPY: the bytes its place there holds (restage makes it larger) */
};

/* One executable instance of the graph and the argument set its nodes hold. */
struct graph_instance {
    cudaGraphExec_t exec;     /* NULL for the graph's own (built) set */
    uint64_t key;             /* the set's key (set_key) */
    uint64_t last_used;       /* the graph's launch clock when last launched */
    unsigned char *args;      /* every kernel node's parameter block, at its args_offset */
    struct node_state *state; /* every node's other arguments */
};

struct region_graph {
    CUcontext context;                /* current when it was built: its copies and sets run there */
    cudaGraph_t graph;
    unsigned count;
    struct graph_node *nodes;
    uint32_t *args_at;                /* each node's args_offset, side by side for a replay's comparisons */
    unsigned *differ;                 /* a launch's nodes to patch */
    size_t args_total;                /* the kernel nodes' parameter blocks together */
    struct graph_instance built;      /* what graph's nodes hold: a new instance starts with it */
    struct graph_instance instances[GRAPH_INSTANCES_MAX];
    unsigned instance_count;
    unsigned max_instances;
    unsigned last;                    /* the instance launched last */
    uint64_t clock;                   /* launches, for the instances' LRU */
    uint64_t seen[GRAPH_SEEN_SETS];   /* keys of recent sets that no instance held */
    /* A launch's geometry or kernel differed from its node's: from then on every launch compares every launch
       node's (the fast path takes a launch whose geometry and kernel are its record slot's, which may be stale). */
    bool shape_varies;
    unsigned seen_next;
    unsigned patches_described;       /* replays whose patches the debug log described (describe_patches) */
    unsigned stream_count;            /* streams[0] is the one the graph is launched on */
    cudaStream_t streams[GRAPH_STREAMS_MAX];
    struct stream_joins joins;             /* the cross-stream waits around each launch */
    unsigned char *staging;                /* pinned copy sources for pageable copies (all instances') */
    size_t staging_size;
    unsigned char *staging_built;          /* re-planned since the build: the buffer graph's own nodes read */
    unsigned *staged;                      /* the staged copies' nodes */
    unsigned staged_count;
    cudaEvent_t staging_free;              /* recorded after each launch: the staging buffer's readers are done */
    /* The program's events it records with no node (owed a record after each launch, owed_records.h), and
       those it waits for as recorded before it (wait nodes): their owed records are made before a launch. */
    struct event_list owed, waited;
    struct event_list recorded;            /* every program event it records, a node or not */
    cudaEvent_t untimed[GRAPH_UNTIMED_KNOWN]; /* events known to have no timing: what an owed record may name */
    unsigned untimed_count, untimed_next;
    /* An event call named another event than its position in the instance launched last: from then on the fast
       path takes no event call of this graph's region (engine_fast_event_taker), the engine compares them all. */
    bool events_vary;
    bool blocking0;                        /* streams[0] is blocking: legacy-stream work settles what it owes */
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

/* Adds the node for one recorded call on a stream of priority, after deps; fills node i and the built set there. */
static CUresult add_node(struct region_graph *g, const struct held_list *list, const struct held_call *r,
                         const cudaGraphNode_t *deps, size_t ndeps, int priority, unsigned i, size_t *staging_used)
{
    struct graph_node *gn = &g->nodes[i];
    gn->kind = r->call.kind;
    node_state_of(r, &g->built.state[i]);
    if (gn->args_room)
        memcpy(g->built.args + gn->args_offset, held_bytes(list, r), r->layout->total);
    if (r->staged) {
        gn->staging_offset = *staging_used;
        gn->staging_room = align16(r->call.bytes);
        *staging_used += gn->staging_room;
        g->staged[g->staged_count++] = i;
    }
    return node_add(g->graph, g->context, list, r, deps, ndeps, priority, &gn->node);
}

/*
 * Where each stream's next node goes while a graph is built: after the
 * stream's last node and after the nodes its event waits handed on, and,
 * across the legacy stream's implicit barrier, after the other side's.
 */
struct build_order {
    cudaGraphNode_t tail[GRAPH_STREAMS_MAX]; /* each stream's last node */
    bool tail_kernel[GRAPH_STREAMS_MAX];     /* it is a kernel node (a programmatic edge may start there) */
    bool blocking[GRAPH_STREAMS_MAX];        /* it synchronises with the legacy stream */
    int priority[GRAPH_STREAMS_MAX];         /* its priority: its kernel nodes' unless their launch gave one */
    int legacy;                              /* the legacy stream's index, or -1 */
    cudaGraphNode_t *extra;                  /* nodes a stream's next node must also follow (event waits) */
    unsigned *extra_stream;
    unsigned extra_count;
    size_t extra_capacity;
    /* A program event's record that is no node (owed after the launch): what it would have followed, for the
       region's later waits on it (record i's are ahead[ahead_at[i]..ahead_at[i] + ahead_n[i])). */
    cudaGraphNode_t *ahead;
    unsigned *ahead_at, *ahead_n;
    unsigned ahead_count;
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

/*
 * The node a programmatic dependent launch r on stream si depends on
 * programmatically, taken out of deps (its edge is added with the edge's
 * data once the node exists): the stream's previous node if it is a kernel
 * node; NULL otherwise (after a copy, an event wait, an event record with
 * no node, or as the region's first call on the stream: every edge full,
 * and the kernel's grid-dependency wait returns at once), or if libcuda
 * has no cuGraphAddDependencies_v2 (before CUDA 12.3: full edges).
 */
static cudaGraphNode_t take_primary(const struct build_order *o, unsigned si, const struct held_call *r,
                                    cudaGraphNode_t *deps, size_t *ndeps)
{
    if (!r->programmatic || o->tail[si] == NULL || !o->tail_kernel[si] ||
        libcuda_device_fn(DEVICE_ID_cuGraphAddDependencies_v2) == NULL)
        return NULL;
    for (size_t d = 0; d < *ndeps; d++)
        if (deps[d] == o->tail[si]) {
            memmove(deps + d, deps + d + 1, (*ndeps - d - 1) * sizeof *deps);
            (*ndeps)--;
            return o->tail[si];
        }
    return NULL;
}

/*
 * Adds the programmatic edge from primary's programmatic port to node (what
 * stream capture makes of a programmatic dependent launch), counted in
 * *made; if the driver refuses it, a full edge (said once).
 */
static CUresult add_programmatic_edge(cudaGraph_t graph, cudaGraphNode_t primary, cudaGraphNode_t node,
                                      unsigned *made)
{
    static atomic_bool told;
    CUgraphEdgeData edge = {.from_port = CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC,
                            .type = CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC};
    CUresult err = DEVICE_CALL(cuGraphAddDependencies_v2, graph, &primary, &node, &edge, 1);
    if (err == CUDA_SUCCESS) {
        (*made)++;
        return err;
    }
    if (!atomic_exchange(&told, true))
        log_info("the driver refused a programmatic edge between two kernel nodes (%s): programmatic dependent "
                 "launches are graphed with full edges (each waits for its stream's previous kernel to finish)",
                 libcuda_error_name(err));
    return DEVICE_CALL(cuGraphAddDependencies_v2, graph, &primary, &node, NULL, 1);
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

/*
 * Numbers the region's streams (the legacy stream first: the graph is
 * launched there) and notes their priorities; false if too many.
 */
static bool index_streams(struct region_graph *g, const struct held_list *list, struct build_order *o)
{
    o->legacy = -1;
    for (unsigned i = 0; i < list->count && o->legacy < 0; i++)
        if (list->calls[i].call.stream == cudaStreamLegacy)
            o->legacy = stream_index(g, cudaStreamLegacy);
    for (unsigned i = 0; i < list->count; i++)
        if (stream_index(g, list->calls[i].call.stream) < 0)
            return false;
    for (unsigned i = 0; i < g->stream_count; i++)
        if (DEVICE_CALL(cuStreamGetPriority, g->streams[i], &o->priority[i]) != CUDA_SUCCESS)
            o->priority[i] = 0;
    for (unsigned i = 0; o->legacy >= 0 && i < g->stream_count; i++) {
        /* It waits for, and is waited for by, the legacy stream (only add_legacy_barrier asks). */
        enum stream_kind kind = stream_kind_of(g->streams[i]);
        o->blocking[i] = kind == STREAM_KIND_BLOCKING || kind == STREAM_KIND_PER_THREAD;
    }
    return true;
}

/* The hash of node i's arguments in an occurrence. */
static inline __attribute__((always_inline)) uint64_t occurrence_hash(const struct region_graph *g, const struct held_list *list, unsigned i)
{
    return node_call_hash(g->nodes[i].kind, i, list, &list->calls[i]);
}

/* The hash of node i's arguments in an instance. */
static inline __attribute__((always_inline)) uint64_t instance_hash(const struct region_graph *g, const struct graph_instance *in, unsigned i)
{
    return node_state_hash(g->nodes[i].kind, i, &in->state[i], in->args + g->nodes[i].args_offset);
}

/*
 * The key of an occurrence's argument set: its nodes' hashes, exclusive-or'd,
 * so that a replay finds it from the last instance's key and the nodes that
 * differ, without hashing the others.
 */
static uint64_t set_key(const struct region_graph *g, const struct held_list *list)
{
    uint64_t h = 0;
    for (unsigned i = 0; i < g->count; i++)
        h ^= occurrence_hash(g, list, i);
    return h;
}

/* Gives in room for a set (its arrays); false if out of memory. */
static bool instance_alloc(const struct region_graph *g, struct graph_instance *in)
{
    in->args = calloc(g->args_total ? g->args_total : 1, 1);
    in->state = calloc(g->count ? g->count : 1, sizeof *in->state);
    return in->args && in->state;
}

/*
 * Makes instance in's staged copies be patched at its next launch, which
 * compares all its nodes (choose_instance's): they may read a place in
 * a staging buffer that another now takes (restage).  No copy is SIZE_MAX
 * bytes long: each differs from any call.
 */
static void forget_staged(const struct region_graph *g, struct graph_instance *in)
{
    for (unsigned k = 0; k < g->staged_count; k++)
        in->state[g->staged[k]].bytes = SIZE_MAX;
}

/* Destroys an instance and frees its arrays. */
static void instance_free(struct graph_instance *in)
{
    if (in->exec)
        (void)DEVICE_CALL(cuGraphExecDestroy, in->exec);
    free(in->args);
    free(in->state);
    memset(in, 0, sizeof *in);
}

/*
 * Makes a new executable instance of g holding the graph's own set; NULL
 * (nothing made) if it cannot.  Its kernel nodes run at their own
 * priorities (their launches' or streams', node_add), not all at that of
 * the stream it is launched on.
 */
static struct graph_instance *instance_new(struct region_graph *g, CUresult *err)
{
    struct graph_instance *in = &g->instances[g->instance_count];
    *err = instance_alloc(g, in) ? DEVICE_CALL(cuGraphInstantiateWithFlags, &in->exec, g->graph,
                                               CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY)
                                 : CUDA_ERROR_OUT_OF_MEMORY;
    if (*err != CUDA_SUCCESS) {
        in->exec = NULL;
        instance_free(in);
        return NULL;
    }
    memcpy(in->args, g->built.args, g->args_total);
    memcpy(in->state, g->built.state, sizeof *in->state * g->count);
    if (g->staging_built)
        forget_staged(g, in); /* its staged copies read the buffer the graph was built with */
    in->key = g->built.key;
    g->instance_count++;
    return in;
}

/* Remembers the key of a set that no instance held; true if it was already there (the set recurs). */
static bool seen_before(struct region_graph *g, uint64_t key)
{
    for (unsigned k = 0; k < GRAPH_SEEN_SETS; k++)
        if (g->seen[k] == key)
            return true;
    g->seen[g->seen_next] = key;
    g->seen_next = (g->seen_next + 1) % GRAPH_SEEN_SETS;
    return false;
}

/* Gives an event list room for n events; false if out of memory. */
static bool event_list_alloc(struct event_list *el, size_t n)
{
    el->at = calloc(n, sizeof *el->at);
    el->events = calloc(n, sizeof *el->events);
    return el->at && el->events;
}

/* Frees an event list. */
static void event_list_free(struct event_list *el)
{
    free(el->at);
    free(el->events);
}

/* Adds the event of recorded call i to el unless it names it already. */
static void event_list_add(struct event_list *el, const struct held_list *list, unsigned i)
{
    cudaEvent_t event = list->calls[i].call.event;
    for (unsigned k = 0; k < el->count; k++)
        if (el->events[k] == event)
            return;
    el->at[el->count] = i;
    el->events[el->count++] = event;
}

/* Takes an occurrence's events into el: the same calls name others in each (a pool's). */
static void event_list_take(struct event_list *el, const struct held_list *list)
{
    for (unsigned k = 0; k < el->count; k++)
        el->events[k] = list->calls[el->at[k]].call.event;
}

/* Frees a graph that never got as far as the driver (nothing of libcuda's to destroy yet). */
static void discard_unbuilt(struct region_graph *g)
{
    instance_free(&g->built);
    free(g->staged);
    free(g->args_at);
    free(g->differ);
    free(g->nodes);
    event_list_free(&g->owed);
    event_list_free(&g->waited);
    event_list_free(&g->recorded);
    free(g);
}

/* Whether every kernel the occurrence launches was found in context: a kernel's function belongs to it. */
static bool kernels_of_context(const struct held_list *list, CUcontext context)
{
    for (unsigned i = 0; i < list->count; i++)
        if (list->calls[i].call.kind == CALL_LAUNCH && list->calls[i].layout->context != context)
            return false;
    return true;
}

/*
 * Whether a program event was created without timing: then its record in
 * the region need not be a node (see owed_records.h).  The occurrence just
 * recorded recorded it, and libcuda says an elapsed time of a recorded
 * event is invalid only for such an event; any other answer (a timed
 * event, an old driver without the function) keeps the node.
 */
static bool event_untimed(cudaEvent_t event)
{
    float ms;
    return DEVICE_CALL(cuEventElapsedTime_v2, &ms, event, event) == CUDA_ERROR_INVALID_HANDLE;
}

/* Whether event is known to have no timing; if not, asks libcuda, and remembers it if so. */
static bool untimed_known(struct region_graph *g, cudaEvent_t event)
{
    for (unsigned k = 0; k < g->untimed_count; k++)
        if (g->untimed[k] == event)
            return true;
    if (!event_untimed(event))
        return false;
    g->untimed[g->untimed_next] = event;
    g->untimed_next = (g->untimed_next + 1) % GRAPH_UNTIMED_KNOWN;
    if (g->untimed_count < GRAPH_UNTIMED_KNOWN)
        g->untimed_count++;
    return true;
}

/*
 * Whether recorded call i, a program event's record, is left out of the
 * graph (owed after each launch instead): an event without timing, a graph
 * not launched on a per-thread default stream (which only its thread could
 * name), and room to keep what it would have followed.
 */
static bool record_owed(struct region_graph *g, const struct held_list *list, unsigned i,
                        const struct build_order *o, size_t ndeps)
{
    if (g->owed.at == NULL || g->streams[0] == cudaStreamPerThread || o->ahead == NULL ||
        o->ahead_count + ndeps > o->extra_capacity || o->extra_count + ndeps > o->extra_capacity)
        return false;
    return untimed_known(g, list->calls[i].call.event);
}

/*
 * One build of a graph from a recorded occurrence: the graph, and what the
 * build keeps beside it (where each stream's next node goes, the current
 * call's dependencies).  builder_free releases it all on every path, the
 * graph too unless builder_take handed it out.
 */
struct graph_builder {
    const struct held_list *list;
    struct region_graph *g;
    struct build_order o;
    cudaGraphNode_t *deps;       /* the current call's dependencies */
    size_t ndeps;
    size_t staging_used;         /* the staging buffer's bytes given to staged copies so far */
    unsigned programmatic_edges; /* programmatic edges made (add_programmatic_edge) */
};

/* Entries of the arrays with one per recorded call (at least one). */
static size_t per_call(const struct held_list *list)
{
    return list->count ? list->count : 1;
}

/* Starts a build: the graph, its per-call arrays, each launch's parameter block placed; false if out of memory. */
static bool builder_init(struct graph_builder *b, const struct held_list *list, unsigned max_instances)
{
    *b = (struct graph_builder){.list = list};
    struct region_graph *g = b->g = calloc(1, sizeof *g);
    if (g == NULL || (g->nodes = calloc(per_call(list), sizeof *g->nodes)) == NULL)
        return false;
    g->count = list->count;
    g->differ = calloc(per_call(list), sizeof *g->differ);
    g->args_at = calloc(per_call(list), sizeof *g->args_at);
    g->staged = calloc(per_call(list), sizeof *g->staged);
    g->max_instances = max_instances < 1 ? 1 : max_instances > GRAPH_INSTANCES_MAX ? GRAPH_INSTANCES_MAX
                                                                                   : max_instances;
    if (g->differ == NULL || g->args_at == NULL || g->staged == NULL)
        return false;
    for (unsigned i = 0; i < list->count; i++)
        if (list->calls[i].call.kind == CALL_LAUNCH) {
            g->nodes[i].args_offset = g->args_at[i] = (uint32_t)g->args_total;
            g->nodes[i].args_room = kernel_node_args_room(list->calls[i].layout);
            g->args_total += g->nodes[i].args_room;
        }
    return instance_alloc(g, &g->built);
}

/*
 * Makes the build's side arrays and the graph's event lists; false if out
 * of memory.  Without room to leave records out (ahead), they stay nodes.
 */
static bool builder_alloc(struct graph_builder *b)
{
    struct build_order *o = &b->o;
    struct region_graph *g = b->g;
    size_t n = per_call(b->list);
    /* Each wait hands on at most the dependencies its stream had gathered: bounded by all nodes. */
    o->extra_capacity = (size_t)b->list->count * (GRAPH_STREAMS_MAX + 2) + 4;
    o->extra = calloc(o->extra_capacity, sizeof *o->extra);
    o->extra_stream = calloc(o->extra_capacity, sizeof *o->extra_stream);
    o->ahead = calloc(o->extra_capacity, sizeof *o->ahead);
    o->ahead_at = calloc(n, sizeof *o->ahead_at);
    o->ahead_n = calloc(n, sizeof *o->ahead_n);
    bool lists = event_list_alloc(&g->owed, n) & event_list_alloc(&g->waited, n) & event_list_alloc(&g->recorded, n);
    if (o->ahead == NULL || o->ahead_at == NULL || o->ahead_n == NULL) {
        free(o->ahead);
        o->ahead = NULL;
    }
    b->deps = calloc(o->extra_capacity + GRAPH_STREAMS_MAX + 2, sizeof *b->deps);
    return o->extra && o->extra_stream && b->deps && lists;
}

/* Allocates the staging buffer of the staged copies (their nodes need its address) and the event guarding it. */
static CUresult builder_stage(struct graph_builder *b)
{
    struct region_graph *g = b->g;
    for (unsigned i = 0; i < b->list->count; i++)
        if (b->list->calls[i].staged)
            g->staging_size += align16(b->list->calls[i].call.bytes);
    if (g->staging_size == 0)
        return CUDA_SUCCESS;
    CUresult err = DEVICE_CALL(cuMemAllocHost_v2, (void **)&g->staging, g->staging_size);
    return err == CUDA_SUCCESS ? private_event(&g->staging_free) : err;
}

/* The copy parameters of a recorded copy's node gn: a staged copy reads its place in the staging buffer. */
static CUDA_MEMCPY3D copy_node_params(const struct region_graph *g, const struct graph_node *gn,
                                      const struct held_call *r)
{
    const void *src = r->staged ? (const void *)(g->staging + gn->staging_offset) : r->call.src;
    return copy_params(r->call.dst, src, r->call.bytes);
}

/* Adds the node of recorded call i, a copy, after deps (add_node gave it its place in the staging buffer). */
static CUresult add_copy_node(struct region_graph *g, const struct held_call *r, unsigned i,
                              const cudaGraphNode_t *deps, size_t ndeps)
{
    struct graph_node *gn = &g->nodes[i];
    CUDA_MEMCPY3D p = copy_node_params(g, gn, r);
    return DEVICE_CALL(cuGraphAddMemcpyNode, &gn->node, g->graph, deps, ndeps, &p, g->context);
}

/* Hands node on to stream si's next node: it must follow node too. */
static void hand_on(struct build_order *o, unsigned si, cudaGraphNode_t node)
{
    o->extra[o->extra_count] = node;
    o->extra_stream[o->extra_count++] = si;
}

/*
 * Recorded call i, an event wait on stream si, as an edge when the event
 * was recorded earlier in the region (a node, or a record left out): no
 * node; the stream's next node follows the record and the dependencies
 * gathered for the wait.  False if it is a wait node (the event recorded
 * before the region, or no room left).
 */
static bool builder_wait_as_edge(struct graph_builder *b, unsigned i, unsigned si)
{
    const struct held_list *list = b->list;
    struct build_order *o = &b->o;
    cudaGraphNode_t recorded_at = NULL;
    const cudaGraphNode_t *ahead = NULL; /* a record left out: what it followed */
    unsigned ahead_n = 0;
    for (unsigned j = i; j-- > 0;)
        if (list->calls[j].call.kind == CALL_EVENT_RECORD && list->calls[j].call.event == list->calls[i].call.event) {
            recorded_at = b->g->nodes[j].node;
            if (recorded_at == NULL)
                ahead = o->ahead + o->ahead_at[j], ahead_n = o->ahead_n[j];
            break;
        }
    if ((recorded_at == NULL && ahead == NULL) || o->extra_count + 1 + ahead_n + b->ndeps > o->extra_capacity)
        return false;
    b->g->nodes[i].kind = NODELESS;
    b->g->nodes[i].node = NULL;
    b->g->built.state[i].event = list->calls[i].call.event;
    if (recorded_at)
        hand_on(o, si, recorded_at);
    for (unsigned k = 0; k < ahead_n; k++)
        hand_on(o, si, ahead[k]);
    /* The dependencies gathered for this call carry over to the stream's next node. */
    for (size_t d = 0; d < b->ndeps; d++)
        hand_on(o, si, b->deps[d]);
    o->tail[si] = NULL;
    return true;
}

/* Notes the program event of recorded call i if it gets a node: a wait's was recorded before the region; a record's. */
static void note_node_event(struct region_graph *g, const struct held_list *list, unsigned i)
{
    enum call_kind kind = list->calls[i].call.kind;
    if (kind == CALL_EVENT_WAIT)
        event_list_add(&g->waited, list, i);
    if (kind == CALL_EVENT_RECORD)
        event_list_add(&g->recorded, list, i);
}

/* Leaves recorded call i, an event record on stream si, out (owed): what follows it follows what it would have. */
static void builder_owe_record(struct graph_builder *b, unsigned i, unsigned si)
{
    struct region_graph *g = b->g;
    struct build_order *o = &b->o;
    g->nodes[i].kind = NODELESS;
    g->nodes[i].node = NULL;
    g->built.state[i].event = b->list->calls[i].call.event;
    event_list_add(&g->owed, b->list, i);
    o->ahead_at[i] = o->ahead_count;
    o->ahead_n[i] = (unsigned)b->ndeps;
    for (size_t d = 0; d < b->ndeps; d++) {
        o->ahead[o->ahead_count++] = b->deps[d];
        hand_on(o, si, b->deps[d]);
    }
    o->tail[si] = NULL;
}

/* Adds recorded call i's node on stream si after its dependencies, and its programmatic edge: the stream's tail. */
static CUresult builder_add_node(struct graph_builder *b, unsigned i, unsigned si)
{
    struct region_graph *g = b->g;
    const struct held_call *r = &b->list->calls[i];
    cudaGraphNode_t primary = take_primary(&b->o, si, r, b->deps, &b->ndeps);
    CUresult err = add_node(g, b->list, r, b->deps, b->ndeps, b->o.priority[si], i, &b->staging_used);
    if (err == CUDA_SUCCESS && primary)
        err = add_programmatic_edge(g->graph, primary, g->nodes[i].node, &b->programmatic_edges);
    if (err == CUDA_SUCCESS && r->call.kind == CALL_COPY)
        err = add_copy_node(g, r, i, b->deps, b->ndeps);
    if (err == CUDA_SUCCESS) {
        b->o.tail[si] = g->nodes[i].node;
        b->o.tail_kernel[si] = r->call.kind == CALL_LAUNCH;
    }
    return err;
}

/* Places recorded call i in the graph: as an edge, as a record left out, or as a node after what it follows. */
static CUresult builder_add_call(struct graph_builder *b, unsigned i)
{
    const struct held_call *r = &b->list->calls[i];
    unsigned si = (unsigned)stream_index(b->g, r->call.stream);
    b->ndeps = 0;
    add_position(&b->o, si, true, b->deps, &b->ndeps);
    /* An event recorded earlier in the region is an edge; one recorded before it is a wait node. */
    if (r->call.kind == CALL_EVENT_WAIT && builder_wait_as_edge(b, i, si))
        return CUDA_SUCCESS;
    add_legacy_barrier(&b->o, b->g->stream_count, si, b->deps, &b->ndeps);
    note_node_event(b->g, b->list, i);
    if (r->call.kind == CALL_EVENT_RECORD && record_owed(b->g, b->list, i, &b->o, b->ndeps)) {
        builder_owe_record(b, i, si);
        return CUDA_SUCCESS;
    }
    return builder_add_node(b, i, si);
}

/*
 * At debug level, the graph's nodes and its edges as the driver reports
 * them (cuGraphGetEdges_v2), and how many of those are programmatic: what
 * tests compare with the program's programmatic dependent launches.
 */
static void log_edges(const struct region_graph *g)
{
    if (!log_enabled(LOG_DEBUG))
        return;
    unsigned nodes = 0, programmatic = 0;
    for (unsigned i = 0; i < g->count; i++)
        nodes += g->nodes[i].node != NULL;
    size_t edges = 0;
    CUgraphNode *from = NULL, *to = NULL;
    CUgraphEdgeData *data = NULL;
    CUresult err = DEVICE_CALL(cuGraphGetEdges_v2, g->graph, NULL, NULL, NULL, &edges);
    if (err == CUDA_SUCCESS && edges > 0) {
        from = calloc(edges, sizeof *from);
        to = calloc(edges, sizeof *to);
        data = calloc(edges, sizeof *data);
        err = from && to && data ? DEVICE_CALL(cuGraphGetEdges_v2, g->graph, from, to, data, &edges)
                                 : CUDA_ERROR_OUT_OF_MEMORY;
    }
    for (size_t k = 0; err == CUDA_SUCCESS && k < edges; k++)
        programmatic += data[k].type == CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC;
    if (err == CUDA_SUCCESS)
        log_debug("graph of %u calls on %u streams: %u nodes, %zu edges (%u programmatic)", g->count,
                  g->stream_count, nodes, edges, programmatic);
    else
        log_debug("graph of %u calls on %u streams: %u nodes; its edges could not be counted (%s)", g->count,
                  g->stream_count, nodes, libcuda_error_name(err));
    free(from);
    free(to);
    free(data);
}

/* Completes a graph whose nodes are all added: its logs, its key, its first instance and its launch's events. */
static CUresult builder_finish(struct graph_builder *b)
{
    struct region_graph *g = b->g;
    log_edges(g);
    if (b->programmatic_edges)
        log_debug("graph of %u calls on %u streams: %u programmatic dependent launch%s after a kernel node, each "
                  "joined to it by a programmatic edge",
                  g->count, g->stream_count, b->programmatic_edges, b->programmatic_edges == 1 ? "" : "es");
    if (g->owed.count) {
        enum stream_kind kind = stream_kind_of(g->streams[0]);
        g->blocking0 = kind == STREAM_KIND_BLOCKING || kind == STREAM_KIND_PER_THREAD;
        log_debug("graph of %u calls on %u streams: %u program event%s recorded with no node, owed a record "
                  "after each launch",
                  g->count, g->stream_count, g->owed.count, g->owed.count == 1 ? "" : "s");
    }
    g->built.key = set_key(g, b->list);
    (void)seen_before(g, g->built.key);
    CUresult err;
    (void)instance_new(g, &err);
    /* The launch's events, made now: a region that cannot have them is not graphed. */
    if (err == CUDA_SUCCESS)
        err = stream_joins_prepare(&g->joins, g->streams, g->stream_count, g->context);
    return err;
}

/* Releases everything the build holds: its side arrays, and the graph unless builder_take handed it out. */
static void builder_free(struct graph_builder *b)
{
    free(b->o.extra);
    free(b->o.extra_stream);
    free(b->o.ahead);
    free(b->o.ahead_at);
    free(b->o.ahead_n);
    free(b->deps);
    region_graph_destroy(b->g); /* the driver's objects made so far, and the graph's arrays */
    b->g = NULL;
}

/* Hands out the built graph and releases the rest of the build. */
static struct region_graph *builder_take(struct graph_builder *b)
{
    struct region_graph *g = b->g;
    b->g = NULL;
    builder_free(b);
    return g;
}

/* Builds and instantiates a graph from a recorded occurrence; NULL with a reason if it cannot. */
struct region_graph *region_graph_build(const struct held_list *list, unsigned max_instances, char *why,
                                        size_t why_len, bool *unsupported)
{
    struct graph_builder b;
    *unsupported = false;
    if (!builder_init(&b, list, max_instances)) {
        say_why(why, why_len, "out of memory");
        builder_free(&b);
        return NULL;
    }
    if (!index_streams(b.g, list, &b.o)) {
        say_why(why, why_len, "it uses more than %d streams", GRAPH_STREAMS_MAX);
        *unsupported = true;
        builder_free(&b);
        return NULL;
    }
    CUresult err = DEVICE_CALL(cuCtxGetCurrent, &b.g->context);
    if (err == CUDA_SUCCESS && !kernels_of_context(list, b.g->context)) {
        say_why(why, why_len, "it launches a kernel in a second context (another device), where the shim graphs "
                              "nothing yet");
        *unsupported = true;
        builder_free(&b);
        return NULL;
    }
    if (err == CUDA_SUCCESS)
        err = DEVICE_CALL(cuGraphCreate, &b.g->graph, 0);
    if (!builder_alloc(&b))
        err = CUDA_ERROR_OUT_OF_MEMORY;
    if (err == CUDA_SUCCESS)
        err = builder_stage(&b);
    for (unsigned i = 0; err == CUDA_SUCCESS && i < list->count; i++)
        err = builder_add_call(&b, i);
    if (err == CUDA_SUCCESS)
        err = builder_finish(&b);
    if (err != CUDA_SUCCESS) {
        say_why(why, why_len, "building the graph failed: %s", libcuda_error_name(err));
        builder_free(&b);
        return NULL;
    }
    return builder_take(&b);
}

/* Whether node i of instance in holds other arguments than the occurrence's: whether it needs a patch. */
static inline bool node_differs(const struct region_graph *g, const struct graph_instance *in, unsigned i,
                                const struct held_list *list)
{
    const struct graph_node *gn = &g->nodes[i];
    return node_state_differs(gn->kind, &in->state[i], in->args + gn->args_offset, list, &list->calls[i]);
}

/* What a replay compares its launches' parameters with: the instance launched last's blocks, and where node i's is. */
void region_graph_compare(const struct region_graph *g, const unsigned char **blocks, const uint32_t **at)
{
    *blocks = g->instances[g->last].args;
    *at = g->args_at;
}

/*
 * Notes whether recorded call i has another geometry or kernel (a launch)
 * or another event (an event call, with a node or not) than its position in
 * the instance launched last.
 */
void region_graph_note_shape(struct region_graph *g, const struct held_list *list, unsigned i)
{
    if (i >= g->count)
        return;
    const struct held_call *r = &list->calls[i];
    const struct node_state *st = &g->instances[g->last].state[i];
    if (g->nodes[i].kind == CALL_LAUNCH && r->call.kind == CALL_LAUNCH && launch_shape_differs(st, r))
        g->shape_varies = true;
    else if ((r->call.kind == CALL_EVENT_RECORD || r->call.kind == CALL_EVENT_WAIT) && st->event != r->call.event)
        g->events_vary = true;
}

/* Whether the fast path may take g's region's event calls: none has named another event than the graph's yet. */
bool region_graph_events_fixed(const struct region_graph *g)
{
    return !g->events_vary;
}

/* Whether recorded call i of an occurrence has other arguments than its node in the instance launched last. */
bool region_graph_call_differs(struct region_graph *g, const struct held_list *list, unsigned i)
{
    region_graph_note_shape(g, list, i);
    return node_differs(g, &g->instances[g->last], i, list);
}

/* Replays of a graph whose patches the debug log describes (the first that patch anything). */
#define PATCHES_DESCRIBED 2

/* Whether a parameter's 8 bytes look like an address (a device or host pointer) rather than a count. */
static bool looks_like_address(uint64_t v)
{
    return v >= 0x10000 && v < (1ull << 57);
}

/*
 * Whether differing launch node i has a changed parameter other than one
 * that was and is an address (false: only allocations moved); into example
 * its first such change, else its first changed address.  A parameter wider
 * than 8 bytes (a struct passed by value, which may carry addresses inside)
 * is compared 8 bytes at a time, and the example names the bytes.
 */
static bool launch_values_change(const struct region_graph *g, const struct graph_instance *in, unsigned i,
                                 const struct held_list *list, char *example, size_t len)
{
    const struct held_call *r = &list->calls[i];
    const unsigned char *old = in->args + g->nodes[i].args_offset, *now = held_bytes(list, r);
    const struct kernel_params *k = r->layout;
    const char *name = kernel_params_name(k);
    bool other = false;
    example[0] = '\0';
    for (unsigned p = 0; p < k->count && !other; p++) {
        uint32_t at = k->offset[p], size = k->size[p];
        for (uint32_t word = 0; word < size && !other; word += 8) {
            uint32_t width = size - word < 8 ? size - word : 8;
            if (memcmp(old + at + word, now + at + word, width) == 0)
                continue;
            uint64_t was = 0, is = 0;
            memcpy(&was, old + at + word, width);
            memcpy(&is, now + at + word, width);
            other = !(width == 8 && (at + word) % 8 == 0 && looks_like_address(was) && looks_like_address(is));
            if (!other && example[0] != '\0')
                continue;
            char bytes[40] = "";
            if (size > 8)
                snprintf(bytes, sizeof bytes, " (bytes %u-%u of %u)", word, word + width - 1, size);
            snprintf(example, len, "node %u (%.48s) parameter %u%s: %#llx -> %#llx", i, name ? name : "?", p, bytes,
                     (unsigned long long)was, (unsigned long long)is);
        }
    }
    return other;
}

/*
 * At debug level, for a graph's first PATCHES_DESCRIBED replays that patch:
 * which of the occurrence's nodes differ from the instance launched last,
 * by what changed (why a program's replays patch: allocations that move,
 * counters passed by value, shapes), with an example of each.
 */
void region_graph_describe_patches(struct region_graph *g, const struct held_list *list, unsigned region)
{
    if (g->patches_described >= PATCHES_DESCRIBED || list->count != g->count || !log_enabled(LOG_DEBUG))
        return;
    const struct graph_instance *in = &g->instances[g->last];
    unsigned addresses = 0, parameters = 0, shapes = 0, events = 0, others = 0;
    char address_example[192] = "", parameter_example[192] = "", example[192];
    for (unsigned i = 0; i < g->count; i++) {
        if (!node_differs(g, in, i, list))
            continue;
        if (g->nodes[i].kind == CALL_EVENT_RECORD || g->nodes[i].kind == CALL_EVENT_WAIT) {
            events++;
        } else if (g->nodes[i].kind != CALL_LAUNCH) {
            others++;
        } else if (launch_shape_differs(&in->state[i], &list->calls[i])) {
            shapes++;
        } else if (!launch_values_change(g, in, i, list, example, sizeof example)) {
            if (addresses++ == 0)
                memcpy(address_example, example, sizeof example);
        } else if (parameters++ == 0) {
            memcpy(parameter_example, example, sizeof example);
        }
    }
    if (addresses + parameters + shapes + events + others == 0)
        return;
    g->patches_described++;
    log_debug("region %u: this replay patches %u of %u nodes: %u launches whose changed parameters are all "
              "addresses%s%s%s, %u with other parameters changed%s%s%s, %u with another geometry or kernel, %u "
              "copies, sets or host functions, %u event records or waits naming another event",
              region, addresses + parameters + shapes + events + others, g->count, addresses,
              address_example[0] ? " (" : "", address_example, address_example[0] ? ")" : "", parameters,
              parameter_example[0] ? " (" : "", parameter_example, parameter_example[0] ? ")" : "", shapes, others,
              events);
}

/* How many nodes of instance in need a patch for the occurrence. */
static unsigned instance_distance(const struct region_graph *g, const struct graph_instance *in,
                                  const struct held_list *list)
{
    unsigned n = 0;
    for (unsigned i = 0; i < g->count; i++)
        n += node_differs(g, in, i, list);
    return n;
}

/* Patches node i of instance in to the occurrence's arguments (it differs); CUDA_SUCCESS or the error. */
static CUresult patch_node(struct region_graph *g, struct graph_instance *in, unsigned i,
                           const struct held_list *list)
{
    const struct graph_node *gn = &g->nodes[i];
    const struct held_call *r = &list->calls[i];
    const void *staged_src = r->staged ? g->staging + gn->staging_offset : NULL;
    CUresult err = node_patch(in->exec, gn->node, g->context, list, r, staged_src, &in->state[i]);
    if (err == CUDA_SUCCESS && gn->args_room)
        memcpy(in->args + gn->args_offset, held_bytes(list, r), r->layout->total);
    return err;
}

/*
 * The instance to launch for an occurrence of argument set key that the
 * one launched last does not hold (see "Argument sets" above); its key
 * becomes key (the caller patches it to that).  *made: a new instance.
 */
static struct graph_instance *choose_instance(struct region_graph *g, const struct held_list *list, uint64_t key,
                                              bool *made)
{
    struct graph_instance *in = NULL;
    unsigned lru = 0;
    for (unsigned k = 0; k < g->instance_count && in == NULL; k++)
        if (g->instances[k].key == key)
            in = &g->instances[k];
    if (in == NULL && seen_before(g, key)) {
        if (g->instance_count < g->max_instances) {
            CUresult err;
            in = instance_new(g, &err);
            *made = in != NULL;
            if (in == NULL) {
                log_debug("another instance of a graph could not be made (%s): patching the ones it has",
                          libcuda_error_name(err));
                g->max_instances = g->instance_count;
            }
        }
        /* Full: the least recently used instance takes the set. */
        for (unsigned k = 0; in == NULL && k < g->instance_count; k++)
            if (k == 0 || g->instances[k].last_used < g->instances[lru].last_used)
                lru = k;
        if (in == NULL)
            in = &g->instances[lru];
    }
    /* A one-off set: the instance that needs the fewest patches (of equals, the least recently used). */
    if (in == NULL && g->instance_count == 1)
        in = &g->instances[0];
    if (in == NULL) {
        unsigned best = 0, fewest = ~0u;
        for (unsigned k = 0; k < g->instance_count; k++) {
            unsigned d = instance_distance(g, &g->instances[k], list);
            if (d < fewest || (d == fewest && g->instances[k].last_used < g->instances[best].last_used)) {
                fewest = d;
                best = k;
            }
        }
        in = &g->instances[best];
    }
    in->key = key;
    return in;
}

/*
 * The nodes of in to patch for an occurrence whose calls the engine
 * compared as it recorded them (list->differ, ascending), when a launch's
 * geometry may differ unlisted: the fast path took it because it matched
 * its record slot, which may hold another geometry than the instance (an
 * occurrence that fell back wrote it).  Into g->differ; how many.
 */
static unsigned listed_or_reshaped(struct region_graph *g, const struct graph_instance *in,
                                   const struct held_list *list)
{
    unsigned n = 0, k = 0;
    for (unsigned i = 0; i < g->count; i++) {
        bool listed = k < list->differ_count && list->differ[k] == i;
        k += listed;
        if (listed || (g->nodes[i].kind == CALL_LAUNCH && launch_shape_differs(&in->state[i], &list->calls[i])))
            g->differ[n++] = i;
    }
    return n;
}

/* Whether the current context is the graph's: the same calls in another (after cudaSetDevice) are not its work. */
static CUresult in_graph_context(const struct region_graph *g)
{
    CUcontext now = NULL;
    CUresult err = DEVICE_CALL(cuCtxGetCurrent, &now);
    return err == CUDA_SUCCESS && now != g->context ? CUDA_ERROR_INVALID_CONTEXT : err;
}

/* The nodes of in that hold other arguments than the occurrence's, compared one by one: into g->differ; how many. */
static unsigned differing_nodes(struct region_graph *g, const struct graph_instance *in, const struct held_list *list)
{
    unsigned n = 0;
    for (unsigned i = 0; i < g->count; i++)
        if (node_differs(g, in, i, list))
            g->differ[n++] = i;
    return n;
}

/*
 * The instance to launch for an occurrence, and its nodes to patch
 * (*nodes[0..*count)): the instance launched last, unless it differs and
 * another is nearer.  Its differing nodes give the occurrence's key; if it
 * stays the one, they are all it patches.  The engine compared each call
 * with its node there as it recorded it (list->differ): then nothing is
 * compared here.  *made: a new instance.
 */
static struct graph_instance *instance_to_launch(struct region_graph *g, const struct held_list *list, bool *made,
                                                 const unsigned **nodes, unsigned *count)
{
    struct graph_instance *in = &g->instances[g->last];
    const unsigned *listed = g->differ;
    unsigned differ;
    if (list->differ_graph == g && list->count == g->count && g->shape_varies) {
        differ = listed_or_reshaped(g, in, list);
    } else if (list->differ_graph == g && list->count == g->count) {
        listed = list->differ;
        differ = list->differ_count;
    } else {
        differ = differing_nodes(g, in, list);
    }
    *nodes = listed;
    *count = differ;
    if (differ == 0 || g->max_instances <= 1)
        return in;
    uint64_t key = in->key;
    for (unsigned k = 0; k < differ; k++)
        key ^= instance_hash(g, in, listed[k]) ^ occurrence_hash(g, list, listed[k]);
    struct graph_instance *chosen = choose_instance(g, list, key, made);
    if (chosen != in) {
        *nodes = g->differ;
        *count = differing_nodes(g, chosen, list);
    }
    return chosen;
}

/* Patches nodes[0..count) of in to the occurrence's arguments, up to the first that fails (*err); how many tried. */
static int patch_nodes(struct region_graph *g, struct graph_instance *in, const struct held_list *list,
                       const unsigned *nodes, unsigned count, CUresult *err)
{
    int patched = 0;
    for (unsigned k = 0; k < count && *err == CUDA_SUCCESS; k++) {
        unsigned i = nodes[k];
        *err = patch_node(g, in, i, list);
        if (*err != CUDA_SUCCESS) {
            log_debug("patching node %u (%s) failed: %s", i, call_kind_name(g->nodes[i].kind),
                      libcuda_error_name(*err));
            in->key = ~in->key; /* it holds part of the set: no key of one */
        }
        patched++;
    }
    return patched;
}

/* Copies the occurrence's staged bytes into the staging buffer, once the previous launch has stopped reading it. */
static CUresult refill_staging(struct region_graph *g, const struct held_list *list)
{
    /* The previous launch, of any instance, may still be reading the staging buffer. */
    CUresult err = DEVICE_CALL(cuEventSynchronize, g->staging_free);
    for (unsigned k = 0; err == CUDA_SUCCESS && k < g->staged_count; k++) {
        const struct held_call *r = &list->calls[g->staged[k]];
        memcpy(g->staging + g->nodes[g->staged[k]].staging_offset, held_bytes(list, r), r->call.bytes);
    }
    return err;
}

/* Whether each staged copy of the occurrence fits its place in the staging buffer. */
static inline bool staging_fits(const struct region_graph *g, const struct held_list *list)
{
    for (unsigned k = 0; k < g->staged_count; k++)
        if (list->calls[g->staged[k]].call.bytes > g->nodes[g->staged[k]].staging_room)
            return false;
    return true;
}

/* The place a staged copy of bytes takes when the buffer is re-planned, where it had room: room, or twice or more. */
static size_t staging_room_for(size_t bytes, size_t room)
{
    size_t need = align16(bytes);
    return need <= room ? room : need > 2 * room ? need : 2 * room;
}

/* Moves instance in's staged copy nodes to their places in the current staging buffer; those that fail, forgotten. */
static CUresult instance_restage(struct region_graph *g, struct graph_instance *in)
{
    CUresult first = CUDA_SUCCESS;
    for (unsigned k = 0; k < g->staged_count; k++) {
        unsigned i = g->staged[k];
        struct node_state *st = &in->state[i];
        if (st->bytes == SIZE_MAX)
            continue; /* forgotten already: patched at its next launch */
        CUDA_MEMCPY3D p = copy_params(st->dst, g->staging + g->nodes[i].staging_offset, st->bytes);
        CUresult err = DEVICE_CALL(cuGraphExecMemcpyNodeSetParams, in->exec, g->nodes[i].node, &p, g->context);
        if (err != CUDA_SUCCESS) {
            st->bytes = SIZE_MAX;
            first = first == CUDA_SUCCESS ? err : first;
        }
    }
    return first;
}

/*
 * Re-plans the staging buffer for an occurrence whose copy from pageable
 * memory is larger than its place (the steps of a training loop copy
 * batches of a few sizes): each place too small at least doubles, a new
 * buffer is allocated, and every instance's staged copies move there (the
 * occurrence's own patches then give it its sizes).  The buffer the graph
 * was built with stays while the graph does (a new instance's nodes read
 * it until patched); one re-planned before goes once its last launch has
 * read it.
 */
static CUresult restage(struct region_graph *g, const struct held_list *list)
{
    CUresult err = DEVICE_CALL(cuEventSynchronize, g->staging_free);
    size_t size = 0;
    for (unsigned k = 0; k < g->staged_count; k++)
        size += staging_room_for(list->calls[g->staged[k]].call.bytes, g->nodes[g->staged[k]].staging_room);
    unsigned char *staging = NULL;
    if (err == CUDA_SUCCESS)
        err = DEVICE_CALL(cuMemAllocHost_v2, (void **)&staging, size);
    if (err != CUDA_SUCCESS)
        return err;
    if (g->staging_built == NULL)
        g->staging_built = g->staging;
    else
        (void)DEVICE_CALL(cuMemFreeHost, g->staging);
    g->staging = staging;
    g->staging_size = size;
    size_t at = 0;
    for (unsigned k = 0; k < g->staged_count; k++) {
        struct graph_node *gn = &g->nodes[g->staged[k]];
        gn->staging_room = staging_room_for(list->calls[g->staged[k]].call.bytes, gn->staging_room);
        gn->staging_offset = at;
        at += gn->staging_room;
    }
    for (unsigned k = 0; k < g->instance_count; k++) {
        CUresult moved = instance_restage(g, &g->instances[k]);
        err = err == CUDA_SUCCESS ? moved : err;
    }
    log_debug("graph of %u calls: staging buffer re-planned for a larger copy from pageable memory: %zu bytes for "
              "%u staged cop%s, %u instance%s moved there",
              g->count, size, g->staged_count, g->staged_count == 1 ? "y" : "ies", g->instance_count,
              g->instance_count == 1 ? "" : "s");
    return err;
}

/*
 * Submits in on the region's streams: the records owed before it, the
 * joins into streams[0], the graph launch; *failed names the step that
 * failed.  A record owed before it that cannot be made stops it: the
 * graph's wait for that event would find its previous record.
 */
static CUresult submit_instance(struct region_graph *g, struct graph_instance *in, const char **failed)
{
    CUresult err = owed_records_before_launch(g->streams, g->stream_count, g->recorded.events, g->recorded.count,
                                              g->waited.events, g->waited.count);
    if (err != CUDA_SUCCESS) {
        *failed = "the record of an event that an earlier graph owed, due before this one";
        return err;
    }
    err = stream_joins_before(&g->joins, g->streams, g->stream_count);
    if (err != CUDA_SUCCESS) {
        *failed = "joining the region's streams before the launch";
        return err;
    }
    err = DEVICE_CALL(cuGraphLaunch, in->exec, g->streams[0]);
    if (err != CUDA_SUCCESS)
        *failed = "cuGraphLaunch";
    return err;
}

/* After a launch: the staging buffer's readers marked, the joins back to the other streams, the records owed. */
static CUresult after_launch(struct region_graph *g)
{
    CUresult err = CUDA_SUCCESS;
    if (g->staging)
        err = DEVICE_CALL(cuEventRecord, g->staging_free, g->streams[0]);
    if (err == CUDA_SUCCESS)
        err = stream_joins_after(&g->joins, g->streams, g->stream_count);
    if (g->owed.count) {
        CUresult owed = owed_records_note(g->owed.events, g->owed.count, g->streams[0], g->context, g->blocking0);
        err = err == CUDA_SUCCESS ? owed : err;
    }
    return err;
}

/*
 * Takes the occurrence's program events (those a pool's program names
 * change every time): the records owed after the launch, those of its wait
 * nodes and records made before it; nothing while the graph's events are
 * fixed (every event call so far named the graph's own).  A record the
 * graph owes must name an event without timing (a timed one's record would
 * move past the whole graph, which cudaEventElapsedTime would tell):
 * CUDA_ERROR_NOT_SUPPORTED if a new one has (the occurrence falls back).
 */
static CUresult take_events(struct region_graph *g, const struct held_list *list)
{
    if (!g->events_vary)
        return CUDA_SUCCESS;
    for (unsigned k = 0; k < g->owed.count; k++) {
        cudaEvent_t event = list->calls[g->owed.at[k]].call.event;
        if (event != g->owed.events[k] && !untimed_known(g, event)) {
            log_debug("event %p has timing, where the graph records an event without timing after its launch: "
                      "the occurrence is submitted call by call",
                      (void *)event);
            return CUDA_ERROR_NOT_SUPPORTED; /* owed.events[k] stays the last one found untimed */
        }
        g->owed.events[k] = event;
    }
    event_list_take(&g->waited, list);
    event_list_take(&g->recorded, list);
    return CUDA_SUCCESS;
}

/* Patches what differs, then launches on the region's streams; patched count, or -1 with *error. */
int region_graph_launch(struct region_graph *g, const struct held_list *list, struct graph_launch *how,
                        cudaError_t *error)
{
    how->made = false;
    how->patch_ns = 0;
    how->failed = NULL;
    CUresult err = in_graph_context(g);
    if (err == CUDA_SUCCESS)
        err = take_events(g, list);
    if (err != CUDA_SUCCESS)
        how->failed = "making the graph's context current";
    else if (g->staged_count && !staging_fits(g, list) && (err = restage(g, list)) != CUDA_SUCCESS)
        how->failed = "re-planning the staging buffer for a larger copy from pageable memory";
    if (err != CUDA_SUCCESS) {
        *error = (cudaError_t)err;
        return -1;
    }
    const unsigned *nodes;
    unsigned count;
    struct graph_instance *in = instance_to_launch(g, list, &how->made, &nodes, &count);
    uint64_t patch_began = count ? monotonic_ns() : 0;
    graph_step_set(GRAPH_STEP_PATCH);
    int patched = patch_nodes(g, in, list, nodes, count, &err);
    how->patch_ns = count ? monotonic_ns() - patch_began : 0;
    if (err != CUDA_SUCCESS)
        how->failed = "patching a node";
    graph_step_set(GRAPH_STEP_LAUNCH);
    if (err == CUDA_SUCCESS && g->staging && (err = refill_staging(g, list)) != CUDA_SUCCESS)
        how->failed = "waiting for the staging buffer";
    if (err == CUDA_SUCCESS)
        err = submit_instance(g, in, &how->failed);
    bool launched = err == CUDA_SUCCESS;
    if (launched) {
        g->last = (unsigned)(in - g->instances);
        in->last_used = ++g->clock;
        err = after_launch(g);
    }
    graph_step_set(GRAPH_STEP_NONE);
    how->instance = (unsigned)(in - g->instances);
    how->instances = g->instance_count;
    *error = (cudaError_t)err; /* the codes both APIs share agree */
    if (launched && err != CUDA_SUCCESS) {
        /* The work is submitted; only the joins after it failed.  Owe the error rather than resubmit. */
        errors_owe(*error);
        return patched;
    }
    return launched ? patched : -1;
}

/* Whether instance in's node i (an event node) names event. */
static bool node_names(const struct region_graph *g, const struct graph_instance *in, unsigned i, cudaEvent_t event)
{
    return (g->nodes[i].kind == CALL_EVENT_RECORD || g->nodes[i].kind == CALL_EVENT_WAIT) && in->state[i].event == event;
}

/* Before event is destroyed: forgets it where g remembers it; whether a node of g names it (g must go first). */
bool region_graph_event_ends(struct region_graph *g, cudaEvent_t event)
{
    for (unsigned k = 0; k < g->untimed_count; k++)
        if (g->untimed[k] == event) {
            g->untimed[k] = g->untimed[--g->untimed_count];
            g->untimed_next = g->untimed_count;
            break;
        }
    for (unsigned k = 0; k < g->owed.count; k++)
        if (g->owed.events[k] == event) {
            g->owed.events[k] = NULL; /* a new event given its handle is asked about anew (take_events) */
            g->events_vary = true;
        }
    for (unsigned i = 0; i < g->count; i++) {
        bool named = node_names(g, &g->built, i, event); /* the graph's own node: new instances start with it */
        for (unsigned k = 0; k < g->instance_count && !named; k++)
            named = node_names(g, &g->instances[k], i, event);
        if (named)
            return true;
    }
    return false;
}

/* Destroys the graph and everything it owns. */
void region_graph_destroy(struct region_graph *g)
{
    if (g == NULL)
        return;
    for (unsigned k = 0; k < g->instance_count; k++)
        instance_free(&g->instances[k]);
    instance_free(&g->built);
    if (g->graph)
        (void)DEVICE_CALL(cuGraphDestroy, g->graph);
    stream_joins_release(&g->joins);
    private_event_destroy(g->staging_free);
    if (g->staging)
        (void)DEVICE_CALL(cuMemFreeHost, g->staging);
    if (g->staging_built)
        (void)DEVICE_CALL(cuMemFreeHost, g->staging_built);
    discard_unbuilt(g); /* the built instance (freed above: empty now) and the host-side arrays */
}

/* How many nodes and streams the graph has, for logs. */
void region_graph_shape(const struct region_graph *g, unsigned *nodes, unsigned *streams)
{
    *nodes = g->count;
    *streams = g->stream_count;
}
