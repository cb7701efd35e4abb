/* SPDX-License-Identifier: MIT */
/*
 * standin/capture.c: stream capture.
 *
 * A capture owns a graph under construction, its origin stream and every
 * stream that joined it. Each member stream holds the set of nodes its
 * next node will depend on; work on a member becomes a node after that set
 * (nothing runs). A stream joins by waiting on an event recorded in the
 * capture. The rules below were measured on an H200 with CUDA 13.0
 * (tests/conformance.c) where the documentation is silent.
 *
 * Unsafe calls and the three modes (cudaStreamCaptureMode*): cudaMalloc,
 * cudaFree, cudaMallocHost, cudaFreeHost, and synchronising or querying a
 * stream or an event that is not part of the capture, are "potentially
 * unsafe". A thread whose interaction mode (cudaThreadExchangeStreamCaptureMode,
 * global by default) is relaxed may make them. Otherwise they fail with
 * cudaErrorStreamCaptureUnsupported, and invalidate the capture, if the
 * thread has its own non-relaxed capture going, or (thread mode global
 * only) if another thread has a capture begun in global mode.
 *
 * Always invalid, whatever the mode: synchronising or querying a capturing
 * stream (cudaErrorStreamCaptureUnsupported) or an event recorded in an
 * active capture (cudaErrorCapturedEvent); cudaDeviceSynchronize while any
 * capture is active (cudaErrorStreamCaptureUnsupported, measured even in a
 * relaxed capture); any use of the legacy stream while a blocking stream
 * captures (cudaErrorStreamCaptureImplicit, which cudaStreamIsCapturing and
 * cudaStreamGetCaptureInfo on the legacy stream also return, without
 * invalidating); a wait on an event recorded outside the capture
 * (cudaErrorStreamCaptureIsolation) or in another capture
 * (cudaErrorStreamCaptureMerge, both captures invalidated) - a wait on a
 * never-recorded event is a no-op; a launch refused for its configuration
 * (cudaErrorInvalidValue);
 * cudaStreamAddCallback and cudaGraphLaunch into a capturing stream
 * (cudaErrorStreamCaptureUnsupported). Each of these invalidates the
 * capture: every later call that adds work to one of its streams fails with
 * cudaErrorStreamCaptureInvalidated, and cudaStreamEndCapture ends it with
 * that error and no graph.
 *
 * cudaStreamEndCapture: cudaErrorIllegalState when the stream does not
 * capture; cudaErrorStreamCaptureUnmatched on a joined stream (the capture
 * is invalidated); cudaErrorStreamCaptureWrongThread from another thread
 * unless relaxed (the capture ends, no graph); cudaErrorStreamCaptureUnjoined
 * when a joined stream has work the origin does not wait for (the capture
 * ends, no graph). A NULL graph pointer ends the capture and drops it.
 */
#include <stdlib.h>
#include <string.h>

#include "standin.h"

static struct capture *active;          /* active captures, by id */
static unsigned long long next_capture_id = 1;
static __thread enum cudaStreamCaptureMode thread_mode = cudaStreamCaptureModeGlobal;

/* Finds an active capture by id. */
struct capture *capture_find(unsigned long long id)
{
    struct capture *c = NULL;
    if (id == 0)
        return NULL;
    HASH_FIND(hh, active, &id, sizeof id, c);
    return c;
}

/* Marks a capture invalidated. */
void capture_invalidate(struct capture *c)
{
    c->invalidated = true;
}

/* Sets s's dependency set to a copy of deps. */
static void set_deps(struct stream *s, struct gnode *const *deps, size_t n)
{
    if (n > s->capdeps) {
        s->capdeps = n;
        s->deps = xrealloc(s->deps, n * sizeof *s->deps);
    }
    if (n)
        memcpy(s->deps, deps, n * sizeof *deps);
    s->ndeps = n;
}

/* Adds node n to s's dependency set unless it is there already. */
static void deps_add(struct stream *s, struct gnode *n)
{
    for (size_t j = 0; j < s->ndeps; j++)
        if (s->deps[j] == n)
            return;
    if (s->ndeps == s->capdeps) {
        s->capdeps = s->capdeps * 2 + 4;
        s->deps = xrealloc(s->deps, s->capdeps * sizeof *s->deps);
    }
    s->deps[s->ndeps++] = n;
}

/* Graph node type of a work item. */
static enum cudaGraphNodeType node_type(enum work_kind k)
{
    switch (k) {
    case W_KERNEL: return cudaGraphNodeTypeKernel;
    case W_COPY: return cudaGraphNodeTypeMemcpy;
    case W_SET: return cudaGraphNodeTypeMemset;
    case W_HOST: return cudaGraphNodeTypeHost;
    case W_EVENT_RECORD: return cudaGraphNodeTypeEventRecord;
    case W_EVENT_WAIT: return cudaGraphNodeTypeWaitEvent;
    case W_MEM_ALLOC: return cudaGraphNodeTypeMemAlloc;
    case W_MEM_FREE: return cudaGraphNodeTypeMemFree;
    default: return cudaGraphNodeTypeEmpty;
    }
}

/* Adds w as a node of s's capture, after s's dependency set (takes w). */
cudaError_t capture_add(struct stream *s, struct work *w)
{
    if (s->cap->invalidated) {
        work_release(w);
        return cudaErrorStreamCaptureInvalidated;
    }
    struct gnode *n = graph_add(s->cap->graph, node_type(w->kind), w, s->deps, s->ndeps);
    set_deps(s, &n, 1);
    return cudaSuccess;
}

/* Detaches every member stream and forgets the capture (graph kept if keep). */
static struct graph *capture_finish(struct capture *c, bool keep)
{
    struct graph *g = c->graph;
    for (size_t i = 0; i < c->nmembers; i++) {
        c->members[i]->cap = NULL;
        c->members[i]->ndeps = 0;
    }
    HASH_DEL(active, c);
    free(c->members);
    free(c);
    if (!keep) {
        graph_free(g);
        g = NULL;
    }
    return g;
}

/* A call that adds work to s failed with e: a capture of s breaks too
 * (measured for a bad launch configuration; assumed for copies and memsets). */
cudaError_t capture_fail(struct stream *s, cudaError_t e)
{
    if (s->cap)
        capture_invalidate(s->cap);
    return e;
}

/* Takes a destroyed stream out of its capture: the origin ends it. */
void capture_forget_stream(struct stream *s)
{
    struct capture *c = s->cap;
    if (!c)
        return;
    if (s == c->origin) {
        capture_finish(c, false);
        return;
    }
    for (size_t i = 0; i < c->nmembers; i++)
        if (c->members[i] == s)
            c->members[i] = c->members[--c->nmembers];
    s->cap = NULL;
    capture_invalidate(c);
}

/* The unsafe-call rule of the calling thread's interaction mode. */
cudaError_t capture_check_unsafe(void)
{
    bool prohibited = false;
    pthread_t self = pthread_self();
    if (thread_mode == cudaStreamCaptureModeRelaxed)
        return cudaSuccess;
    for (struct capture *c = active; c; c = c->hh.next) {
        bool mine = pthread_equal(c->thread, self);
        /* Unsure: a thread mode outside the enum (accepted by CUDA) is
         * treated as global. */
        bool global_thread = thread_mode != cudaStreamCaptureModeThreadLocal;
        if ((mine && c->mode != cudaStreamCaptureModeRelaxed) ||
            (!mine && global_thread && c->mode == cudaStreamCaptureModeGlobal)) {
            capture_invalidate(c);
            prohibited = true;
        }
    }
    return prohibited ? cudaErrorStreamCaptureUnsupported : cudaSuccess;
}

/* True when a blocking stream takes part in capture c. */
static bool capture_has_blocking(const struct capture *c)
{
    for (size_t i = 0; i < c->nmembers; i++)
        if (stream_is_blocking(c->members[i]))
            return true;
    return false;
}

/* True when some blocking stream is capturing. */
bool capture_blocking_active(void)
{
    for (struct capture *c = active; c; c = c->hh.next)
        if (capture_has_blocking(c))
            return true;
    return false;
}

/* The legacy stream is about to be used. */
cudaError_t capture_check_legacy(void)
{
    bool implicit = false;
    for (struct capture *c = active; c; c = c->hh.next)
        if (capture_has_blocking(c)) {
            capture_invalidate(c);
            implicit = true;
        }
    return implicit ? cudaErrorStreamCaptureImplicit : cudaSuccess;
}

/* A host wait for s: invalid while s captures. */
cudaError_t capture_check_stream_sync(struct stream *s)
{
    if (!s->cap)
        return cudaSuccess;
    capture_invalidate(s->cap);
    return cudaErrorStreamCaptureUnsupported;
}

/* A host wait for ev: invalid while ev's capture runs, and after it. */
cudaError_t capture_check_event_sync(struct event *ev)
{
    if (!ev->cap_id)
        return cudaSuccess;
    struct capture *c = capture_find(ev->cap_id);
    if (!c)
        return cudaErrorInvalidValue;
    capture_invalidate(c);
    return cudaErrorCapturedEvent;
}

/* A device-wide wait: invalid while any capture is active. */
cudaError_t capture_check_device_sync(void)
{
    bool any = false;
    for (struct capture *c = active; c; c = c->hh.next) {
        capture_invalidate(c);
        any = true;
    }
    return any ? cudaErrorStreamCaptureUnsupported : cudaSuccess;
}

/* Adds a stream to a capture's members. */
static void capture_join(struct capture *c, struct stream *s)
{
    ptr_push((void ***)&c->members, &c->nmembers, &c->capmembers, s);
    s->cap = c;
    s->ndeps = 0;
}

/* cudaStreamWaitEvent's capture cases; *handled when nothing else to do. */
cudaError_t capture_wait_event(struct stream *s, struct event *ev, bool *handled)
{
    *handled = false;
    if (!ev->cap_id) {
        if (!s->cap)
            return cudaSuccess;
        *handled = true;
        CHECK(s->cap->invalidated, cudaErrorStreamCaptureInvalidated);
        if (!ev->recorded)
            return cudaSuccess;     /* never recorded: nothing to wait for (measured) */
        capture_invalidate(s->cap);
        return cudaErrorStreamCaptureIsolation;
    }
    *handled = true;
    struct capture *c = capture_find(ev->cap_id);
    if (!c) {
        /* Recorded in a capture that has ended (measured). */
        if (s->cap)
            capture_invalidate(s->cap);
        return cudaErrorInvalidValue;
    }
    if (s->cap && s->cap != c) {
        capture_invalidate(s->cap);
        capture_invalidate(c);
        return cudaErrorStreamCaptureMerge;
    }
    CHECK(c->invalidated, cudaErrorStreamCaptureInvalidated);
    if (s == stream_legacy()) {
        /* Unsure: the legacy stream cannot take part in a capture. */
        capture_invalidate(c);
        return cudaErrorStreamCaptureImplicit;
    }
    if (!s->cap) {
        capture_join(c, s);
        set_deps(s, ev->deps, ev->ndeps);
        return cudaSuccess;
    }
    for (size_t i = 0; i < ev->ndeps; i++)
        deps_add(s, ev->deps[i]);
    return cudaSuccess;
}

/* Records ev inside s's capture: the event remembers s's dependency set. */
void capture_record_event(struct stream *s, struct event *ev)
{
    ev->cap_id = s->cap->id;
    ev->deps = xrealloc(ev->deps, (s->ndeps ? s->ndeps : 1) * sizeof *ev->deps);
    if (s->ndeps)
        memcpy(ev->deps, s->deps, s->ndeps * sizeof *s->deps);
    ev->ndeps = s->ndeps;
}

/* Starts capturing on a stream. */
static cudaError_t begin_capture(cudaStream_t h, enum cudaStreamCaptureMode mode, bool ptsz)
{
    struct stream *s = NULL;
    TRY(stream_get(h, ptsz, &s));
    CHECK(s == stream_legacy(), cudaErrorStreamCaptureUnsupported);
    CHECK((unsigned)mode > cudaStreamCaptureModeRelaxed, cudaErrorInvalidValue);
    CHECK(s->cap != NULL, cudaErrorIllegalState);
    struct capture *c = xcalloc(1, sizeof *c);
    c->id = next_capture_id++;
    c->mode = mode;
    c->thread = pthread_self();
    c->graph = graph_new();
    c->origin = s;
    HASH_ADD(hh, active, id, sizeof c->id, c);
    capture_join(c, s);
    return cudaSuccess;
}

/* cudaStreamBeginCapture. */
cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode)
{
    API(begin_capture(stream, mode, false));
}

/* cudaStreamBeginCapture, per-thread default stream flavour. */
cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t stream, enum cudaStreamCaptureMode mode)
{
    API(begin_capture(stream, mode, true));
}

/* True when every joined stream's work reaches the origin's dependency set. */
static bool capture_joined(const struct capture *c)
{
    const struct stream *o = c->origin;
    for (size_t i = 0; i < c->nmembers; i++) {
        const struct stream *m = c->members[i];
        if (m == o)
            continue;
        for (size_t j = 0; j < m->ndeps; j++) {
            bool reached = false;
            for (size_t k = 0; k < o->ndeps && !reached; k++)
                reached = graph_reaches(m->deps[j], o->deps[k]);
            if (!reached)
                return false;
        }
    }
    return true;
}

/* Ends a capture on its origin stream. */
static cudaError_t end_capture(cudaStream_t h, cudaGraph_t *out, bool ptsz)
{
    struct stream *s = NULL;
    TRY(stream_get(h, ptsz, &s));
    if (out)
        *out = NULL;
    CHECK(!s->cap, cudaErrorIllegalState);
    struct capture *c = s->cap;
    if (s != c->origin) {
        capture_invalidate(c);
        return cudaErrorStreamCaptureUnmatched;
    }
    if (c->mode != cudaStreamCaptureModeRelaxed && !pthread_equal(c->thread, pthread_self())) {
        capture_finish(c, false);
        return cudaErrorStreamCaptureWrongThread;
    }
    if (c->invalidated) {
        capture_finish(c, false);
        return cudaErrorStreamCaptureInvalidated;
    }
    if (!capture_joined(c)) {
        capture_finish(c, false);
        return cudaErrorStreamCaptureUnjoined;
    }
    struct graph *g = capture_finish(c, out != NULL);
    if (out)
        *out = (cudaGraph_t)g;
    return cudaSuccess;
}

/* cudaStreamEndCapture. */
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph)
{
    API(end_capture(stream, pGraph, false));
}

/* cudaStreamEndCapture, per-thread default stream flavour. */
cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t stream, cudaGraph_t *pGraph)
{
    API(end_capture(stream, pGraph, true));
}

/* Capture status of a stream (legacy: Implicit while a blocking stream captures). */
static cudaError_t capture_status(struct stream *s, enum cudaStreamCaptureStatus *st)
{
    if (s == stream_legacy()) {
        CHECK(capture_blocking_active(), cudaErrorStreamCaptureImplicit);
        *st = cudaStreamCaptureStatusNone;
    } else if (!s->cap) {
        *st = cudaStreamCaptureStatusNone;
    } else {
        *st = s->cap->invalidated ? cudaStreamCaptureStatusInvalidated
                                  : cudaStreamCaptureStatusActive;
    }
    return cudaSuccess;
}

/* cudaStreamIsCapturing's body. */
static cudaError_t is_capturing(cudaStream_t h, enum cudaStreamCaptureStatus *st, bool ptsz)
{
    struct stream *s = NULL;
    CHECK(!st, cudaErrorInvalidValue);
    TRY(stream_get(h, ptsz, &s));
    return capture_status(s, st);
}

/* cudaStreamIsCapturing. */
cudaError_t cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus *pCaptureStatus)
{
    API(is_capturing(stream, pCaptureStatus, false));
}

/* cudaStreamIsCapturing, per-thread default stream flavour. */
cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t stream,
                                       enum cudaStreamCaptureStatus *pCaptureStatus)
{
    API(is_capturing(stream, pCaptureStatus, true));
}

/* Zeroed edge data, one per dependency, for cudaStreamGetCaptureInfo. */
static const cudaGraphEdgeData *zero_edges(size_t n)
{
    static cudaGraphEdgeData *edges;
    static size_t cap;
    if (n > cap) {
        cap = n;
        edges = xrealloc(edges, cap * sizeof *edges);
    }
    if (n)
        memset(edges, 0, n * sizeof *edges);
    return edges;
}

/* cudaStreamGetCaptureInfo's body (CUDA 13 signature). */
cudaError_t capture_info(cudaStream_t h, enum cudaStreamCaptureStatus *st,
                                unsigned long long *id, cudaGraph_t *graph,
                                const cudaGraphNode_t **deps, const cudaGraphEdgeData **edges,
                                size_t *ndeps, bool ptsz)
{
    struct stream *s = NULL;
    CHECK(!st, cudaErrorInvalidValue);
    CHECK(edges && !deps, cudaErrorInvalidValue);
    TRY(stream_get(h, ptsz, &s));
    TRY(capture_status(s, st));
    if (*st != cudaStreamCaptureStatusActive)
        return cudaSuccess;
    if (id)
        *id = s->cap->id;
    if (graph)
        *graph = (cudaGraph_t)s->cap->graph;
    if (deps)
        *deps = (const cudaGraphNode_t *)s->deps;
    if (edges)
        *edges = zero_edges(s->ndeps);
    if (ndeps)
        *ndeps = s->ndeps;
    return cudaSuccess;
}

/* cudaStreamGetCaptureInfo. */
cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream,
                                     enum cudaStreamCaptureStatus *captureStatus_out,
                                     unsigned long long *id_out, cudaGraph_t *graph_out,
                                     const cudaGraphNode_t **dependencies_out,
                                     const cudaGraphEdgeData **edgeData_out,
                                     size_t *numDependencies_out)
{
    API(capture_info(stream, captureStatus_out, id_out, graph_out, dependencies_out,
                     edgeData_out, numDependencies_out, false));
}

/* cudaStreamGetCaptureInfo, per-thread default stream flavour. */
cudaError_t cudaStreamGetCaptureInfo_ptsz(cudaStream_t stream,
                                          enum cudaStreamCaptureStatus *captureStatus_out,
                                          unsigned long long *id_out, cudaGraph_t *graph_out,
                                          const cudaGraphNode_t **dependencies_out,
                                          const cudaGraphEdgeData **edgeData_out,
                                          size_t *numDependencies_out)
{
    API(capture_info(stream, captureStatus_out, id_out, graph_out, dependencies_out,
                     edgeData_out, numDependencies_out, true));
}

/* Swaps the calling thread's interaction mode (any value is accepted, as on the H200). */
static cudaError_t exchange_mode(enum cudaStreamCaptureMode *mode)
{
    CHECK(!mode, cudaErrorInvalidValue);
    enum cudaStreamCaptureMode old = thread_mode;
    thread_mode = *mode;
    *mode = old;
    return cudaSuccess;
}

/* cudaThreadExchangeStreamCaptureMode. */
cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode)
{
    API(exchange_mode(mode));
}

/* cuStreamBeginCapture_v2's body: the runtime's, same modes (CUstreamCaptureMode has their values). */
cudaError_t standin_driver_begin_capture(cudaStream_t h, enum cudaStreamCaptureMode mode, bool ptsz)
{
    DRIVER_CALL(begin_capture(h, mode, ptsz));
}

/* cuStreamEndCapture's body: the runtime's, the same graph and errors. */
cudaError_t standin_driver_end_capture(cudaStream_t h, cudaGraph_t *out, bool ptsz)
{
    DRIVER_CALL(end_capture(h, out, ptsz));
}
