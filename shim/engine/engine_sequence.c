/* SPDX-License-Identifier: MIT */
/* A sequence's start and end: which region it follows, and at its end launch, build or learn; where calls are cut. */
#include "config.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "engine_events.h"
#include "engine_fallback.h"
#include "engine_fast.h"
#include "engine_graph.h"
#include "engine_graph_keep.h"
#include "engine_handover.h"
#include "engine_neighbours.h"
#include "engine_observed.h"
#include "engine_robust.h"
#include "engine_sequence.h"
#include "exclusions.h"
#include "log.h"
#include "monotonic.h"
#include "settings.h"
#include "trace.h"

/* The reason to give when a boundary of this kind cuts a replay short (call_kinds.def's boundary column). */
static enum fallback_reason boundary_reason(enum call_kind kind)
{
    static const enum fallback_reason reasons[CALL_KIND_COUNT] = {
#define CALL_KIND(kind, name, node, host_sync, order, activity, boundary, owed, target) [CALL_##kind] = boundary,
#include "call_kinds.def"
#undef CALL_KIND
    };
    return (unsigned)kind < CALL_KIND_COUNT ? reasons[kind] : FALLBACK_MISMATCH;
}

/* Forgets the calls observed and recorded since the sequence began and what they followed; the next call starts a new one. */
static void forget_sequence(struct tracker *t)
{
    t->observed_count = 0;
    t->observed_stored = 0;
    t->stand_ins = 0;
    t->sequence_pageable = 0;
    t->overflow = false;
    t->mode = FOLLOW_NONE;
    t->region = NULL;
    t->cuts.at = UINT_MAX;
    held_reset(&t->records);
    sequence_events_forget(t);
    show_recording(t, false);
}

/* The bounds of the cuts, from the options in force. */
static struct cut_bounds cut_bounds_now(void)
{
    return (struct cut_bounds){
        .min_calls = engine_policy.min_calls,
        .max_calls = engine_policy.max_calls,
        .max_batch_calls = (unsigned)shim_options.num[OPT_MAX_BATCH_CALLS],
        .max_segments = (unsigned)shim_options.num[OPT_MAX_SEGMENTS],
    };
}

/* Whether call c names an event as a node: a record or a wait. */
static bool names_event(const struct call *c)
{
    return c->kind == CALL_EVENT_RECORD || c->kind == CALL_EVENT_WAIT;
}

/*
 * Keeps the events of the cut just replayed, the first of a pair towards
 * the doubled cut (its record's event calls', in order): the pair's second
 * cut's events may be others (a pool's), which the doubled cut's
 * signatures and graph must relate as the two cuts did.
 */
static void keep_pair_events(struct tracker *t)
{
    struct cuts *c = &t->cuts;
    c->pair_event_count = 0;
    for (unsigned i = 0; i < t->records.count; i++) {
        if (!names_event(&t->records.calls[i].call))
            continue;
        if (c->pair_event_count == c->pair_events_capacity) {
            unsigned capacity = c->pair_events_capacity ? 2 * c->pair_events_capacity : 16;
            uint64_t *grown = realloc(c->pair_events, sizeof *grown * capacity);
            if (grown == NULL) {
                c->pair_event_count = UINT_MAX; /* unknown: no doubled cut of it */
                return;
            }
            c->pair_events = grown;
            c->pair_events_capacity = capacity;
        }
        c->pair_events[c->pair_event_count++] = (uint64_t)(uintptr_t)t->records.calls[i].call.event;
    }
}

/*
 * The doubled cut's calls as the pair's two cuts were: the first half's
 * event calls given the first cut's events (kept), the second's are the
 * record's; false if the first cut's events are not known for this record.
 */
static bool pair_events_into(const struct tracker *t, struct held_call *calls, unsigned n)
{
    const struct cuts *c = &t->cuts;
    unsigned k = 0;
    for (unsigned i = 0; i < n; i++)
        if (names_event(&calls[i].call)) {
            if (k == c->pair_event_count)
                return false;
            calls[i].call.event = (cudaEvent_t)(uintptr_t)c->pair_events[k++];
        }
    return k == c->pair_event_count;
}

/*
 * The doubled cut's signatures (r's twice, into sigs) with its event
 * calls' references made anew over both cuts' events: a loop recording the
 * same event every time has its second record refer to the first cut's,
 * one naming a pool's events in turn has it new.  False if the first cut's
 * events are not known (no doubled cut then).
 */
static bool doubled_sigs(struct tracker *t, const struct region *r, struct call_sig *sigs)
{
    const struct cuts *c = &t->cuts;
    unsigned n = r->length, k = 0;
    memcpy(sigs, r->sigs, sizeof *sigs * n);
    memcpy(sigs + n, r->sigs, sizeof *sigs * n);
    struct event_refs refs = {0};
    bool known = t->records.count == n && c->pair_event_count <= c->pair_events_capacity;
    for (unsigned i = 0; known && i < 2 * n; i++) {
        const struct call *call = &t->records.calls[i % n].call;
        if (!names_event(call))
            continue;
        uint64_t event = i < n ? (k < c->pair_event_count ? c->pair_events[k++] : 0) : (uint64_t)(uintptr_t)call->event;
        sigs[i].target = event_refs_note(&refs, event, i);
        known = event != 0 && sigs[i].target != EVENT_REF_UNKNOWN;
    }
    event_refs_free(&refs);
    return known && k == c->pair_event_count;
}

/*
 * Builds the graph of region d, a cut twice as long as r, from r's
 * occurrence just launched, twice: the calls' shapes are d's, and its
 * first replay patches the arguments that differ.  build_graph does it,
 * with its checks, on a list of those calls in place of the thread's
 * record, which stays as it was.  The first half's event calls name the
 * first cut's events, so that the graph relates them as d's signatures do.
 */
static void build_doubled(struct tracker *t, struct region *r, struct region *d)
{
    struct cuts *c = &t->cuts;
    unsigned n = t->records.count;
    if (n != r->length || d->length != 2 * n)
        return;
    if (c->doubled_calls_capacity < 2 * n) {
        struct held_call *grown = realloc(c->doubled_calls, sizeof *grown * 2 * n);
        if (grown == NULL)
            return;
        c->doubled_calls = grown;
        c->doubled_calls_capacity = 2 * n;
    }
    struct held_call *calls = c->doubled_calls;
    memcpy(calls, t->records.calls, sizeof *calls * n);
    memcpy(calls + n, t->records.calls, sizeof *calls * n); /* the same argument bytes, in the same arena */
    if (!pair_events_into(t, calls, n))
        return;
    struct held_list record = t->records;
    struct region *followed = t->region;
    t->records.calls = calls;
    t->records.count = t->records.capacity = 2 * n;
    t->records.differ_graph = NULL;
    t->records.differ = NULL;
    t->records.differ_count = t->records.differ_capacity = 0;
    t->region = d;
    build_graph(t);
    t->records = record;
    t->region = followed;
    if (d->graph == NULL)
        return;
    payoff_start(&d->trial, 0); /* no trial: its calls are twice those of a cut whose graph pays */
    log_info("sync-free loop: cuts of %u calls from now on (region %u, built from region %u's calls twice)", d->length,
             d->id, r->id);
    trace_event("batch_grown", "\"region\":%u,\"calls\":%u", d->id, d->length);
}

/*
 * Counts a sighting of the cut twice as long as r, whose calls the last two
 * cuts were: the doubled region is learnt from replays, never passed
 * through; once wanted, its graph is built from this occurrence twice.
 */
static void sight_doubled(struct tracker *t, struct region *r)
{
    struct cuts *c = &t->cuts;
    unsigned n = 2 * r->length;
    if (c->doubled_capacity < n) {
        struct call_sig *grown = realloc(c->doubled, sizeof *grown * n);
        if (grown == NULL)
            return;
        c->doubled = grown;
        c->doubled_capacity = n;
    }
    if (!doubled_sigs(t, r, c->doubled))
        return;
    struct region *d = regions_sighting(&t->table, c->doubled, n);
    if (d == NULL || d->state != REGION_WANTED || d->graph != NULL)
        return;
    log_info("sync-free loop: region %u (%u calls) replays regularly; the next cuts are region %u, twice as long (%u "
             "calls)",
             r->id, r->length, d->id, n);
    build_doubled(t, r, d);
}

/*
 * Launches region r in segments of `each` calls (segment_calls; 0: it
 * cannot be cut) from its next occurrence: its host is slow between calls,
 * or its GPU waits for its last call, so holding it back whole would keep
 * its first kernel waiting.  Its graph goes (nothing follows it whole);
 * each segment is learnt and graphed as a region of its own.
 */
static void segment_region(struct tracker *t, struct region *r, unsigned each)
{
    struct cuts *c = &t->cuts;
    if (each == 0)
        return;
    bool overlap = r->pace.overlap >= CUTS_PACE_SAMPLES;
    segments_add(&c->segments, sig_hash(&r->sigs[0]), each, r->length)->overlap = overlap;
    if (overlap)
        log_info("region %u: its GPU work waits for its last call (%.1f us apart, a graph launch %.1f us at the "
                 "least, then %.1f us in the sync): from its next occurrence it is launched in segments of %u calls, "
                 "each its own graph, so that the GPU starts while the host makes the rest",
                 r->id, c->gap_us, c->launch_us, c->wait_us, each);
    else
        log_info("region %u: its host is slow between calls (%.1f us apart, a graph launch %.1f us at the least): "
                 "from its next occurrence it is launched in segments of %u calls, each its own graph, so that the "
                 "GPU runs one while the host makes the next",
                 r->id, c->gap_us, c->launch_us, each);
    trace_event("segmented",
                "\"region\":%u,\"calls\":%u,\"segment_calls\":%u,\"gap_us\":%.2f,\"launch_us\":%.2f,\"wait_us\":%.2f,"
                "\"overlap\":%s",
                r->id, r->length, each, c->gap_us, c->launch_us, c->wait_us, overlap ? "true" : "false");
    memset(&r->pace, 0, sizeof r->pace);
    payoff_start(&r->trial, 0); /* a trial sample still to come is dropped: nothing replays it whole */
    destroy_graph_of(r);
    regions_evicted(&t->table, r);
}

/* Acts on the pace of the occurrence just launched as region r's graph: segment r, or end its stretch's segments. */
static void act_on_pace(struct tracker *t, struct region *r, bool at_sync)
{
    struct cuts *c = &t->cuts;
    if (c->timed == &r->pace && at_sync && c->verdict == PACE_SLOW) {
        struct cut_bounds bounds = cut_bounds_now();
        segment_region(t, r, segment_calls(r->length, &bounds));
    } else if (c->segmented && c->timed == &c->segmented->pace && c->verdict == PACE_FAST && !c->segmented->overlap) {
        log_info("region %u: its host is fast between calls again (%.1f us apart, a graph launch %.1f us at the "
                 "least): the region of %u calls it is a segment of is launched whole again once it is learnt again",
                 r->id, c->gap_us, c->launch_us, c->segmented->region_calls);
        trace_event("segments_ended", "\"region\":%u,\"calls\":%u", r->id, c->segmented->region_calls);
        segments_remove(&c->segments, c->segmented);
        c->segmented = NULL;
    }
}

/*
 * After a sequence ended (at a boundary, or at a cut): its pace, the
 * growth of a sync-free loop's cuts, and its stretch.  graphed: the region
 * that ran as its graph; seen: the one it was a sighting of.
 */
static void after_sequence(struct tracker *t, bool at_sync, struct region *graphed, struct region *seen)
{
    struct cuts *c = &t->cuts;
    if (c->segmented) {
        struct region *segment = graphed ? graphed : seen;
        segments_note(c->segmented, c->stretches.calls / c->segmented->each, segment ? segment->id : 0);
    }
    if (c->timed && graphed)
        act_on_pace(t, graphed, at_sync);
    c->timed = NULL;
    if (t->period && !at_sync) {
        struct region *cut = graphed ? graphed : seen;
        bool replayed = graphed != NULL && !graphed->robust;
        if (batch_cut_done(&c->batches, cut ? cut->id : 0, cut ? cut->length : 0, replayed) == BATCH_SEEN_DOUBLE)
            sight_doubled(t, graphed);
        else if (c->batches.paired)
            keep_pair_events(t); /* the first cut of a pair: the second's doubled cut relates to its events */
    }
    if (!at_sync) {
        c->stretches.calls += t->observed_count;
        return;
    }
    forget_period(t); /* a boundary ends the sync-free stretch: look for regions between syncs again */
    unsigned calls = c->stretches.calls + t->observed_count;
    struct cut_bounds bounds = cut_bounds_now();
    if (stretch_ended(&c->stretches, calls, &bounds))
        log_info("the calls between two syncs (%u) repeat: a stretch is looked at for a sync-free loop's period only "
                 "beyond %u calls from now on, so that they are learnt as one region",
                 calls, calls);
    c->segmented = NULL;
}

/*
 * A held-back or captured occurrence cut short by a boundary.  A sync-free
 * loop that ended inside a cut submits what the cut held (the cut did
 * nothing wrong: the loop ended); anything else falls back.
 */
static void cut_short(struct tracker *t, bool at_sync, enum fallback_reason reason, const char *name)
{
    if (!(at_sync && t->period)) {
        fall_back(t, reason, name);
        return;
    }
    log_debug("region %u: the sync-free loop ended after %u of its %u calls (%s): they are submitted one by one",
              t->region->id, t->records.count, t->region->length, name);
    release_held(t);
}

/* Launches a complete held-back occurrence as its graph, timed for its pace if asked; true if launched. */
static bool launch_timed(struct tracker *t)
{
    struct cuts *c = &t->cuts;
    struct region *r = t->region;
    if (c->timed == NULL)
        return launch_replay(t);
    uint64_t ended = monotonic_ns();
    bool launched = launch_replay(t);
    if (!launched) {
        c->timed = NULL;
        return false;
    }
    uint64_t returned = monotonic_ns();
    uint64_t span = ended - c->began_ns, launch = returned - ended;
    if (c->timed == &r->pace) {
        /* A whole region: its sample waits for the sync after it, if one follows (pace_at_boundary). */
        c->pending_hash = r->hash;
        c->pending_span_ns = span;
        c->pending_launch_ns = launch;
        c->pending_patch_ns = c->patch_ns;
        c->pending_patched = c->patched;
        c->launched_ns = returned;
        c->pending_armed = false;
        c->verdict = PACE_UNSURE;
        return true;
    }
    c->verdict = pace_sample(c->timed, span, r->length, launch, c->patch_ns, 0, 0);
    c->gap_us = (double)span / 1e3 / r->length;
    c->launch_us = (double)c->timed->launch_ns / 1e3; /* the shortest, which the pace holds the host against */
    return true;
}

/* Takes the pending sample of a whole region's occurrence, wait_ns the sync after it (0: none), and acts on it. */
static void settle_pending_pace(struct tracker *t, uint64_t wait_ns)
{
    struct cuts *c = &t->cuts;
    struct region *r = regions_of_hash(&t->table, c->pending_hash);
    c->pending_hash = 0;
    c->pending_armed = false;
    if (r == NULL || r->graph == NULL || r->robust)
        return;
    struct cut_bounds bounds = cut_bounds_now();
    unsigned each = segment_calls(r->length, &bounds);
    unsigned segments = each ? (r->length + each - 1) / each : 0;
    enum pace_verdict verdict =
        pace_sample(&r->pace, c->pending_span_ns, r->length, c->pending_launch_ns, c->pending_patch_ns, wait_ns,
                    segments);
    c->gap_us = (double)c->pending_span_ns / 1e3 / r->length;
    c->launch_us = (double)r->pace.launch_ns / 1e3;
    c->wait_us = (double)wait_ns / 1e3;
    /* What the sample found, from the pace it left: slow counts this sample if it was, overlap if the wait decided. */
    double span_us = (double)c->pending_span_ns / 1e3, launch_us = (double)c->pending_launch_ns / 1e3;
    double patch_us = (double)c->pending_patch_ns / 1e3;
    if (r->pace.slow > 0 && r->pace.overlap == 0)
        log_debug("region %u: pace: %.1f us of host for %u calls, a launch of %.1f us (%.1f of it patching %u nodes), "
                  "%.1f us in the sync after it; its host is slow between calls",
                  r->id, span_us, r->length, launch_us, patch_us, c->pending_patched, c->wait_us);
    else
        log_debug("region %u: pace: %.1f us of host for %u calls, a launch of %.1f us (%.1f of it patching %u nodes), "
                  "%.1f us in the sync after it; in %u segments it would%s end %d%% sooner",
                  r->id, span_us, r->length, launch_us, patch_us, c->pending_patched, c->wait_us, segments,
                  r->pace.overlap > 0 ? "" : " not", CUTS_OVERLAP_GAIN_PERCENT);
    if (verdict == PACE_SLOW)
        segment_region(t, r, each);
}

/* This thread's sync being timed for a pending pace sample (pace_sync_returned takes it). */
static __thread bool sync_timed __attribute__((tls_model("initial-exec")));

/*
 * After the sequence ended before a boundary call (under t's lock): a whole
 * region's pending sample is taken when the call returns if it is a host
 * sync (its wait is the GPU's work left), at once with no wait otherwise.
 */
void pace_at_boundary(struct tracker *t, bool sync)
{
    struct cuts *c = &t->cuts;
    if (__builtin_expect(c->pending_hash == 0 || c->pending_armed, 1))
        return;
    if (sync && t == self) {
        c->pending_armed = true;
        sync_timed = true;
        in_flight_marked = true; /* engine_forwarded then calls engine_call_returned, which calls pace_sync_returned */
        return;
    }
    settle_pending_pace(t, 0);
}

/* After a call this thread made returned (engine_call_returned): the sync pace_at_boundary timed, if any. */
void pace_sync_returned(void)
{
    if (!sync_timed)
        return;
    sync_timed = false;
    struct tracker *t = self;
    if (t == NULL)
        return;
    uint64_t returned = monotonic_ns();
    bool was_in_engine = in_engine;
    in_engine = true; /* the driver calls of a graph destroyed for segments are the shim's own */
    tracker_lock(t);
    struct cuts *c = &t->cuts;
    if (c->pending_hash && c->pending_armed)
        settle_pending_pace(t, returned - c->launched_ns);
    tracker_unlock(t);
    in_engine = was_in_engine;
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
    struct region *graphed = NULL; /* r, once its occurrence ran as its graph */
    if (t->mode == FOLLOW_REPLAY || t->mode == FOLLOW_RECAPTURE) {
        if (t->records.count < r->length)
            cut_short(t, at_sync, reason, name);
        else if (t->mode == FOLLOW_REPLAY ? launch_timed(t) : finish_recapture(t))
            graphed = r;
    } else if (t->mode == FOLLOW_RECORD && t->records.count == r->length && r->state == REGION_WANTED) {
        record_done(t);
    }
    struct region *seen = NULL;
    if (!t->overflow && t->observed_count > 0) {
        seen = exactly_r ? regions_sighting_of(&t->table, r)
                         : regions_sighting(&t->table, t->observed, t->observed_count);
        if (seen && t->direct_in_sequence && !seen->needs_robust) {
            seen->needs_robust = true;
            log_info("region %u: driver-API work (a library's own launches) runs inside it: it takes the robust path",
                     seen->id);
        }
        if (seen && seen->crowded)
            say_crowded(seen);
        if (seen && seen->state == REGION_WANTED && seen->stats.builds == 0 && seen->stable == engine_policy.min_repeats) {
            char streams[256] = "its streams";
            if (log_enabled(LOG_INFO))
                describe_streams(seen->sigs, seen->length, streams, sizeof streams);
            log_info("region %u: %u calls on %s seen %u times alike; recording its next occurrence", seen->id,
                     seen->length, streams, seen->stable);
            trace_event("region_found", "\"region\":%u,\"calls\":%u,\"sightings\":%u", seen->id, seen->length,
                        seen->stable);
        }
    } else {
        regions_none_seen(&t->table); /* no sighting (regions_sighting says so itself when it returns none) */
    }
    /* For the exit summary, when one is written, and the debug log's explanations. */
    if (seen && graphed == NULL && (shim_counting || t->neighbours.explain_left > 0))
        note_neighbours(t, seen);
    if (handed_over && (seen || graphed))
        regions_handed_over(seen ? seen : graphed);
    trial_end(&t->trial, graphed, seen);
    after_sequence(t, at_sync, graphed, seen);
    forget_sequence(t);
    t->direct_in_sequence = false;
}

/*
 * Drops t's sequence without learning from it, and every timing that
 * spans it (a trial's sample, a pace, a sync-free loop's period and
 * stretch), under t's lock: the governor steps the engine aside, and its
 * calls until the engine resumes are not seen.  What it held back or
 * captured was submitted already (release_held).
 */
void abandon_sequence(struct tracker *t)
{
    struct cuts *c = &t->cuts;
    t->trial.region = 0;
    t->trial.ended = NULL;
    c->timed = NULL;
    c->pending_hash = 0;
    c->pending_armed = false;
    c->segmented = NULL;
    c->stretches.calls = 0;
    c->stretches.cut = false;
    forget_period(t);
    forget_sequence(t);
    t->direct_in_sequence = false;
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

/* Ends the current sequence before runtime call c, a boundary, is forwarded; a pending pace times it if a sync. */
void end_sequence_before(struct tracker *t, const struct call *c)
{
    end_sequence(t, true, boundary_reason(c->kind), call_api_name(c->api));
    pace_at_boundary(t, call_kind_in(c->kind, CALL_KINDS_HOST_SYNC));
}

/* Forgets the sync-free loop's period, if one was found: the calls are looked at for one anew. */
void forget_period(struct tracker *t)
{
    if (t->period) {
        t->period = 0;
        period_reset(t->periods);
    }
}

/* Feeds the period detector a call of a long stretch that follows no region; cuts at the period once it settled. */
void look_for_period(struct tracker *t, const struct call_sig *sig)
{
    if (t->period)
        return; /* found already: the calls are cut at it */
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
    if (p == 0 || !batch_period_settled(p, t->periods->run))
        return;
    struct cut_bounds bounds = cut_bounds_now();
    struct batch_plan *plan = &t->cuts.batches;
    batch_start(plan, p, &bounds);
    t->period = p;
    /* Whatever this sequence held back or recorded belongs to no cut: submit it, forget it. */
    if (holds_back(t))
        fall_back(t, FALLBACK_MISMATCH, "sync-free loop");
    log_info("sync-free loop: the calls repeat every %u; cutting them into regions of %u calls, growing to at most %u "
             "while the loop stays regular",
             p, plan->base, plan->bound);
    trace_event("period_found", "\"period\":%u,\"region_calls\":%u,\"max_calls\":%u", p, plan->base, plan->bound);
    /* The calls so far are not a region; the next one starts the first cut. */
    t->cuts.stretches.cut = true;
    t->cuts.stretches.calls += t->observed_count;
    forget_sequence(t);
}

/* The cut check's slow path: ends a sequence that holds a whole cut; following nothing, feeds the period detector. */
void cut_check(struct tracker *t)
{
    struct cuts *c = &t->cuts;
    if (t->observed_count >= c->at) {
        if (t->period || c->segmented) {
            end_sequence(t, false, FALLBACK_MISMATCH, t->period ? "sync-free loop" : "segment");
            return;
        }
        c->at = UINT_MAX; /* the loop changed its pattern (its period was dropped): on to the boundary */
    }
    /* Only a stretch's calls in a row, each once: the overflowing ones are fed by follow_signature. */
    if (t->mode != FOLLOW_NONE || t->period || c->segmented || t->overflow || t->observed_count == 0 ||
        t->observed_stored != t->observed_count ||
        !stretch_feeds(&c->stretches, c->stretches.calls + t->observed_count))
        return;
    look_for_period(t, &t->observed[t->observed_count - 1]);
}

/* The region of table with this id, or NULL (it was forgotten). */
static struct region *region_with_id(struct region_table *table, unsigned id)
{
    struct region *r, *tmp;
    HASH_ITER(hh, table->by_hash, r, tmp)
        if (r->id == id)
            return r;
    return NULL;
}

/*
 * Where the sequence that starts with sig is cut (t->cuts.at), and the
 * region it may follow: r, or NULL where r is not one of the sequence's
 * possible cuts (a sync-free loop's cut is whole periods within its bound;
 * a segment is no longer than the stretch's segments).
 */
static struct region *plan_cut(struct tracker *t, const struct call_sig *sig, struct region *r)
{
    struct cuts *c = &t->cuts;
    c->timed = NULL;
    if (c->stretches.calls == 0) /* a stretch begins: is it a region launched in segments? */
        c->segmented = c->segments.count ? segments_find(&c->segments, sig_hash(sig)) : NULL;
    if (t->period) {
        if (r && !batch_fits(&c->batches, r->length))
            r = NULL;
        c->at = r ? r->length : c->batches.base;
    } else if (c->segmented) {
        /* The region this segment was last, else a candidate no longer than this segment can be. */
        unsigned id = segments_region_at(c->segmented, c->stretches.calls / c->segmented->each);
        if (id)
            r = region_with_id(&t->table, id);
        if (r && (r->length > segment_room(c->segmented, c->stretches.calls) ||
                  (r->state != REGION_GRAPHED && r->state != REGION_WANTED) || !sig_equal(&r->sigs[0], sig)))
            r = NULL;
        c->at = c->segmented->each;
    } else {
        c->at = UINT_MAX;
    }
    return r;
}

/* On the fast path: an occurrence replayed whose pace decides a cut is timed from here. */
static void time_if_paced(struct tracker *t, struct region *r)
{
    struct cuts *c = &t->cuts;
    if (t->mode != FOLLOW_REPLAY || r->graph == NULL)
        return;
    struct cut_bounds bounds = cut_bounds_now();
    if (t->period)
        c->timed = batch_may_grow(&c->batches, r->length) ? &c->batches.pace : NULL;
    else if (c->segmented)
        c->timed = &c->segmented->pace;
    else if (segment_calls(r->length, &bounds) > 0 &&
             (pace_verdict(&r->pace) != PACE_FAST || r->stats.replays % CUTS_FAST_PACE_EVERY == 0))
        c->timed = &r->pace;
    if (c->timed)
        c->began_ns = monotonic_ns();
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
 * Starts following a sequence at its first call, c (its signature sig):
 * replay, record, or just learn.  A region wanted or graphed on the robust
 * path starts its capture here, before its first call is forwarded.  A
 * graphed region on trial (either path) may pass the occurrence through
 * instead, timed.
 */
void start_sequence(struct tracker *t, const struct call_sig *sig, const struct call *c)
{
    cudaStream_t stream = c->stream;
    t->trial.region = 0; /* a sequence cut short without end_sequence (look_for_period) is not timed */
    if (atomic_load_explicit(&threads_seen, memory_order_relaxed) > 1)
        note_handovers_at_start(t, c);
    /* A sync-free loop's cuts follow the batch in use (plan_cut), not the region that came after the last. */
    struct region *r = plan_cut(t, sig, t->period ? regions_candidate(&t->table, sig, 1)
                                                  : regions_predicted(&t->table, sig));
    t->region = r;
    t->mode = r == NULL ? FOLLOW_NONE : r->state == REGION_GRAPHED ? FOLLOW_REPLAY : FOLLOW_RECORD;
    if (r == NULL)
        return;
    if (!(r->graph && r->robust)) {
        char why[256];
        /* The free test first: robust_path_reason may scan the loaded objects. */
        const char *reason = capture_stream_eligible(stream) ? robust_path_reason(r, why, sizeof why) : NULL;
        if (reason == NULL) {
            if (!trial_passes_through(t, r))
                time_if_paced(t, r);
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
