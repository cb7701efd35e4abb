/* SPDX-License-Identifier: MIT */
/*
 * standin/graph.c: CUDA graphs and executable graphs.
 *
 * A graph is its nodes in creation order (a node can only depend on nodes
 * that exist, so that order is topological); each node owns a work item
 * (kernel arguments deep-copied when the node is added or captured). An
 * executable graph is a copy of the nodes, so later changes to the graph do
 * not reach it. cudaGraphLaunch turns each node into a queued op whose preds
 * are its dependencies (roots follow the stream, like any op, and the
 * previous launch of the same executable graph); the scheduler then runs the
 * nodes in a seeded random topological order, interleaved with other streams.
 *
 * cudaGraphExecUpdate pairs the nodes of both graphs by creation order and
 * refuses, as measured on the H200 (tests/conformance.c): a different node
 * count (cudaGraphExecUpdateErrorTopologyChanged, no error node), more exit
 * nodes (TopologyChanged, an exit node), a node with other dependencies
 * (TopologyChanged, that node), another node type (NodeTypeChanged), a
 * memcpy whose source or destination changes between device and host memory
 * (ParametersChanged). A kernel may change its function (allowed since CUDA
 * 11.2). A 2-D memset may change only its address and value (documented).
 *
 * Programmatic edges (cuGraphAddDependencies_v2 with edge data of type
 * CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC): only between two kernel nodes,
 * from port CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC or LAUNCH_ORDER, as the
 * driver requires (else cudaErrorInvalidValue); the type is kept for
 * cuGraphGetEdges_v2, and a launch runs the edge as what it is: the
 * dependent kernel may start before its primary, and only its twin's
 * grid-dependency wait waits for it (scheduler.c). An edge added later must
 * go from an older node to a newer one (creation order stays topological;
 * CUDA allows any acyclic).
 *
 * Lifetimes (modules.c, context.c): instantiating or launching a graph with
 * a kernel node of an unloaded module's function aborts the process, saying
 * which node, as the real driver crashes there; graphs, nodes and
 * executable graphs of a destroyed context are cudaErrorContextIsDestroyed,
 * and abort launches, destroys and exec SetParams.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "standin.h"

struct gnode {
    void *self;                 /* key of the live-node table */
    struct graph *g;
    size_t index;               /* creation order within g */
    enum cudaGraphNodeType type;
    struct work w;
    struct gnode **deps;
    size_t ndeps, capdeps;
    struct gnode **outs;        /* dependent nodes */
    size_t nout, capout;
    struct gnode **prog_deps;   /* the dependencies whose edge is programmatic */
    size_t nprog, capprog;
    unsigned mark;              /* graph_reaches visit generation */
    UT_hash_handle hh;
};

struct graph {
    void *self;
    unsigned long long serial;
    struct gnode **nodes;
    size_t n, cap;
    UT_hash_handle hh;
};

/* A node of an executable graph. */
struct enode {
    enum cudaGraphNodeType type;
    struct work w;
    /* Memory classes of a copy's or memset's ends when instantiated: the
       memory may be freed since, but its class is what SetParams keeps. */
    int src_class, dst_class;
    size_t *deps;               /* indices of dependencies */
    bool *programmatic;         /* whether each one's edge is programmatic */
    size_t ndeps;
};

struct exec {
    void *self;
    unsigned long long graph_serial;    /* graph it was instantiated from */
    bool node_priority;                 /* cudaGraphInstantiateFlagUseNodePriority: kernels run at their nodes' */
    struct enode *nodes;
    size_t n;
    uint64_t last_end;                  /* end op of the latest launch */
    UT_hash_handle hh;
};

static struct graph *live_graphs;
static struct gnode *live_nodes;
static struct exec *live_execs;
/* Handles of a destroyed context (context.c), kept so that they are recognised. */
static struct graph *dead_graphs;
static struct gnode *dead_nodes;
static struct exec *dead_execs;
static unsigned long long next_graph_serial = 1;
static unsigned visit_gen;

/* ------------------------------------------------------------ graphs */

/* Creates an empty graph. */
struct graph *graph_new(void)
{
    struct graph *g = xcalloc(1, sizeof *g);
    g->self = g;
    g->serial = next_graph_serial++;
    HASH_ADD_PTR(live_graphs, self, g);
    return g;
}

/* Frees a graph and its nodes. */
void graph_free(struct graph *g)
{
    if (!g)
        return;
    for (size_t i = 0; i < g->n; i++) {
        struct gnode *n = g->nodes[i];
        HASH_DEL(live_nodes, n);
        work_release(&n->w);
        free(n->deps);
        free(n->outs);
        free(n->prog_deps);
        free(n);
    }
    HASH_DEL(live_graphs, g);
    free(g->nodes);
    free(g);
}

/* Adds a node (taking w) after deps. */
struct gnode *graph_add(struct graph *g, enum cudaGraphNodeType type, struct work *w,
                        struct gnode *const *deps, size_t ndeps)
{
    struct gnode *n = xcalloc(1, sizeof *n);
    n->self = n;
    n->g = g;
    n->index = g->n;
    n->type = type;
    n->w = *w;
    for (size_t i = 0; i < ndeps; i++) {
        ptr_push((void ***)&n->deps, &n->ndeps, &n->capdeps, deps[i]);
        ptr_push((void ***)&deps[i]->outs, &deps[i]->nout, &deps[i]->capout, n);
    }
    ptr_push((void ***)&g->nodes, &g->n, &g->cap, n);
    HASH_ADD_PTR(live_nodes, self, n);
    return n;
}

/* Depth-first search from b back through dependencies, looking for a. */
static bool reaches_visit(const struct gnode *a, struct gnode *b)
{
    if (a == b)
        return true;
    if (b->mark == visit_gen)
        return false;
    b->mark = visit_gen;
    for (size_t i = 0; i < b->ndeps; i++)
        if (reaches_visit(a, b->deps[i]))
            return true;
    return false;
}

/* True when a is b or one of b's ancestors. */
bool graph_reaches(const struct gnode *a, const struct gnode *b)
{
    visit_gen++;
    return reaches_visit(a, (struct gnode *)b);
}

/* Resolves a graph handle. */
static cudaError_t graph_get(cudaGraph_t h, struct graph **out)
{
    struct graph *g = NULL;
    CHECK(!h, cudaErrorInvalidValue);
    HASH_FIND_PTR(live_graphs, &h, g);
    if (!g) {
        HASH_FIND_PTR(dead_graphs, &h, g);
        CHECK(g, cudaErrorContextIsDestroyed);
    }
    CHECK(!g, cudaErrorInvalidValue);
    *out = g;
    return cudaSuccess;
}

/* Resolves a node handle. */
static cudaError_t node_get(cudaGraphNode_t h, struct gnode **out)
{
    struct gnode *n = NULL;
    CHECK(!h, cudaErrorInvalidValue);
    HASH_FIND_PTR(live_nodes, &h, n);
    if (!n) {
        HASH_FIND_PTR(dead_nodes, &h, n);
        CHECK(n, cudaErrorContextIsDestroyed);
    }
    CHECK(!n, cudaErrorInvalidValue);
    *out = n;
    return cudaSuccess;
}

/* Resolves an executable-graph handle. */
static cudaError_t exec_get(cudaGraphExec_t h, struct exec **out)
{
    struct exec *e = NULL;
    CHECK(!h, cudaErrorInvalidValue);
    HASH_FIND_PTR(live_execs, &h, e);
    if (!e) {
        HASH_FIND_PTR(dead_execs, &h, e);
        CHECK(e, cudaErrorContextIsDestroyed);
    }
    CHECK(!e, cudaErrorInvalidValue);
    *out = e;
    return cudaSuccess;
}

/* cudaGraphCreate (flags must be 0). */
static cudaError_t graph_create(cudaGraph_t *out, unsigned flags)
{
    CHECK(!out || flags != 0, cudaErrorInvalidValue);
    *out = (cudaGraph_t)graph_new();
    return cudaSuccess;
}

/* cudaGraphCreate. */
cudaError_t cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags)
{
    API(graph_create(pGraph, flags));
}

/* cudaGraphDestroy's body (call: the API's name). */
static cudaError_t graph_destroy(cudaGraph_t h, const char *call)
{
    struct graph *g = NULL;
    TRY(context_fatal_if_destroyed(graph_get(h, &g), call, "graph", h));
    graph_free(g);
    return cudaSuccess;
}

/* cudaGraphDestroy: executable graphs made from it live on. */
cudaError_t cudaGraphDestroy(cudaGraph_t graph)
{
    API(graph_destroy(graph, "cudaGraphDestroy"));
}

/* ------------------------------------------------------------ adding nodes */

/* Validates a dependency list: live nodes of g, no duplicates. */
static cudaError_t deps_check(struct graph *g, const cudaGraphNode_t *deps, size_t n)
{
    CHECK(n > 0 && !deps, cudaErrorInvalidValue);
    for (size_t i = 0; i < n; i++) {
        struct gnode *d = NULL;
        TRY(node_get(deps[i], &d));
        CHECK(d->g != g, cudaErrorInvalidValue);
        for (size_t j = 0; j < i; j++)
            CHECK(deps[j] == deps[i], cudaErrorInvalidValue);
    }
    return cudaSuccess;
}

/* Adds a node with a validated work item (released on error). */
static cudaError_t add_node(cudaGraphNode_t *out, cudaGraph_t hg, const cudaGraphNode_t *deps,
                            size_t ndeps, enum cudaGraphNodeType type, struct work *w)
{
    struct graph *g = NULL;
    cudaError_t e = !out ? cudaErrorInvalidValue : graph_get(hg, &g);
    if (e == cudaSuccess)
        e = deps_check(g, deps, ndeps);
    if (e != cudaSuccess) {
        work_release(w);
        return e;
    }
    *out = (cudaGraphNode_t)graph_add(g, type, w, (struct gnode *const *)deps, ndeps);
    return cudaSuccess;
}

/* Builds a kernel work item from node parameters. */
static cudaError_t kernel_params_work(struct work *w, const struct cudaKernelNodeParams *p)
{
    CHECK(!p, cudaErrorInvalidValue);
    /* Simplification: arguments must come as kernelParams, not extra. */
    CHECK(p->extra != NULL, cudaErrorInvalidValue);
    return kernel_work_make(w, p->func, p->gridDim, p->blockDim, p->sharedMemBytes,
                            p->kernelParams);
}

/* cudaGraphAddKernelNode's body. */
static cudaError_t add_kernel_node(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
                                   size_t n, const struct cudaKernelNodeParams *p)
{
    struct work w;
    TRY(kernel_params_work(&w, p));
    return add_node(out, g, deps, n, cudaGraphNodeTypeKernel, &w);
}

/* cudaGraphAddKernelNode: arguments are copied by value now. */
cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                   const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                   const struct cudaKernelNodeParams *pNodeParams)
{
    API(add_kernel_node(pGraphNode, graph, pDependencies, numDependencies, pNodeParams));
}

/* cudaGraphAddMemcpyNode's body. */
static cudaError_t add_memcpy_node(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
                                   size_t n, const struct cudaMemcpy3DParms *p)
{
    CHECK(!p, cudaErrorInvalidValue);
    TRY(copy_params_check(p));
    struct work w = {.kind = W_COPY, .u.copy = {.p = *p}};
    return add_node(out, g, deps, n, cudaGraphNodeTypeMemcpy, &w);
}

/* cudaGraphAddMemcpyNode (pitched pointers only; arrays unsupported). */
cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                   const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                   const struct cudaMemcpy3DParms *pCopyParams)
{
    API(add_memcpy_node(pGraphNode, graph, pDependencies, numDependencies, pCopyParams));
}

/* cudaGraphAddMemcpyNode1D's body. */
static cudaError_t add_memcpy_node_1d(cudaGraphNode_t *out, cudaGraph_t g,
                                      const cudaGraphNode_t *deps, size_t n, void *dst,
                                      const void *src, size_t count, enum cudaMemcpyKind kind)
{
    struct cudaMemcpy3DParms p;
    TRY(copy_params_2d(&p, dst, count, src, count, count, 1, kind));
    struct work w = {.kind = W_COPY, .u.copy = {.p = p}};
    return add_node(out, g, deps, n, cudaGraphNodeTypeMemcpy, &w);
}

/* cudaGraphAddMemcpyNode1D. */
cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                     const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                     void *dst, const void *src, size_t count,
                                     enum cudaMemcpyKind kind)
{
    API(add_memcpy_node_1d(pGraphNode, graph, pDependencies, numDependencies, dst, src, count,
                           kind));
}

/* cudaGraphAddMemsetNode's body. */
static cudaError_t add_memset_node(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
                                   size_t n, const struct cudaMemsetParams *p)
{
    CHECK(!p, cudaErrorInvalidValue);
    TRY(memset_params_check(p));
    struct work w = {.kind = W_SET, .u.set = *p};
    return add_node(out, g, deps, n, cudaGraphNodeTypeMemset, &w);
}

/* cudaGraphAddMemsetNode. */
cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                   const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                   const struct cudaMemsetParams *pMemsetParams)
{
    API(add_memset_node(pGraphNode, graph, pDependencies, numDependencies, pMemsetParams));
}

/* cudaGraphAddHostNode's body. */
static cudaError_t add_host_node(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
                                 size_t n, const struct cudaHostNodeParams *p)
{
    CHECK(!p || !p->fn, cudaErrorInvalidValue);
    struct work w = {.kind = W_HOST, .u.host = *p};
    return add_node(out, g, deps, n, cudaGraphNodeTypeHost, &w);
}

/* cudaGraphAddHostNode. */
cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                 const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                 const struct cudaHostNodeParams *pNodeParams)
{
    API(add_host_node(pGraphNode, graph, pDependencies, numDependencies, pNodeParams));
}

/* cudaGraphAddEmptyNode. */
cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                  const cudaGraphNode_t *pDependencies, size_t numDependencies)
{
    struct work w = {.kind = W_NOP};
    API(add_node(pGraphNode, graph, pDependencies, numDependencies, cudaGraphNodeTypeEmpty, &w));
}

/* An event record or wait node. */
static cudaError_t add_event_node(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
                                  size_t n, cudaEvent_t he, bool record)
{
    struct event *ev = NULL;
    TRY(event_get(he, &ev));
    struct work w = {.kind = record ? W_EVENT_RECORD : W_EVENT_WAIT, .u.event = ev};
    return add_node(out, g, deps, n,
                    record ? cudaGraphNodeTypeEventRecord : cudaGraphNodeTypeWaitEvent, &w);
}

/* cudaGraphAddEventRecordNode. */
cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                        const cudaGraphNode_t *pDependencies,
                                        size_t numDependencies, cudaEvent_t event)
{
    API(add_event_node(pGraphNode, graph, pDependencies, numDependencies, event, true));
}

/* cudaGraphAddEventWaitNode. */
cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                      const cudaGraphNode_t *pDependencies,
                                      size_t numDependencies, cudaEvent_t event)
{
    API(add_event_node(pGraphNode, graph, pDependencies, numDependencies, event, false));
}

/* ------------------------------------------------------------ inspection */

/* Copies up to *num node handles; *num gets how many there are (or were copied). */
static cudaError_t list_nodes(struct gnode **src, size_t n, cudaGraphNode_t *out,
                              cudaGraphEdgeData *edges, size_t *num)
{
    CHECK(!num, cudaErrorInvalidValue);
    if (!out) {
        *num = n;
        return cudaSuccess;
    }
    size_t k = *num < n ? *num : n;
    for (size_t i = 0; i < *num; i++) {
        out[i] = i < k ? (cudaGraphNode_t)src[i] : NULL;
        if (edges)
            memset(&edges[i], 0, sizeof edges[i]);
    }
    *num = k;
    return cudaSuccess;
}

/* cudaGraphGetNodes's body. */
static cudaError_t get_nodes(cudaGraph_t h, cudaGraphNode_t *nodes, size_t *num)
{
    struct graph *g = NULL;
    TRY(graph_get(h, &g));
    return list_nodes(g->nodes, g->n, nodes, NULL, num);
}

/* cudaGraphGetNodes: nodes in creation (capture) order. */
cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *numNodes)
{
    API(get_nodes(graph, nodes, numNodes));
}

/* cudaGraphGetRootNodes's body. */
static cudaError_t get_roots(cudaGraph_t h, cudaGraphNode_t *nodes, size_t *num)
{
    struct graph *g = NULL;
    TRY(graph_get(h, &g));
    struct gnode **roots = xcalloc(g->n, sizeof *roots);
    size_t n = 0;
    for (size_t i = 0; i < g->n; i++)
        if (g->nodes[i]->ndeps == 0)
            roots[n++] = g->nodes[i];
    cudaError_t e = list_nodes(roots, n, nodes, NULL, num);
    free(roots);
    return e;
}

/* cudaGraphGetRootNodes. */
cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t *pRootNodes,
                                  size_t *pNumRootNodes)
{
    API(get_roots(graph, pRootNodes, pNumRootNodes));
}

/* Whether node n's edge from dependency d is programmatic. */
static bool edge_programmatic(const struct gnode *n, const struct gnode *d)
{
    for (size_t i = 0; i < n->nprog; i++)
        if (n->prog_deps[i] == d)
            return true;
    return false;
}

/* Checks one edge to be added from f to t with data e (NULL: a full edge), as the driver does. */
static cudaError_t edge_check(const struct gnode *f, const struct gnode *t, const cudaGraphEdgeData *e)
{
    CHECK(f->g != t->g || f->index >= t->index, cudaErrorInvalidValue);
    for (size_t i = 0; i < t->ndeps; i++)
        CHECK(t->deps[i] == f, cudaErrorInvalidValue);
    if (e == NULL)
        return cudaSuccess;
    for (size_t i = 0; i < sizeof e->reserved; i++)
        CHECK(e->reserved[i] != 0, cudaErrorInvalidValue);
    CHECK(e->to_port != 0, cudaErrorInvalidValue);
    if (e->type == cudaGraphDependencyTypeDefault) {
        CHECK(e->from_port != 0, cudaErrorInvalidValue); /* a port other than full completion: programmatic only */
        return cudaSuccess;
    }
    CHECK(e->type != cudaGraphDependencyTypeProgrammatic, cudaErrorInvalidValue);
    CHECK(f->type != cudaGraphNodeTypeKernel || t->type != cudaGraphNodeTypeKernel, cudaErrorInvalidValue);
    CHECK(e->from_port != cudaGraphKernelNodePortProgrammatic && e->from_port != cudaGraphKernelNodePortLaunchCompletion,
          cudaErrorInvalidValue);
    return cudaSuccess;
}

/* cuGraphAddDependencies_v2's body: every edge is checked before any is added. */
static cudaError_t add_dependencies(cudaGraph_t h, const cudaGraphNode_t *from, const cudaGraphNode_t *to,
                                    const cudaGraphEdgeData *edges, size_t n)
{
    struct graph *g = NULL;
    TRY(graph_get(h, &g));
    CHECK(n > 0 && (!from || !to), cudaErrorInvalidValue);
    for (size_t i = 0; i < n; i++) {
        struct gnode *f = NULL, *t = NULL;
        TRY(node_get(from[i], &f));
        TRY(node_get(to[i], &t));
        CHECK(f->g != g, cudaErrorInvalidValue);
        TRY(edge_check(f, t, edges ? &edges[i] : NULL));
        for (size_t j = 0; j < i; j++)
            CHECK(from[j] == from[i] && to[j] == to[i], cudaErrorInvalidValue);
    }
    for (size_t i = 0; i < n; i++) {
        struct gnode *f = (struct gnode *)from[i], *t = (struct gnode *)to[i];
        ptr_push((void ***)&t->deps, &t->ndeps, &t->capdeps, f);
        ptr_push((void ***)&f->outs, &f->nout, &f->capout, t);
        if (edges && edges[i].type == cudaGraphDependencyTypeProgrammatic)
            ptr_push((void ***)&t->prog_deps, &t->nprog, &t->capprog, f);
    }
    return cudaSuccess;
}

/* cudaGraphGetEdges's body: every (dependency, node) pair. */
static cudaError_t get_edges(cudaGraph_t h, cudaGraphNode_t *from, cudaGraphNode_t *to,
                             cudaGraphEdgeData *edges, size_t *num)
{
    struct graph *g = NULL;
    CHECK(!num || (!from) != (!to), cudaErrorInvalidValue);
    TRY(graph_get(h, &g));
    size_t total = 0, k = 0;
    for (size_t i = 0; i < g->n; i++)
        for (size_t j = 0; j < g->nodes[i]->ndeps; j++, total++)
            if (from && k < *num) {
                from[k] = (cudaGraphNode_t)g->nodes[i]->deps[j];
                to[k] = (cudaGraphNode_t)g->nodes[i];
                if (edges) {
                    memset(&edges[k], 0, sizeof edges[k]);
                    if (edge_programmatic(g->nodes[i], g->nodes[i]->deps[j]))
                        edges[k].from_port = cudaGraphKernelNodePortProgrammatic,
                        edges[k].type = cudaGraphDependencyTypeProgrammatic;
                }
                k++;
            }
    *num = from ? k : total;
    return cudaSuccess;
}

/* cudaGraphGetEdges. */
cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t *from, cudaGraphNode_t *to,
                              cudaGraphEdgeData *edgeData, size_t *numEdges)
{
    API(get_edges(graph, from, to, edgeData, numEdges));
}

/* cudaGraphNodeGetDependencies / GetDependentNodes body. */
static cudaError_t node_neighbours(cudaGraphNode_t h, cudaGraphNode_t *out,
                                   cudaGraphEdgeData *edges, size_t *num, bool deps)
{
    struct gnode *n = NULL;
    TRY(node_get(h, &n));
    return deps ? list_nodes(n->deps, n->ndeps, out, edges, num)
                : list_nodes(n->outs, n->nout, out, edges, num);
}

/* cudaGraphNodeGetDependencies. */
cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t *pDependencies,
                                         cudaGraphEdgeData *edgeData, size_t *pNumDependencies)
{
    API(node_neighbours(node, pDependencies, edgeData, pNumDependencies, true));
}

/* cudaGraphNodeGetDependentNodes. */
cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t node, cudaGraphNode_t *pDependentNodes,
                                           cudaGraphEdgeData *edgeData,
                                           size_t *pNumDependentNodes)
{
    API(node_neighbours(node, pDependentNodes, edgeData, pNumDependentNodes, false));
}

/* cudaGraphNodeGetType's body. */
static cudaError_t node_type_of(cudaGraphNode_t h, enum cudaGraphNodeType *t)
{
    struct gnode *n = NULL;
    CHECK(!t, cudaErrorInvalidValue);
    TRY(node_get(h, &n));
    *t = n->type;
    return cudaSuccess;
}

/* cudaGraphNodeGetType. */
cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, enum cudaGraphNodeType *pType)
{
    API(node_type_of(node, pType));
}

/* A node of a given type, or cudaErrorInvalidValue. */
static cudaError_t typed_node(cudaGraphNode_t h, enum cudaGraphNodeType t, struct gnode **out)
{
    TRY(node_get(h, out));
    CHECK((*out)->type != t, cudaErrorInvalidValue);
    return cudaSuccess;
}

/* cudaGraphKernelNodeGetParams's body: kernelParams point at the node's copy. */
static cudaError_t kernel_node_get(cudaGraphNode_t h, struct cudaKernelNodeParams *p)
{
    struct gnode *n = NULL;
    CHECK(!p, cudaErrorInvalidValue);
    TRY(typed_node(h, cudaGraphNodeTypeKernel, &n));
    const struct kernel_work *k = &n->w.u.kernel;
    *p = (struct cudaKernelNodeParams){(void *)k->handle, k->grid, k->block, k->shmem, k->argv, NULL};
    return cudaSuccess;
}

/* cudaGraphKernelNodeGetParams. */
cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node, struct cudaKernelNodeParams *pNodeParams)
{
    API(kernel_node_get(node, pNodeParams));
}

/* cudaGraphKernelNodeSetParams's body. */
static cudaError_t kernel_node_set(cudaGraphNode_t h, const struct cudaKernelNodeParams *p)
{
    struct gnode *n = NULL;
    struct work w;
    TRY(typed_node(h, cudaGraphNodeTypeKernel, &n));
    TRY(kernel_params_work(&w, p));
    w.u.kernel.priority = n->w.u.kernel.priority; /* an attribute, not a parameter */
    work_release(&n->w);
    n->w = w;
    return cudaSuccess;
}

/* cuGraphKernelNodeGetAttribute / SetAttribute's body for the priority: *get (if not NULL) gets it, set sets it. */
static cudaError_t kernel_node_priority(cudaGraphNode_t h, int *get, const int *set)
{
    struct gnode *n = NULL;
    TRY(typed_node(h, cudaGraphNodeTypeKernel, &n));
    if (set)
        n->w.u.kernel.priority = priority_clamp(*set);
    if (get)
        *get = n->w.u.kernel.priority;
    return cudaSuccess;
}

/* cudaGraphKernelNodeSetParams. */
cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node,
                                         const struct cudaKernelNodeParams *pNodeParams)
{
    API(kernel_node_set(node, pNodeParams));
}

/* cudaGraphMemcpyNodeGetParams's body. */
static cudaError_t memcpy_node_get(cudaGraphNode_t h, struct cudaMemcpy3DParms *p)
{
    struct gnode *n = NULL;
    CHECK(!p, cudaErrorInvalidValue);
    TRY(typed_node(h, cudaGraphNodeTypeMemcpy, &n));
    *p = n->w.u.copy.p;
    return cudaSuccess;
}

/* cudaGraphMemcpyNodeGetParams. */
cudaError_t cudaGraphMemcpyNodeGetParams(cudaGraphNode_t node, struct cudaMemcpy3DParms *pNodeParams)
{
    API(memcpy_node_get(node, pNodeParams));
}

/* cudaGraphMemsetNodeGetParams's body. */
static cudaError_t memset_node_get(cudaGraphNode_t h, struct cudaMemsetParams *p)
{
    struct gnode *n = NULL;
    CHECK(!p, cudaErrorInvalidValue);
    TRY(typed_node(h, cudaGraphNodeTypeMemset, &n));
    *p = n->w.u.set;
    return cudaSuccess;
}

/* cudaGraphMemsetNodeGetParams. */
cudaError_t cudaGraphMemsetNodeGetParams(cudaGraphNode_t node, struct cudaMemsetParams *pNodeParams)
{
    API(memset_node_get(node, pNodeParams));
}

/* ------------------------------------------------------------ executable graphs */

/* Copies a graph's nodes into an executable graph's node array. */
static void enode_note_classes(struct enode *en);

static struct enode *exec_nodes_from(const struct graph *g)
{
    struct enode *en = xcalloc(g->n, sizeof *en);
    for (size_t i = 0; i < g->n; i++) {
        const struct gnode *n = g->nodes[i];
        en[i].type = n->type;
        work_clone(&en[i].w, &n->w);
        enode_note_classes(&en[i]);
        en[i].ndeps = n->ndeps;
        en[i].deps = xcalloc(n->ndeps, sizeof *en[i].deps);
        en[i].programmatic = xcalloc(n->ndeps, sizeof *en[i].programmatic);
        for (size_t j = 0; j < n->ndeps; j++) {
            en[i].deps[j] = n->deps[j]->index;
            en[i].programmatic[j] = edge_programmatic(n, n->deps[j]);
        }
    }
    return en;
}

/* Notes the memory classes of a copy or memset node's ends. */
static void enode_note_classes(struct enode *en)
{
    if (en->type == cudaGraphNodeTypeMemcpy) {
        en->src_class = mem_type_class(en->w.u.copy.p.srcPtr.ptr);
        en->dst_class = mem_type_class(en->w.u.copy.p.dstPtr.ptr);
    } else if (en->type == cudaGraphNodeTypeMemset) {
        en->dst_class = mem_type_class(en->w.u.set.dst);
    }
}

/* Frees an executable graph's node array. */
static void exec_nodes_free(struct enode *en, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        work_release(&en[i].w);
        free(en[i].deps);
        free(en[i].programmatic);
    }
    free(en);
}

/* The real driver crashes on a kernel node of an unloaded module's function: aborts saying which (call). */
static void abort_on_unloaded_function(const struct enode *nodes, size_t n, const char *call)
{
    for (size_t i = 0; i < n; i++) {
        const struct kernel_work *k = &nodes[i].w.u.kernel;
        if (nodes[i].type == cudaGraphNodeTypeKernel && handle_unloaded(k->handle, k->generation)) {
            fprintf(stderr, "standin: %s: graph node %zu runs a function of an unloaded module\n", call, i);
            abort();
        }
    }
}

/*
 * The real driver's behaviour with an event record or wait node of a
 * destroyed event is undefined (its handle may be another event's by
 * then): aborts saying which node (call), so that a shim's graph that
 * outlives a program's event is caught.
 */
static void abort_on_destroyed_event(const struct enode *nodes, size_t n, const char *call)
{
    for (size_t i = 0; i < n; i++)
        if ((nodes[i].type == cudaGraphNodeTypeEventRecord || nodes[i].type == cudaGraphNodeTypeWaitEvent) &&
            nodes[i].w.u.event->destroyed) {
            fprintf(stderr, "standin: %s: graph node %zu %s a destroyed event\n", call, i,
                    nodes[i].type == cudaGraphNodeTypeEventRecord ? "records" : "waits for");
            abort();
        }
}

/* cudaGraphInstantiate's body (call: the API's name). */
static cudaError_t instantiate(cudaGraphExec_t *out, cudaGraph_t h, unsigned long long flags, const char *call)
{
    const unsigned long long known = cudaGraphInstantiateFlagAutoFreeOnLaunch |
                                     cudaGraphInstantiateFlagUpload |
                                     cudaGraphInstantiateFlagDeviceLaunch |
                                     cudaGraphInstantiateFlagUseNodePriority;
    struct graph *g = NULL;
    CHECK(!out || (flags & ~known), cudaErrorInvalidValue);
    TRY(graph_get(h, &g));
    struct exec *e = xcalloc(1, sizeof *e);
    e->self = e;
    e->graph_serial = g->serial;
    e->node_priority = (flags & cudaGraphInstantiateFlagUseNodePriority) != 0;
    e->nodes = exec_nodes_from(g);
    e->n = g->n;
    abort_on_unloaded_function(e->nodes, e->n, call);
    abort_on_destroyed_event(e->nodes, e->n, call);
    HASH_ADD_PTR(live_execs, self, e);
    *out = (cudaGraphExec_t)e;
    return cudaSuccess;
}

/* cudaGraphInstantiate. */
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                 unsigned long long flags)
{
    API(instantiate(pGraphExec, graph, flags, "cudaGraphInstantiate"));
}

/* cudaGraphInstantiateWithFlags. */
cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                          unsigned long long flags)
{
    API(instantiate(pGraphExec, graph, flags, "cudaGraphInstantiate"));
}

/* cudaGraphExecDestroy's body (call: the API's name): launches already queued still run. */
static cudaError_t exec_destroy(cudaGraphExec_t h, const char *call)
{
    struct exec *e = NULL;
    TRY(context_fatal_if_destroyed(exec_get(h, &e), call, "graph executable", h));
    HASH_DEL(live_execs, e);
    exec_nodes_free(e->nodes, e->n);
    free(e);
    return cudaSuccess;
}

/* cudaGraphExecDestroy. */
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec)
{
    API(exec_destroy(graphExec, "cudaGraphExecDestroy"));
}

/* Queues every node of an executable graph on a stream (call: the API's name). */
static cudaError_t graph_launch(cudaGraphExec_t h, cudaStream_t hs, bool ptsz, const char *call)
{
    struct exec *e = NULL;
    struct stream *s = NULL;
    TRY(context_fatal_if_destroyed(exec_get(h, &e), call, "graph executable", h));
    TRY(context_fatal_if_destroyed(stream_get(hs, ptsz, &s), call, "stream", hs));
    abort_on_unloaded_function(e->nodes, e->n, call);
    abort_on_destroyed_event(e->nodes, e->n, call);
    if (s->cap) {
        capture_invalidate(s->cap);
        return cudaErrorStreamCaptureUnsupported;
    }
    if (s == stream_legacy())
        TRY(capture_check_legacy());

    /* STANDIN_GRAPH_LOG=1: each launch says how many nodes it runs and how many record an event (for tests). */
    static int say = -1;
    if (say < 0)
        say = getenv("STANDIN_GRAPH_LOG") != NULL;
    if (say) {
        size_t records = 0;
        for (size_t i = 0; i < e->n; i++)
            records += e->nodes[i].type == cudaGraphNodeTypeEventRecord;
        fprintf(stderr, "standin: graph launch: %zu nodes, %zu event records\n", e->n, records);
    }
    uint64_t *base = NULL;
    size_t capbase = 0, nbase = stream_preds(s, &base, &capbase);
    base = xrealloc(base, (nbase + 1) * sizeof *base);
    base[nbase++] = e->last_end;        /* launches of one graph never overlap */
    host_cost_submit();
    host_cost_graph_launch();
    size_t kernels = 0;
    for (size_t i = 0; i < e->n; i++)
        kernels += e->nodes[i].type == cudaGraphNodeTypeKernel;
    device_time_queue(kernels);

    uint64_t *ids = xcalloc(e->n, sizeof *ids);
    uint64_t *preds = NULL;
    size_t cappreds = 0;
    for (size_t i = 0; i < e->n; i++) {
        struct enode *n = &e->nodes[i];
        size_t np = 0;
        if (n->ndeps == 0) {
            preds = xrealloc(preds, (cappreds = nbase + 1) * sizeof *preds);
            memcpy(preds, base, nbase * sizeof *base);
            np = nbase;
        } else {
            if (cappreds < n->ndeps + 1)
                preds = xrealloc(preds, (cappreds = n->ndeps + 1) * sizeof *preds);
            for (size_t j = 0; j < n->ndeps; j++)
                preds[np++] = ids[n->deps[j]];
        }
        if (n->type == cudaGraphNodeTypeWaitEvent)
            preds[np++] = n->w.u.event->last_record;
        struct work w;
        work_clone(&w, &n->w);
        if (w.kind == W_KERNEL && !e->node_priority)
            w.u.kernel.priority = s->priority; /* as CUDA: the stream's, unless instantiated to use the nodes' */
        /* A kernel node's preds are its dependencies, in order: its edges say which are its primaries. */
        bool kernel = n->type == cudaGraphNodeTypeKernel && n->ndeps > 0;
        ids[i] = sched_submit_dependent(&w, preds, kernel ? n->programmatic : NULL, np);
        if (n->type == cudaGraphNodeTypeEventRecord)
            event_note_record(n->w.u.event, ids[i]);
    }
    struct work end = {.kind = W_NOP};
    e->last_end = e->n ? sched_submit(&end, ids, e->n) : sched_submit(&end, base, nbase);
    s->last_op = e->last_end;
    free(ids);
    free(preds);
    free(base);
    return cudaSuccess;
}

/* cudaGraphLaunch. */
cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream)
{
    API(graph_launch(graphExec, stream, false, "cudaGraphLaunch"));
}

/* cudaGraphLaunch, per-thread default stream flavour. */
cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream)
{
    API(graph_launch(graphExec, stream, true, "cudaGraphLaunch"));
}

/* Number of nodes nothing depends on, and one of them. */
static size_t exit_nodes(const struct graph *g, struct gnode **one)
{
    size_t n = 0;
    for (size_t i = 0; i < g->n; i++)
        if (g->nodes[i]->nout == 0) {
            *one = g->nodes[i];
            n++;
        }
    return n;
}

/* Number of exit nodes of an executable graph. */
static size_t exec_exit_nodes(const struct exec *e)
{
    bool *has_out = xcalloc(e->n ? e->n : 1, sizeof *has_out);
    size_t n = 0;
    for (size_t i = 0; i < e->n; i++)
        for (size_t j = 0; j < e->nodes[i].ndeps; j++)
            has_out[e->nodes[i].deps[j]] = true;
    for (size_t i = 0; i < e->n; i++)
        n += !has_out[i];
    free(has_out);
    return n;
}

/* True when two copies read and write the same types of memory. */
static bool copy_types_match(const struct cudaMemcpy3DParms *a, const struct cudaMemcpy3DParms *b)
{
    return mem_type_class(a->srcPtr.ptr) == mem_type_class(b->srcPtr.ptr) &&
           mem_type_class(a->dstPtr.ptr) == mem_type_class(b->dstPtr.ptr);
}

/* Whether an updated node's parameters are acceptable (see the top comment). */
static bool params_updatable(const struct enode *old, const struct gnode *nw)
{
    if (nw->type == cudaGraphNodeTypeMemcpy)
        return copy_types_match(&old->w.u.copy.p, &nw->w.u.copy.p);
    if (nw->type == cudaGraphNodeTypeMemset) {
        const struct cudaMemsetParams *a = &old->w.u.set, *b = &nw->w.u.set;
        if (mem_type_class(a->dst) != mem_type_class(b->dst))
            return false;
        if (a->height > 1 || b->height > 1)
            return a->height == b->height && a->width == b->width && a->pitch == b->pitch &&
                   a->elementSize == b->elementSize;
    }
    return true;
}

/* Compares topology, types and parameters; fills info; true if updatable. */
static bool update_check(const struct exec *e, const struct graph *g,
                         cudaGraphExecUpdateResultInfo *info)
{
    struct gnode *exit_node = NULL;
    info->result = cudaGraphExecUpdateErrorTopologyChanged;
    if (g->n != e->n)
        return false;
    if (exit_nodes(g, &exit_node) > exec_exit_nodes(e)) {
        info->errorNode = (cudaGraphNode_t)exit_node;
        return false;
    }
    for (size_t i = 0; i < g->n; i++) {
        const struct gnode *n = g->nodes[i];
        info->errorNode = (cudaGraphNode_t)n;
        if (n->ndeps != e->nodes[i].ndeps)
            return false;
        for (size_t j = 0; j < n->ndeps; j++)
            if (n->deps[j]->index != e->nodes[i].deps[j]) {
                info->errorFromNode = (cudaGraphNode_t)n->deps[j];
                return false;
            }
    }
    for (size_t i = 0; i < g->n; i++) {
        info->errorNode = (cudaGraphNode_t)g->nodes[i];
        if (g->nodes[i]->type != e->nodes[i].type) {
            info->result = cudaGraphExecUpdateErrorNodeTypeChanged;
            return false;
        }
        if (!params_updatable(&e->nodes[i], g->nodes[i])) {
            info->result = cudaGraphExecUpdateErrorParametersChanged;
            return false;
        }
    }
    info->result = cudaGraphExecUpdateSuccess;
    info->errorNode = NULL;
    return true;
}

/* cudaGraphExecUpdate's body. */
static cudaError_t exec_update(cudaGraphExec_t he, cudaGraph_t hg,
                               cudaGraphExecUpdateResultInfo *info)
{
    struct exec *e = NULL;
    struct graph *g = NULL;
    CHECK(!info, cudaErrorInvalidValue);
    memset(info, 0, sizeof *info);
    info->result = cudaGraphExecUpdateError;
    TRY(exec_get(he, &e));
    TRY(graph_get(hg, &g));
    host_cost_graph_update();
    if (!update_check(e, g, info))
        return cudaErrorGraphExecUpdateFailure;
    struct enode *fresh = exec_nodes_from(g);
    exec_nodes_free(e->nodes, e->n);
    e->nodes = fresh;
    return cudaSuccess;
}

/* cudaGraphExecUpdate. */
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph,
                                cudaGraphExecUpdateResultInfo *resultInfo)
{
    API(exec_update(hGraphExec, hGraph, resultInfo));
}

/* The executable node paired with a node of the graph it was instantiated
 * from (nodes of a graph it was later updated from are refused: measured);
 * each lookup is one node update, which costs STANDIN_NODE_PATCH_US. */
static cudaError_t exec_node(cudaGraphExec_t he, cudaGraphNode_t hn, enum cudaGraphNodeType t,
                             struct enode **out, const char *call)
{
    host_cost_node_patch();
    struct exec *e = NULL;
    struct gnode *n = NULL;
    TRY(context_fatal_if_destroyed(exec_get(he, &e), call, "graph executable", he));
    TRY(context_fatal_if_destroyed(node_get(hn, &n), call, "graph node", hn));
    CHECK(n->g->serial != e->graph_serial, cudaErrorInvalidValue);
    CHECK(n->index >= e->n || e->nodes[n->index].type != t, cudaErrorInvalidValue);
    *out = &e->nodes[n->index];
    return cudaSuccess;
}

/* cudaGraphExecKernelNodeSetParams's body: the function may change. */
static cudaError_t exec_kernel_set(cudaGraphExec_t he, cudaGraphNode_t hn,
                                   const struct cudaKernelNodeParams *p, const char *call)
{
    struct enode *en = NULL;
    struct work w;
    TRY(exec_node(he, hn, cudaGraphNodeTypeKernel, &en, call));
    TRY(kernel_params_work(&w, p));
    w.u.kernel.priority = en->w.u.kernel.priority; /* an attribute, not a parameter */
    work_release(&en->w);
    en->w = w;
    return cudaSuccess;
}

/* cudaGraphExecKernelNodeSetParams. */
cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                             const struct cudaKernelNodeParams *pNodeParams)
{
    API(exec_kernel_set(hGraphExec, node, pNodeParams, "cudaGraphExecKernelNodeSetParams"));
}

/* cudaGraphExecMemcpyNodeSetParams1D's body: memory types may not change. */
static cudaError_t exec_memcpy_set_1d(cudaGraphExec_t he, cudaGraphNode_t hn, void *dst,
                                      const void *src, size_t count, enum cudaMemcpyKind kind, const char *call)
{
    struct enode *en = NULL;
    struct cudaMemcpy3DParms p;
    TRY(exec_node(he, hn, cudaGraphNodeTypeMemcpy, &en, call));
    TRY(copy_params_2d(&p, dst, count, src, count, count, 1, kind));
    CHECK(mem_type_class(p.srcPtr.ptr) != en->src_class || mem_type_class(p.dstPtr.ptr) != en->dst_class,
          cudaErrorInvalidValue);
    en->w.u.copy.p = p;
    return cudaSuccess;
}

/* cudaGraphExecMemcpyNodeSetParams1D. */
cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                               void *dst, const void *src, size_t count,
                                               enum cudaMemcpyKind kind)
{
    API(exec_memcpy_set_1d(hGraphExec, node, dst, src, count, kind, "cudaGraphExecMemcpyNodeSetParams1D"));
}

/* cudaGraphExecMemsetNodeSetParams's body. */
static cudaError_t exec_memset_set(cudaGraphExec_t he, cudaGraphNode_t hn,
                                   const struct cudaMemsetParams *p, const char *call)
{
    struct enode *en = NULL;
    CHECK(!p, cudaErrorInvalidValue);
    TRY(exec_node(he, hn, cudaGraphNodeTypeMemset, &en, call));
    TRY(memset_params_check(p));
    CHECK(en->dst_class != mem_type_class(p->dst), cudaErrorInvalidValue);
    en->w.u.set = *p;
    return cudaSuccess;
}

/* cudaGraphExecHostNodeSetParams's body. */
static cudaError_t exec_host_set(cudaGraphExec_t he, cudaGraphNode_t hn, const struct cudaHostNodeParams *p,
                                 const char *call)
{
    struct enode *en = NULL;
    CHECK(!p || !p->fn, cudaErrorInvalidValue);
    TRY(exec_node(he, hn, cudaGraphNodeTypeHost, &en, call));
    en->w.u.host = *p;
    return cudaSuccess;
}

/* cudaGraphExecHostNodeSetParams. */
cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                           const struct cudaHostNodeParams *pNodeParams)
{
    API(exec_host_set(hGraphExec, node, pNodeParams, "cudaGraphExecHostNodeSetParams"));
}

/* cudaGraphExecMemsetNodeSetParams. */
cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                             const struct cudaMemsetParams *pNodeParams)
{
    API(exec_memset_set(hGraphExec, node, pNodeParams, "cudaGraphExecMemsetNodeSetParams"));
}

/* cudaGraphExecEventRecordNodeSetEvent's and cudaGraphExecEventWaitNodeSetEvent's body: the node records
 * (record) or waits for another event from the next launch on. */
static cudaError_t exec_event_set(cudaGraphExec_t he, cudaGraphNode_t hn, cudaEvent_t event, bool record,
                                  const char *call)
{
    struct enode *en = NULL;
    struct event *ev = NULL;
    TRY(exec_node(he, hn, record ? cudaGraphNodeTypeEventRecord : cudaGraphNodeTypeWaitEvent, &en, call));
    TRY(context_fatal_if_destroyed(event_get(event, &ev), call, "event", event));
    en->w.u.event = ev;
    return cudaSuccess;
}

/* cudaGraphExecEventRecordNodeSetEvent. */
cudaError_t cudaGraphExecEventRecordNodeSetEvent(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode, cudaEvent_t event)
{
    API(exec_event_set(hGraphExec, hNode, event, true, "cudaGraphExecEventRecordNodeSetEvent"));
}

/* cudaGraphExecEventWaitNodeSetEvent. */
cudaError_t cudaGraphExecEventWaitNodeSetEvent(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode, cudaEvent_t event)
{
    API(exec_event_set(hGraphExec, hNode, event, false, "cudaGraphExecEventWaitNodeSetEvent"));
}

/* Exec memcpy SetParams with 3-D parameters: memory types may not change (as the 1-D form). */
static cudaError_t exec_memcpy_set(cudaGraphExec_t he, cudaGraphNode_t hn, const struct cudaMemcpy3DParms *p,
                                   const char *call)
{
    struct enode *en = NULL;
    CHECK(!p, cudaErrorInvalidValue);
    TRY(exec_node(he, hn, cudaGraphNodeTypeMemcpy, &en, call));
    TRY(copy_params_check(p));
    CHECK(mem_type_class(p->srcPtr.ptr) != en->src_class || mem_type_class(p->dstPtr.ptr) != en->dst_class,
          cudaErrorInvalidValue);
    en->w.u.copy.p = *p;
    return cudaSuccess;
}

/* An empty node. */
static cudaError_t add_empty_node(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps, size_t n)
{
    struct work w = {.kind = W_NOP};
    return add_node(out, g, deps, n, cudaGraphNodeTypeEmpty, &w);
}

/* A context reset: every graph, node and executable graph becomes a handle of a destroyed context, kept. */
void graphs_context_reset(void)
{
    struct graph *g, *gtmp;
    HASH_ITER(hh, live_graphs, g, gtmp) {
        HASH_DEL(live_graphs, g);
        HASH_ADD_PTR(dead_graphs, self, g);
    }
    struct gnode *n, *ntmp;
    HASH_ITER(hh, live_nodes, n, ntmp) {
        HASH_DEL(live_nodes, n);
        HASH_ADD_PTR(dead_nodes, self, n);
    }
    struct exec *e, *etmp;
    HASH_ITER(hh, live_execs, e, etmp) {
        HASH_DEL(live_execs, e);
        HASH_ADD_PTR(dead_execs, self, e);
    }
}

/* ------------------------------------------------------------ the driver's entries: the same graphs */

cudaError_t standin_driver_graph_create(cudaGraph_t *out, unsigned flags)
{
    DRIVER_CALL(graph_create(out, flags));
}

cudaError_t standin_driver_graph_destroy(cudaGraph_t g)
{
    DRIVER_CALL(graph_destroy(g, "cuGraphDestroy"));
}

cudaError_t standin_driver_add_kernel_node(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
                                           size_t n, const struct cudaKernelNodeParams *p)
{
    DRIVER_CALL(add_kernel_node(out, g, deps, n, p));
}

cudaError_t standin_driver_add_memcpy_node(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
                                           size_t n, const struct cudaMemcpy3DParms *p)
{
    DRIVER_CALL(add_memcpy_node(out, g, deps, n, p));
}

cudaError_t standin_driver_add_memset_node(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
                                           size_t n, const struct cudaMemsetParams *p)
{
    DRIVER_CALL(add_memset_node(out, g, deps, n, p));
}

cudaError_t standin_driver_add_host_node(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
                                         size_t n, const struct cudaHostNodeParams *p)
{
    DRIVER_CALL(add_host_node(out, g, deps, n, p));
}

cudaError_t standin_driver_add_event_node(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
                                          size_t n, cudaEvent_t ev, bool record)
{
    DRIVER_CALL(add_event_node(out, g, deps, n, ev, record));
}

cudaError_t standin_driver_add_empty_node(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
                                          size_t n)
{
    DRIVER_CALL(add_empty_node(out, g, deps, n));
}

cudaError_t standin_driver_add_dependencies(cudaGraph_t g, const cudaGraphNode_t *from, const cudaGraphNode_t *to,
                                           const cudaGraphEdgeData *edges, size_t n)
{
    DRIVER_CALL(add_dependencies(g, from, to, edges, n));
}

cudaError_t standin_driver_get_edges(cudaGraph_t g, cudaGraphNode_t *from, cudaGraphNode_t *to,
                                     cudaGraphEdgeData *edges, size_t *n)
{
    DRIVER_CALL(get_edges(g, from, to, edges, n));
}

cudaError_t standin_driver_node_type(cudaGraphNode_t node, enum cudaGraphNodeType *type)
{
    DRIVER_CALL(node_type_of(node, type));
}

/* A kernel node's priority attribute: read into *get (if not NULL), set to *set (if not NULL). */
cudaError_t standin_driver_node_priority(cudaGraphNode_t node, int *get, const int *set)
{
    DRIVER_CALL(kernel_node_priority(node, get, set));
}

cudaError_t standin_driver_instantiate(cudaGraphExec_t *out, cudaGraph_t g, unsigned long long flags)
{
    DRIVER_CALL(instantiate(out, g, flags, "cuGraphInstantiate"));
}

cudaError_t standin_driver_exec_destroy(cudaGraphExec_t e)
{
    DRIVER_CALL(exec_destroy(e, "cuGraphExecDestroy"));
}

cudaError_t standin_driver_graph_launch(cudaGraphExec_t e, cudaStream_t h, bool ptsz)
{
    DRIVER_CALL(graph_launch(e, h, ptsz, "cuGraphLaunch"));
}

/* cuGraphExecUpdate_v2's body: CUgraphExecUpdateResultInfo is laid out as the runtime's, with its values. */
cudaError_t standin_driver_exec_update(cudaGraphExec_t e, cudaGraph_t g, cudaGraphExecUpdateResultInfo *info)
{
    DRIVER_CALL(exec_update(e, g, info));
}

cudaError_t standin_driver_exec_kernel_set(cudaGraphExec_t e, cudaGraphNode_t node,
                                           const struct cudaKernelNodeParams *p)
{
    DRIVER_CALL(exec_kernel_set(e, node, p, "cuGraphExecKernelNodeSetParams"));
}

cudaError_t standin_driver_exec_memcpy_set(cudaGraphExec_t e, cudaGraphNode_t node,
                                           const struct cudaMemcpy3DParms *p)
{
    DRIVER_CALL(exec_memcpy_set(e, node, p, "cuGraphExecMemcpyNodeSetParams"));
}

cudaError_t standin_driver_exec_memset_set(cudaGraphExec_t e, cudaGraphNode_t node,
                                           const struct cudaMemsetParams *p)
{
    DRIVER_CALL(exec_memset_set(e, node, p, "cuGraphExecMemsetNodeSetParams"));
}

cudaError_t standin_driver_exec_host_set(cudaGraphExec_t e, cudaGraphNode_t node,
                                         const struct cudaHostNodeParams *p)
{
    DRIVER_CALL(exec_host_set(e, node, p, "cuGraphExecHostNodeSetParams"));
}

cudaError_t standin_driver_exec_event_set(cudaGraphExec_t e, cudaGraphNode_t node, cudaEvent_t ev, bool record)
{
    DRIVER_CALL(exec_event_set(e, node, ev, record,
                               record ? "cuGraphExecEventRecordNodeSetEvent" : "cuGraphExecEventWaitNodeSetEvent"));
}
