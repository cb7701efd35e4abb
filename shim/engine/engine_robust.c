/* SPDX-License-Identifier: MIT */
/* The robust path: a region's calls forwarded into a capture of its streams, and the capture ended, updated and launched. */
#include "config.h"

#include <stdio.h>

#include "engine_internal.h"
#include "libcuda.h"
#include "log.h"
#include "shim.h"
#include "trace.h"

/*
 * Ends t's robust-path capture and runs what it holds (see capture_finish),
 * in t's context (another thread may end it); nothing is pending after.
 */
static enum capture_outcome end_capture(struct tracker *t, struct region_capture **rc, bool keep, CUresult *error)
{
    CUcontext previous;
    bool switched = enter_context_of(t, &previous);
    CUresult owed;
    enum capture_outcome outcome = capture_finish(&t->capture, rc, keep, &t->records, error, &owed);
    libcuda_context_leave(switched, previous);
    owe_driver_error_to(t, owed);
    atomic_fetch_sub(&shim_captures, 1);
    set_pending(t, false);
    return outcome;
}

/* Ends a robust-path capture early: runs what it holds once, in order (logged if the capture was lost). */
void release_capture(struct tracker *t)
{
    struct region_capture *none = NULL;
    CUresult error;
    enum capture_outcome outcome = end_capture(t, &none, false, &error);
    if (outcome == CAPTURE_RESUBMITTED) {
        char who[256];
        if (unseen_work_possible(who, sizeof who))
            log_warn("a capture of the robust path was lost (%s): the %u calls the shim saw were submitted one by "
                     "one; work that %s submitted into that capture did not run",
                     libcuda_error_name(error), t->records.count, who);
        else
            log_info("a capture of the robust path was lost (%s): its %u calls were submitted one by one",
                     libcuda_error_name(error), t->records.count);
    }
}

/* Ends the capture of a complete occurrence on the robust path: update (or make) the graph, launch it; true if so. */
bool finish_recapture(struct tracker *t)
{
    struct region *r = t->region;
    bool first = r->graph == NULL;
    struct region_capture *rc = r->graph;
    CUresult error;
    enum capture_outcome outcome = end_capture(t, &rc, true, &error);
    if (first && outcome != CAPTURE_RESUBMITTED) {
        log_info("region %u: graph captured on the robust path (%u calls re-captured each time, applied with "
                 "cuGraphExecUpdate)",
                 r->id, r->length);
        /* Its node count is the capture's, which holds work the shim did not see: give the calls it saw. */
        trace_event("graph_built", "\"region\":%u,\"calls\":%u,\"streams\":%u,\"path\":\"robust\"", r->id,
                    r->length, t->capture.stream_count);
        keep_graph(t, r, rc, true);
    } else if (first) {
        region_capture_destroy(rc);
    }
    if (outcome == CAPTURE_RESUBMITTED) {
        regions_failed(&t->table, r, FALLBACK_GRAPH_ERROR);
        log_info("region %u: fell back: the capture failed (%s); its calls were submitted one by one", r->id,
                 libcuda_error_name(error));
        trace_event("fallback", "\"region\":%u,\"reason\":\"graph_error\",\"after\":%u,\"length\":%u", r->id,
                    t->records.count, r->length);
        return false;
    }
    bool announce = r->stats.recaptures == 0;
    regions_recaptured(&t->table, r);
    if (announce)
        log_info("region %u: replayed on the robust path (%s)", r->id,
                 outcome == CAPTURE_UPDATED ? "executable graph updated" : "instantiated");
    else if (outcome == CAPTURE_INSTANTIATED)
        log_debug("region %u: cuGraphExecUpdate refused the new capture; instantiated again", r->id);
    return true;
}

/*
 * Counts t as holding work on stream before its capture begins there, so
 * that every other thread's call from now on ends the capture first; true
 * if no call of theirs in flight touches stream (engine_in_flight.c), else
 * t holds nothing again.
 */
static bool claim_stream(struct tracker *t, cudaStream_t stream)
{
    set_pending(t, true);
    /* Where the capture's work goes if another thread (or the watchdog) must end it. */
    if (DEVICE_CALL(cuCtxGetCurrent, &t->context) != CUDA_SUCCESS)
        t->context = NULL;
    struct call first = {.kind = CALL_LAUNCH, .stream = stream};
    note_held(t, &first);
    if (!in_flight_meets(t))
        return true;
    set_pending(t, false);
    return false;
}

/*
 * Whether t's capture may take call c in: what c adds to it (a stream new
 * to it, an event it records) is noted among t's held streams and events
 * first, then no other thread's call in flight may touch it (see
 * claim_stream).  Else c ends the capture (the caller falls back).
 */
bool capture_takes_call(struct tracker *t, const struct call *c)
{
    if (capture_holds(&t->capture, c->stream) && c->kind != CALL_EVENT_RECORD)
        return true;
    note_held(t, c);
    return !in_flight_meets(t);
}

/* Starts a robust-path capture on the region's first stream; false (passing through) if the driver refuses. */
bool start_recapture(struct tracker *t, cudaStream_t stream)
{
    struct region *r = t->region;
    if (watchdog_refuses(t, r))
        return false;
    const char *missing;
    if (!capture_supported(&missing)) {
        char why[160];
        snprintf(why, sizeof why, "it needs the robust path, which captures through the CUDA driver, and this "
                 "driver lacks %s", missing);
        not_graphed(t, r, FALLBACK_UNSUPPORTED, why, "robust path without the driver's capture");
        return false;
    }
    if (!claim_stream(t, stream)) {
        log_debug("region %u: its capture does not begin now: another thread's call on its stream is under way; "
                  "this occurrence passes through",
                  r->id);
        trace_event("capture_deferred", "\"region\":%u,\"thread\":%u,\"why\":\"call_in_flight\"", r->id,
                    t->thread_number);
        return false;
    }
    CUresult err = capture_begin(&t->capture, stream, sigs_pageable_bytes(r->sigs, r->length));
    if (err != CUDA_SUCCESS) {
        set_pending(t, false);
        log_info("region %u: the driver refused to begin its capture on the robust path (%s); this occurrence "
                 "passes through",
                 r->id, libcuda_error_name(err));
        regions_failed(&t->table, r, FALLBACK_GRAPH_ERROR);
        return false;
    }
    register_exit_hook_once();
    atomic_fetch_add(&shim_captures, 1);
    return true;
}

/* Whether stream takes part in one of the shim's robust-path captures, on any thread. */
static bool shim_captures_stream(cudaStream_t stream)
{
    bool found = false;
    pthread_mutex_lock(&trackers_lock);
    for (struct tracker *t = trackers; t && !found; t = t->next) {
        tracker_lock(t);
        found = t->capture.active && capture_holds(&t->capture, stream);
        tracker_unlock(t);
    }
    pthread_mutex_unlock(&trackers_lock);
    return found;
}

/* Whether the only capture a query about stream would see is the shim's (see engine.h). */
bool engine_hides_capture(cudaStream_t stream)
{
    if (in_engine || atomic_load_explicit(&shim_captures, memory_order_relaxed) == 0)
        return false;
    /* The legacy stream reports a blocking stream's capture as an error of its own: none of the shim's is the
       program's (the shim captures nothing while the program does). */
    return stream == cudaStreamLegacy || shim_captures_stream(stream);
}

/*
 * Why the robust path cannot take a region that starts on stream, one of
 * the two it never captures.  The legacy stream cannot be captured at all.
 * The per-thread default stream can, but only its own thread can name it,
 * and the robust path needs other threads to end its captures: the
 * watchdog, when held-back work waits too long, and a thread whose call
 * must follow the captured work (cudaStreamPerThread there is that
 * thread's own stream; the fast path moves such work to the legacy
 * stream, which a capture cannot be moved to).  Said once at length.
 */
const char *robust_path_refusal(cudaStream_t stream)
{
    static atomic_bool told;
    if (stream != cudaStreamPerThread)
        return "it starts on the legacy stream, which cannot be captured";
    if (!atomic_exchange(&told, true))
        log_info("the robust path takes no region on the per-thread default stream: a capture of that stream could "
                 "be ended only by its own thread, and the watchdog (held-back work that waits too long) and other "
                 "threads whose calls must follow the work have to end it from theirs, where cudaStreamPerThread "
                 "names another stream; such regions take the fast path, or pass through where it is not safe");
    return "it starts on the per-thread default stream, whose capture no other thread could end";
}
