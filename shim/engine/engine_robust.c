/* SPDX-License-Identifier: MIT */
/* The robust path: a region's occurrence captured from its start, and at its end the graph updated (or made) and launched. */
#include "config.h"

#include <stdio.h>

#include "engine_capture.h"
#include "engine_exit.h"
#include "engine_graph_keep.h"
#include "engine_held.h"
#include "engine_in_flight.h"
#include "engine_on_behalf.h"
#include "engine_robust.h"
#include "engine_watchdog.h"
#include "libcuda.h"
#include "log.h"
#include "trace.h"

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
                    r->length, capture_streams(t));
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
    note_context(t); /* where the capture's work goes if another thread (or the watchdog) must end it */
    struct call first = {.kind = CALL_LAUNCH, .stream = stream};
    note_held(t, &first);
    if (!in_flight_meets(t))
        return true;
    set_pending(t, false);
    return false;
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
    if (atomic_load(&captures_refused)) {
        static atomic_bool told;
        if (!atomic_exchange(&told, true))
            log_info("region %u: not captured (robust path): the governor stepped aside once, and a thread may still be "
                     "inside a call made meanwhile, which no capture may overlap; regions that need the robust path "
                     "pass through from now on",
                     r->id);
        return false;
    }
    atomic_store(&captures_begun, true); /* the governor keeps auto on from now on (engine_aside.c) */
    if (!claim_stream(t, stream)) {
        log_debug("region %u: its capture does not begin now: another thread's call on its stream is under way; "
                  "this occurrence passes through",
                  r->id);
        trace_event("capture_deferred", "\"region\":%u,\"thread\":%u,\"why\":\"call_in_flight\"", r->id,
                    t->thread_number);
        return false;
    }
    size_t staging = sigs_pageable_bytes(r->sigs, r->length);
    CUresult err = begin_capture(t, stream, staging > t->pageable_most ? staging : t->pageable_most);
    if (err != CUDA_SUCCESS) {
        set_pending(t, false);
        log_info("region %u: the driver refused to begin its capture on the robust path (%s); this occurrence "
                 "passes through",
                 r->id, libcuda_error_name(err));
        regions_failed(&t->table, r, FALLBACK_GRAPH_ERROR);
        return false;
    }
    register_exit_hook_once();
    return true;
}
