/* A sequence's start and end: which region it follows, and at its end launch, build or learn; sync-free loops cut at their period. */
#include "config.h"

#include <stdlib.h>

#include "engine_internal.h"
#include "exclusions.h"
#include "log.h"
#include "shim.h"
#include "trace.h"

/* A sync-free loop is cut into regions of whole periods, about this many calls each. */
#define PERIODIC_REGION_CALLS 64

/* The reason to give when a boundary of this kind cuts a replay short. */
static enum fallback_reason boundary_reason(enum call_kind kind)
{
    switch (kind) {
    case CALL_QUERY:
    case CALL_EVENT_QUERY:
    case CALL_EVENT_SYNC:
    case CALL_STREAM_SYNC:
    case CALL_DEVICE_SYNC:
    case CALL_COPY_SYNC:
    case CALL_SET_SYNC: return FALLBACK_SYNC_INSIDE;
    case CALL_ALLOC:
    case CALL_FREE: return FALLBACK_ALLOCATION;
    case CALL_CAPTURE:
    case CALL_GRAPH_LAUNCH: return FALLBACK_PROGRAM_GRAPH;
    default: return FALLBACK_MISMATCH;
    }
}

/* Forgets the calls observed and recorded since the sequence began and what they followed; the next call starts a new one. */
static void forget_sequence(struct tracker *t)
{
    t->observed_count = 0;
    t->observed_stored = 0;
    t->overflow = false;
    t->mode = FOLLOW_NONE;
    t->region = NULL;
    record_reset(&t->records);
    show_recording(t, false);
}

/*
 * Ends the current sequence: launch, build or learn.  at_sync: before a
 * boundary call is forwarded (false: a sync-free loop's cut); a replay it
 * cuts short falls back for reason, naming the call (name); handed_over:
 * the boundary is another thread's call on its streams, counted for the
 * region the sequence was.
 */
static void finish_sequence(struct tracker *t, bool at_sync, enum fallback_reason reason, const char *name,
                            bool handed_over)
{
    struct region *r = t->region;
    /* A sequence that matched r call by call is r: its signatures need not be written out, hashed and compared. */
    bool exactly_r = r != NULL && t->observed_stored == 0 && t->observed_count == r->length;
    if (!exactly_r)
        materialize_observed(t);
    if (at_sync && t->period) {
        /* A sync ends the sync-free stretch: look for regions between syncs again. */
        t->period = 0;
        period_reset(t->periods);
    }
    struct region *graphed = NULL; /* r, once its occurrence ran as its graph */
    if (t->mode == FOLLOW_REPLAY || t->mode == FOLLOW_RECAPTURE) {
        if (t->records.count < r->length)
            fall_back(t, reason, name);
        else if (t->mode == FOLLOW_REPLAY ? launch_replay(t) : finish_recapture(t))
            graphed = r;
    } else if (t->mode == FOLLOW_RECORD && t->records.count == r->length && r->state == REGION_WANTED) {
        build_graph(t);
    }
    struct region *seen = NULL;
    if (!t->overflow && t->observed_count > 0) {
        seen = exactly_r ? regions_sighting_of(&t->table, r)
                         : regions_sighting(&t->table, t->observed, t->observed_count);
        if (seen && t->foreign_in_sequence && !seen->needs_robust) {
            seen->needs_robust = true;
            log_info("region %u: driver-API work (a library's own launches) runs inside it: it takes the robust path",
                     seen->id);
        }
        if (seen && seen->state == REGION_WANTED && seen->stats.builds == 0 && seen->stable == engine_policy.min_repeats) {
            char streams[256] = "its streams";
            if (log_enabled(LOG_INFO))
                describe_streams(seen->sigs, seen->length, streams, sizeof streams);
            log_info("region %u: %u calls on %s seen %u times alike; recording its next occurrence", seen->id,
                     seen->length, streams, seen->stable);
            trace_event("region_found", "\"region\":%u,\"calls\":%u,\"sightings\":%u", seen->id, seen->length,
                        seen->stable);
        }
    }
    if (handed_over && (seen || graphed))
        regions_handed_over(seen ? seen : graphed);
    trial_end(&t->trial, graphed, seen);
    forget_sequence(t);
    t->foreign_in_sequence = false;
}

/* Ends the current sequence (launch, build or learn); a replay it cuts short falls back for reason, naming name. */
void end_sequence(struct tracker *t, bool at_sync, enum fallback_reason reason, const char *name)
{
    finish_sequence(t, at_sync, reason, name, false);
}

/* Ends t's sequence where another thread's call took over its stream (from any thread, under t's lock); counted. */
void end_sequence_handed_over(struct tracker *t, enum fallback_reason reason, const char *name)
{
    finish_sequence(t, true, reason, name, true);
}

/* Ends the current sequence before runtime call c, a boundary, is forwarded. */
void end_sequence_before(struct tracker *t, const struct call *c)
{
    end_sequence(t, true, boundary_reason(c->kind), call_api_name(c->api));
}

/* A sequence longer than any region: feed the period detector, and cut at the period once found. */
void look_for_period(struct tracker *t, const struct call_sig *sig)
{
    if (t->periods == NULL) {
        t->periods = malloc(sizeof *t->periods);
        if (t->periods == NULL || !period_init(t->periods, engine_policy.max_calls < 4096 ? engine_policy.max_calls : 4096,
                                               engine_policy.min_repeats + 1)) {
            free(t->periods);
            t->periods = NULL;
            return;
        }
    }
    unsigned p = period_feed(t->periods, sig_hash(sig));
    if (p == 0)
        return;
    unsigned group = (PERIODIC_REGION_CALLS + p - 1) / p;
    t->period = p * group <= engine_policy.max_calls ? p * group : p;
    /* Whatever this sequence held back or recorded belongs to no cut: submit it, forget it. */
    if (t->pending)
        fall_back(t, FALLBACK_MISMATCH, "sync-free loop");
    log_info("sync-free loop: the calls repeat every %u; cutting them into regions of %u calls", p, t->period);
    trace_event("period_found", "\"period\":%u,\"region_calls\":%u", p, t->period);
    /* The calls so far are not a region; the next one starts the first cut. */
    forget_sequence(t);
}

/* Why region r wants the robust path now (into why), or NULL for the fast path. */
static const char *robust_path_reason(const struct region *r, char *why, size_t len)
{
    if (shim_options.num[OPT_REPLAY] == REPLAY_ROBUST)
        return "REPRISE_REPLAY=robust";
    if (r->needs_robust)
        return "driver-API work runs inside it";
    return unseen_work_possible(why, len) ? why : NULL;
}

/* Whether r's trial passes this occurrence through (the thread then follows nothing); it times the occurrence. */
static bool trial_passes_through(struct tracker *t, struct region *r)
{
    if (r->graph == NULL || trial_begin(&t->trial, r, engine_policy.trial_pairs) != PAYOFF_EAGER)
        return false;
    t->region = NULL;
    t->mode = FOLLOW_NONE;
    return true;
}

/*
 * Starts following a sequence at its first call: replay, record, or just
 * learn.  A region wanted or graphed on the robust path starts its capture
 * here, before its first call is forwarded.  A graphed region on trial
 * (either path) may pass the occurrence through instead, timed.
 */
void start_sequence(struct tracker *t, const struct call_sig *sig, cudaStream_t stream)
{
    t->trial.region = 0; /* a sequence cut short without end_sequence (look_for_period) is not timed */
    if (atomic_load_explicit(&threads_seen, memory_order_relaxed) > 1)
        note_handovers_at_start(t, sig, stream);
    struct region *r = regions_candidate(&t->table, sig, 1);
    t->region = r;
    t->mode = r == NULL ? FOLLOW_NONE : r->state == REGION_GRAPHED ? FOLLOW_REPLAY : FOLLOW_RECORD;
    if (r == NULL)
        return;
    if (!(r->graph && r->robust)) {
        char why[256];
        /* The free test first: robust_path_reason may scan the loaded objects. */
        const char *reason = capture_stream_eligible(stream) ? robust_path_reason(r, why, sizeof why) : NULL;
        if (reason == NULL) {
            trial_passes_through(t, r);
            show_recording(t, t->mode == FOLLOW_RECORD); /* a hand-over must end it where it ends */
            return; /* the fast path; build_graph or launch_replay say why if it cannot be taken */
        }
        if (r->graph) {
            log_info("region %u: moving to the robust path (%s)", r->id, reason);
            trace_event("path_changed", "\"region\":%u,\"path\":\"robust\"", r->id);
            destroy_graph_of(r);
            regions_graph_dropped(&t->table, r);
        }
    }
    if (r->graph == NULL && user_refuses(t, r)) {
        t->region = NULL;
        t->mode = FOLLOW_NONE;
        return;
    }
    if (trial_passes_through(t, r))
        return;
    t->mode = start_recapture(t, stream) ? FOLLOW_RECAPTURE : FOLLOW_NONE;
}
