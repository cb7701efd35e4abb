/* SPDX-License-Identifier: MIT */
/* Falling back: held-back work submitted one by one in the program's order, and the region backed off. */
#include "config.h"

#include <stdio.h>

#include "engine_capture.h"
#include "engine_events.h"
#include "engine_fallback.h"
#include "engine_graph_keep.h"
#include "engine_handover.h"
#include "engine_observed.h"
#include "engine_on_behalf.h"
#include "libcuda.h"
#include "log.h"
#include "owed_records.h"
#include "owed_waits.h"
#include "trace.h"

/* Submits the held-back calls one by one, in the order the program made them (from any thread: see held_calls.h). */
static void submit_held_back(struct tracker *t)
{
    bool owner = t == self;
    CUcontext previous;
    bool switched = enter_context_of(t, &previous);
    CUresult driver_error;
    owed_waits_settle_all(); /* its calls are on streams that may owe a wait on an earlier graph */
    owed_records_settle_all(); /* and may wait for, or record again, events an earlier graph owes */
    cudaError_t error = held_forward_all(&t->records, owner ? cudaStreamPerThread : cudaStreamLegacy, &driver_error);
    libcuda_context_leave(switched, previous);
    owe_driver_error_to(t, driver_error);
    if (!owner) {
        owe_error_to(t, error);
        if (holds_per_thread_work(t))
            note_moved_work(t);
    }
    set_pending(t, false);
}

/* Makes the work held back or captured so far run, in the program's order. */
void release_held(struct tracker *t)
{
    if (capture_active(t))
        release_capture(t);
    else
        submit_held_back(t);
}

/* Gives up replaying: submits what was held back and backs the region off. */
void fall_back(struct tracker *t, enum fallback_reason reason, const char *detail)
{
    struct region *r = t->region;
    materialize_observed(t);
    sequence_events_catch_up(t); /* the sequence goes on past the record, which empties */
    unsigned held = t->records.count;
    release_held(t);
    bool timed_out = regions_failed(&t->table, r, reason);
    char next[240];
    if (timed_out)
        snprintf(next, sizeof next, "backing off for %u sightings: its held-back work timed out %u times in a row "
                 "(the program waits for the GPU without a CUDA call, or its host paused longer than the bound)",
                 regions_backoff_needed(&t->table, r), r->timeouts);
    else
        snprintf(next, sizeof next, "passing through until it is stable again (%u sightings)",
                 regions_backoff_needed(&t->table, r));
    log_info("region %u: fell back after %u of %u calls (%s%s%s); %s", r->id, held, r->length,
             fallback_reason_name(reason), detail ? ": " : "", detail ? detail : "", next);
    /* "thread" names the region's thread: the watchdog and other threads fall back regions not their own. */
    trace_event("fallback", "\"region\":%u,\"thread\":%u,\"reason\":\"%s\",\"after\":%u,\"length\":%u,\"backoff\":%u",
                r->id, t->thread_number, fallback_reason_name(reason), held, r->length,
                regions_backoff_needed(&t->table, r));
    t->mode = FOLLOW_NONE;
    t->region = NULL;
}
