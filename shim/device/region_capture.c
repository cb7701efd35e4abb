/* SPDX-License-Identifier: MIT */
/*
 * The robust path: a region re-captured from the program's own calls each
 * time, applied with cudaGraphExecUpdate.
 *
 * The fast path (region_graph.c) holds calls back and launches a graph built
 * once; that is only safe when the shim sees every piece of work on the
 * region's streams.  Here every call is forwarded as it arrives, into a
 * relaxed-mode capture of the region's streams, so work the shim cannot see
 * (a library launching through the driver API) lands in the same capture,
 * in the program's order, instead of running early.  At the region's end the
 * capture becomes a graph that updates the region's executable graph (or a
 * new one is instantiated when the update is refused) and is launched.
 *
 * The shim's own calls here (the capture begun and ended, the graph updated
 * and launched, the joins, the staging buffer) go through libcuda like the
 * rest of the back end: a program built with the static runtime has no
 * runtime the shim could call, and a driver call leaves the runtime's last
 * error alone.  The program's calls forwarded into the capture go through
 * the door they came by (held_forward): a runtime call through the
 * runtime, whose error state is the program's.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "errors.h"
#include "graph_step.h"
#include "libcuda.h"
#include "owed_records.h"
#include "region_capture.h"
#include "stream_order.h"

struct region_capture {
    cudaGraphExec_t exec;
    cudaEvent_t waited[CAPTURE_EVENTS_MAX]; /* the program events exec's wait nodes name (the last capture's) */
    unsigned waited_count;
    bool waited_all;                        /* more than waited holds: take it to name any event */
};

/* Whether libcuda has what the robust path captures with, beyond what the fast path uses; else *missing names it. */
bool capture_supported(const char **missing)
{
    static const struct {
        enum device_fn_id id;
        const char *name;
    } needed[] = {
        {DEVICE_ID_cuStreamBeginCapture_v2, "cuStreamBeginCapture_v2"},
        {DEVICE_ID_cuStreamEndCapture, "cuStreamEndCapture"},
        {DEVICE_ID_cuGraphExecUpdate_v2, "cuGraphExecUpdate_v2"},
        {DEVICE_ID_cuMemcpyAsync, "cuMemcpyAsync"},
    };
    for (unsigned i = 0; i < sizeof needed / sizeof *needed; i++)
        if (libcuda_device_fn(needed[i].id) == NULL) {
            *missing = needed[i].name;
            return false;
        }
    return true;
}

/* Whether a region starting on this stream can be captured: not the legacy or per-thread default stream. */
bool capture_stream_eligible(cudaStream_t stream)
{
    return stream != cudaStreamLegacy && stream != cudaStreamPerThread && stream != NULL;
}

/*
 * Readies the staging buffer for a new capture: the previous launch that
 * read it must be done (as an eager copy from pageable memory would be
 * before returning), and it grows to what the last capture needed.
 */
static CUresult prepare_staging(struct capture_session *s)
{
    CUresult err = CUDA_SUCCESS;
    if (s->staging_in_flight) {
        err = DEVICE_CALL(cuEventSynchronize, s->staging_free);
        s->staging_in_flight = false;
    }
    s->staging_used = 0;
    if (err != CUDA_SUCCESS || s->staging_needed <= s->staging_size)
        return err;
    if (s->staging)
        (void)DEVICE_CALL(cuMemFreeHost, s->staging);
    s->staging = NULL;
    s->staging_size = 0;
    err = DEVICE_CALL(cuMemAllocHost_v2, (void **)&s->staging, s->staging_needed);
    if (err == CUDA_SUCCESS)
        s->staging_size = s->staging_needed;
    if (err == CUDA_SUCCESS)
        err = private_event(&s->staging_free);
    return err;
}

/* Starts a relaxed-mode capture on origin, which the program cannot see, with room to stage staging_bytes. */
CUresult capture_begin(struct capture_session *s, cudaStream_t origin, size_t staging_bytes)
{
    if (s->staging_needed < staging_bytes)
        s->staging_needed = staging_bytes;
    /* Relaxed: the program's other calls (on this thread or others) stay legal while the shim captures. */
    CUresult err = prepare_staging(s);
    if (err == CUDA_SUCCESS)
        err = private_event(&s->fork);
    owed_waits_settle(origin); /* outside the capture: a wait it owes a fast-path graph */
    owed_records_settle(origin, NULL); /* and the records owed there */
    /* And those owed on the legacy stream, which a direct call inside the capture could settle: made while a
       blocking stream captures, a record there would invalidate the capture (found by tests/owed_waits.sh). */
    owed_records_settle(cudaStreamLegacy, NULL);
    if (err == CUDA_SUCCESS)
        err = DEVICE_CALL(cuStreamBeginCapture_v2, origin, CU_STREAM_CAPTURE_MODE_RELAXED);
    /* Recorded before anything is captured: a stream that waits for it joins the capture with no dependency. */
    if (err == CUDA_SUCCESS && (err = DEVICE_CALL(cuEventRecord, s->fork, origin)) != CUDA_SUCCESS) {
        CUgraph empty = NULL;
        (void)DEVICE_CALL(cuStreamEndCapture, origin, &empty);
        if (empty)
            (void)DEVICE_CALL(cuGraphDestroy, empty);
    }
    if (err != CUDA_SUCCESS)
        return err;
    s->active = true;
    s->streams[0] = origin;
    s->stream_count = 1;
    s->event_count = 0;
    s->waited_count = 0;
    s->waited_all = false;
    return CUDA_SUCCESS;
}

/* Whether stream takes part in the capture. */
bool capture_holds(const struct capture_session *s, cudaStream_t stream)
{
    for (unsigned i = 0; i < s->stream_count; i++)
        if (s->streams[i] == stream)
            return true;
    return false;
}

/* Whether event is among events[0..count). */
static bool among(const cudaEvent_t *events, unsigned count, cudaEvent_t event)
{
    for (unsigned i = 0; i < count; i++)
        if (events[i] == event)
            return true;
    return false;
}

/* Whether event was recorded inside the capture. */
static bool recorded_inside(const struct capture_session *s, cudaEvent_t event)
{
    return among(s->events, s->event_count, event);
}

/* Whether c can be forwarded into the capture (see region_capture.h); if not, *why says why. */
bool capture_admits(struct capture_session *s, const struct call *c, bool pageable_source, const char **why)
{
    if (!capture_stream_eligible(c->stream)) {
        *why = "the legacy or per-thread default stream cannot take part in a capture";
        return false;
    }
    size_t staging_after = s->staging_used + align16(c->bytes);
    if (pageable_source && staging_after > s->staging_size) {
        if (s->staging_needed < staging_after)
            s->staging_needed = staging_after;
        *why = "the staging buffer for pageable copies is too small (it grows for the next time)";
        return false;
    }
    if (c->kind == CALL_EVENT_RECORD && !recorded_inside(s, c->event) && s->event_count == CAPTURE_EVENTS_MAX) {
        *why = "too many events recorded in one region";
        return false;
    }
    if (!capture_holds(s, c->stream) && s->stream_count == CAPTURE_STREAMS_MAX) {
        *why = "too many streams in one region";
        return false;
    }
    return true;
}

/* Makes stream take part in the capture, joining it at its start: no order is added, none lost. */
CUresult capture_join(struct capture_session *s, cudaStream_t stream)
{
    if (capture_holds(s, stream))
        return CUDA_SUCCESS;
    if (s->stream_count == CAPTURE_STREAMS_MAX)
        return CUDA_ERROR_NOT_SUPPORTED;
    CUresult err = DEVICE_CALL(cuStreamWaitEvent, stream, s->fork, 0);
    if (err == CUDA_SUCCESS)
        s->streams[s->stream_count++] = stream;
    return err;
}

/*
 * Forwards a recorded call into the capture and notes what it adds to it;
 * returns what CUDA says (a driver call's CUresult as held_forward gives
 * it: the codes both doors share agree).  The two calls the shim changes
 * (a wait made external, a copy from the staging buffer) go through libcuda:
 * should one fail, the caller makes the program's call again as it was made.
 */
cudaError_t capture_forward(struct capture_session *s, const struct held_list *list, const struct held_call *r)
{
    const struct call *c = &r->call;
    cudaError_t err;
    if (!capture_holds(s, c->stream)) {
        owed_waits_settle(c->stream); /* before it joins the capture: a wait it owes a fast-path graph */
        owed_records_settle(c->stream, NULL); /* and the records owed there */
    }
    bool joins_by_itself = c->kind == CALL_EVENT_WAIT && recorded_inside(s, c->event);
    if (!joins_by_itself && (err = (cudaError_t)capture_join(s, c->stream)) != cudaSuccess)
        return err;
    if (c->kind == CALL_EVENT_WAIT && !joins_by_itself) {
        /* An event recorded before the capture: a wait node keeps the dependency (on its owed record). */
        owed_records_settle(NULL, c->event);
        /* A node names it: its end must end the graph first (past the list's room, any event's end does). */
        if (!among(s->waited, s->waited_count, c->event)) {
            if (s->waited_count < CAPTURE_EVENTS_MAX)
                s->waited[s->waited_count++] = c->event;
            else
                s->waited_all = true;
        }
        return (cudaError_t)DEVICE_CALL(cuStreamWaitEvent, c->stream, c->event, c->flags | CU_EVENT_WAIT_EXTERNAL);
    }
    if (r->staged) {
        /* From pinned memory, with unified addressing: cuMemcpyAsync tells the direction from the pointers. */
        unsigned char *copy = s->staging + s->staging_used;
        memcpy(copy, held_bytes(list, r), c->bytes);
        s->staging_used += align16(c->bytes);
        return (cudaError_t)DEVICE_CALL(cuMemcpyAsync, (CUdeviceptr)(uintptr_t)c->dst, (CUdeviceptr)(uintptr_t)copy,
                                        c->bytes, c->stream);
    }
    err = held_forward(list, r, cudaStreamPerThread);
    if (err != cudaSuccess)
        return err;
    if (joins_by_itself && !capture_holds(s, c->stream))
        s->streams[s->stream_count++] = c->stream; /* it joined the capture */
    if (c->kind == CALL_EVENT_RECORD && !recorded_inside(s, c->event))
        s->events[s->event_count++] = c->event;
    return cudaSuccess;
}

/*
 * Makes the origin wait for every other stream's work so far: inside the
 * capture (the join cudaStreamEndCapture requires), and again after it,
 * before the launch (their earlier work, which the graph must follow).
 */
static CUresult join_others_to_origin(struct capture_session *s)
{
    return streams_join_first(s->streams, s->stream_count, s->joins);
}

/* An executable graph for graph: rc's updated in place if it accepts it, else a new one; NULL on failure. */
static cudaGraphExec_t executable_for(struct region_capture *rc, cudaGraph_t graph, enum capture_outcome *outcome,
                                      CUresult *error)
{
    if (rc && rc->exec) {
        CUgraphExecUpdateResultInfo info;
        if (DEVICE_CALL(cuGraphExecUpdate_v2, rc->exec, graph, &info) == CUDA_SUCCESS) {
            *outcome = CAPTURE_UPDATED;
            return rc->exec;
        }
        (void)DEVICE_CALL(cuGraphExecDestroy, rc->exec);
        rc->exec = NULL;
    }
    cudaGraphExec_t exec = NULL;
    /* Its kernel nodes run at the priorities the capture gave them (their launches', else their streams'). */
    *error = DEVICE_CALL(cuGraphInstantiateWithFlags, &exec, graph, CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY);
    if (*error != CUDA_SUCCESS)
        return NULL;
    *outcome = CAPTURE_INSTANTIATED;
    if (rc)
        rc->exec = exec;
    return exec;
}

/*
 * Launches exec on the origin after the other streams' earlier work, then
 * orders the other streams' later work after it.  The program's events
 * recorded inside the capture are recorded again after the launch: an event
 * recorded in a capture is unusable afterwards until it is recorded outside
 * one, and after the whole graph is a point no earlier than the original.
 */
static CUresult launch_in_order(struct capture_session *s, cudaGraphExec_t exec, bool *launched)
{
    CUresult err;
    *launched = false;
    err = join_others_to_origin(s);
    if (err == CUDA_SUCCESS)
        err = DEVICE_CALL(cuGraphLaunch, exec, s->streams[0]);
    if (err != CUDA_SUCCESS)
        return err;
    *launched = true;
    if (s->staging_used) {
        err = DEVICE_CALL(cuEventRecord, s->staging_free, s->streams[0]);
        s->staging_in_flight = err == CUDA_SUCCESS;
    }
    if (err == CUDA_SUCCESS)
        err = streams_follow_first(s->streams, s->stream_count, &s->after);
    for (unsigned i = 0; i < s->event_count && err == CUDA_SUCCESS; i++)
        err = DEVICE_CALL(cuEventRecord, s->events[i], s->streams[0]);
    return err;
}

/* Ends the capture and runs what it holds in the program's order (see region_capture.h). */
enum capture_outcome capture_finish(struct capture_session *s, struct region_capture **rc, bool keep,
                                    const struct held_list *list, CUresult *error, CUresult *owed)
{
    enum capture_outcome outcome = CAPTURE_RESUBMITTED;
    cudaGraph_t graph = NULL;
    *owed = CUDA_SUCCESS;
    graph_step_set(GRAPH_STEP_CAPTURE);
    *error = join_others_to_origin(s);
    CUresult end = DEVICE_CALL(cuStreamEndCapture, s->streams[0], &graph);
    s->active = false;
    if (*error == CUDA_SUCCESS)
        *error = end;
    if (keep && *rc == NULL)
        *rc = calloc(1, sizeof **rc);
    keep = keep && *rc != NULL; /* out of memory: run it once all the same */
    cudaGraphExec_t exec = NULL;
    bool launched = false;
    if (end == CUDA_SUCCESS && graph != NULL) {
        exec = executable_for(keep ? *rc : NULL, graph, &outcome, error);
        if (exec && keep) {
            memcpy((*rc)->waited, s->waited, sizeof *s->waited * s->waited_count);
            (*rc)->waited_count = s->waited_count;
            (*rc)->waited_all = s->waited_all;
        }
        if (exec) {
            CUresult err = launch_in_order(s, exec, &launched);
            if (*error == CUDA_SUCCESS)
                *error = err;
        }
    }
    if (!launched) {
        /* The capture's work is lost: the calls the shim saw run one by one, each through its own door.  Their
           runtime errors are owed to the program's cudaGetLastError, not left to whichever thread submits them. */
        struct saved_error saved;
        errors_save(&saved);
        cudaError_t runtime_error = held_forward_all(list, cudaStreamPerThread, owed);
        errors_restore(&saved);
        errors_owe(runtime_error);
        outcome = CAPTURE_RESUBMITTED;
    }
    if (exec && !keep)
        (void)DEVICE_CALL(cuGraphExecDestroy, exec);
    if (graph)
        (void)DEVICE_CALL(cuGraphDestroy, graph);
    /* Launched: the work is submitted, only the ordering around it failed.  Owe the error rather than resubmit:
       to the runtime's last error and to the next wait through the driver, whichever the program looks at. */
    if (launched && *error != CUDA_SUCCESS) {
        errors_owe((cudaError_t)*error);
        *owed = *error;
    }
    graph_step_set(GRAPH_STEP_NONE);
    return outcome;
}

/* Before a program event is destroyed: whether rc's executable graph has a wait node for it. */
bool region_capture_names_event(const struct region_capture *rc, cudaEvent_t event)
{
    return rc && rc->exec && (rc->waited_all || among(rc->waited, rc->waited_count, event));
}

/* Destroys a region's robust-path graph. */
void region_capture_destroy(struct region_capture *rc)
{
    if (rc == NULL)
        return;
    if (rc->exec)
        (void)DEVICE_CALL(cuGraphExecDestroy, rc->exec);
    free(rc);
}

/* Frees a session's private events (at exit). */
void capture_session_fini(struct capture_session *s)
{
    for (unsigned i = 0; i < CAPTURE_STREAMS_MAX; i++) {
        private_event_destroy(s->joins[i]);
        s->joins[i] = NULL;
    }
    cudaEvent_t *own[] = {&s->after, &s->fork, &s->staging_free};
    if (s->staging_in_flight)
        (void)DEVICE_CALL(cuEventSynchronize, s->staging_free);
    for (unsigned i = 0; i < sizeof own / sizeof *own; i++) {
        private_event_destroy(*own[i]);
        *own[i] = NULL;
    }
    if (s->staging)
        (void)DEVICE_CALL(cuMemFreeHost, s->staging);
    s->staging = NULL;
}
