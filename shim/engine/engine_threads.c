/* SPDX-License-Identifier: MIT */
/* Other threads' held-back work: what a call could be ordered against, hand-overs of a stream between threads, work moved onto the legacy stream. */
#include "config.h"

#include "engine_internal.h"
#include "errors.h"
#include "libcuda.h"
#include "log.h"
#include "stream_facts.h"
#include "stream_order.h"

/* How far back a hand-over looks into the other thread's sequence for the stream or event it takes over, in calls. */
#define HANDOVER_LOOKBACK 256

/*
 * Other threads' calls that look at a recording before it stops being
 * shown: a recording whose stream no one takes over soon (its thread
 * records on streams of its own, or exited) must not keep every other
 * thread's calls on the slow path.
 */
#define RECORDING_LOOKS_MAX 64

/*
 * A thread's sequence starts that look for other threads' sequences they
 * take a stream over from (note_handovers_at_start), after the last that
 * found one: a thread that takes none over stops looking, and its sequence
 * starts cost no other thread's lock.
 */
#define QUIET_STARTS_MAX 64

/* What a call touches, as far as its order after another thread's sequence goes. */
struct touch {
    enum call_kind kind;
    cudaStream_t stream;
    cudaEvent_t event; /* the event kinds only */
};

/* Whether another thread's call c could be ordered against the work t holds back. */
bool interacts(const struct tracker *t, const struct call *c)
{
    if (call_kind_in(c->kind, CALL_KINDS_NO_ORDER))
        return false;
    /* Anything else but stream work and stream or event waits is device-wide: syncs, allocations, frees,
       graphs, other copies. */
    unsigned on_streams = CALL_KINDS_ON_STREAM | CALL_KINDS_ON_EVENT;
    if (!call_kind_in(c->kind, on_streams))
        return true;
    if (t->held_everything)
        return true;
    bool has_stream = call_kind_in(c->kind, CALL_KINDS_ON_STREAM);
    /* The legacy stream waits for, and is waited for by, every blocking stream. */
    if (has_stream && c->stream == cudaStreamLegacy)
        return true;
    /* cudaStreamPerThread names each thread's own stream: the same handle is never the same stream here. */
    bool same_stream_possible = has_stream && c->stream != cudaStreamPerThread;
    for (unsigned i = 0; i < t->held_stream_count; i++)
        if (t->held_streams[i] == (const void *)cudaStreamLegacy ||
            (same_stream_possible && t->held_streams[i] == c->stream))
            return true;
    bool has_event = call_kind_in(c->kind, CALL_KINDS_ON_EVENT);
    for (unsigned i = 0; has_event && i < t->held_event_count; i++)
        if (t->held_events[i] == c->event)
            return true;
    return false;
}

/* Whether a call of kind names an event (records, waits, event syncs and queries). */
static bool names_event(enum call_kind kind)
{
    return (unsigned)kind < CALL_KIND_COUNT && call_kind_in(kind, CALL_KINDS_ON_EVENT);
}

/* What call c touches (into x). */
static const struct touch *touch_of_call(const struct call *c, struct touch *x)
{
    *x = (struct touch){.kind = c->kind, .stream = c->stream, .event = names_event(c->kind) ? c->event : NULL};
    return x;
}

/* The signature of call i of t's sequence: written out, or its region's while the calls matched it (t's lock held). */
static const struct call_sig *sequence_sig(const struct tracker *t, unsigned i)
{
    return i < t->observed_stored ? &t->observed[i] : &t->region->sigs[i];
}

/* The last created stream asked about and whether it is blocking: a sequence's calls mostly share a stream. */
struct kind_memo {
    cudaStream_t stream;
    bool blocking;
};

/* Whether work on stream a and work on stream b are ordered by the legacy stream's barriers (one of them is it). */
static bool legacy_orders(cudaStream_t a, cudaStream_t b, struct kind_memo *memo)
{
    cudaStream_t other = a == cudaStreamLegacy ? b : a;
    if (other == cudaStreamLegacy || other == cudaStreamPerThread)
        return true;
    if (other != memo->stream)
        *memo = (struct kind_memo){other, stream_kind_of(other) == STREAM_KIND_BLOCKING};
    return memo->blocking;
}

/*
 * Whether a call of another thread that touches x comes after t's current
 * sequence through one of its streams or events (t's lock held): the same
 * stream, the legacy stream and a blocking one, an event it records or
 * waits for.  Then the other thread has taken over, and t's sequence ends
 * there (a hand-over).  Unlike interacts, a device-wide call is none: it
 * follows every thread's work without taking any of it over.
 */
static bool hands_over(const struct tracker *t, const struct touch *x)
{
    unsigned on_streams = CALL_KINDS_ON_STREAM | CALL_KINDS_ON_EVENT;
    if (!call_kind_in(x->kind, on_streams))
        return false;
    bool has_stream = call_kind_in(x->kind, CALL_KINDS_ON_STREAM);
    bool has_event = names_event(x->kind);
    unsigned end = t->region ? t->observed_count : t->observed_stored;
    unsigned first = end > HANDOVER_LOOKBACK ? end - HANDOVER_LOOKBACK : 0;
    struct kind_memo memo = {NULL, false};
    for (unsigned i = end; i-- > first;) {
        const struct call_sig *sig = sequence_sig(t, i);
        cudaStream_t on = (cudaStream_t)(uintptr_t)sig->stream;
        /* cudaStreamPerThread names each thread's own stream: the same handle is never the same stream here. */
        if (has_stream && on == x->stream && on != cudaStreamPerThread)
            return true;
        if (has_stream && (on == cudaStreamLegacy || x->stream == cudaStreamLegacy) &&
            legacy_orders(on, x->stream, &memo))
            return true;
        enum call_kind kind = call_api_kind(sig->api);
        if (has_event && (kind == CALL_EVENT_RECORD || kind == CALL_EVENT_WAIT) &&
            sig->target == (uint64_t)(uintptr_t)x->event)
            return true;
    }
    return false;
}

/* Whether any held-back call of t is on its per-thread default stream. */
bool holds_per_thread_work(const struct tracker *t)
{
    for (unsigned i = 0; i < t->records.count; i++)
        if (t->records.calls[i].call.stream == cudaStreamPerThread)
            return true;
    return false;
}

/*
 * After another thread submitted t's per-thread-stream work on the legacy
 * stream: marks the legacy stream's position, for t's stream to wait for
 * at t's next call.  Later work on t's stream waits for the legacy stream
 * anyway, but a sync or query of that stream with nothing new on it would
 * not (found by tests/fuzz/threads_differential.sh).
 */
void note_moved_work(struct tracker *t)
{
    CUresult err = private_event(&t->moved_work);
    if (err == CUDA_SUCCESS)
        err = DEVICE_CALL(cuEventRecord, t->moved_work, cudaStreamLegacy);
    if (err == CUDA_SUCCESS) {
        t->moved = true;
        atomic_store_explicit(&t->moved_pending, true, memory_order_relaxed);
    } else {
        log_warn("thread %u's held-back work was submitted from another thread on the legacy stream, and its own "
                 "stream could not be made to wait for it (%s): a sync of that stream alone may return early",
                 t->thread_number, libcuda_error_name(err));
    }
}

/*
 * Tells t (its lock held), which passes its sequence through or records
 * it, that the calling thread's call of name takes over one of its
 * streams: the sequence ends there, at t's next call, on t's own thread
 * (a recorded region is built there, in its context).  t is no longer
 * looked at meanwhile.
 */
static void mark_handed_over(struct tracker *t, const char *name)
{
    t->handed_over = true;
    t->handover_thread = log_thread_number();
    t->handover_call = name;
    show_recording(t, false);
    atomic_store_explicit(&t->moved_pending, true, memory_order_relaxed);
}

/*
 * At this thread's next call after another thread did something for it
 * (moved_pending): its stream waits for its per-thread work moved onto the
 * legacy stream, and a sequence another thread took over ends here, before
 * this call, as at any boundary: learnt, and a complete recording built.
 */
void rejoin_moved_work(struct tracker *t)
{
    atomic_store_explicit(&t->moved_pending, false, memory_order_relaxed);
    if (t->moved) {
        t->moved = false;
        (void)DEVICE_CALL(cuStreamWaitEvent, cudaStreamPerThread, t->moved_work, 0);
    }
    if (t->handed_over) {
        t->handed_over = false;
        /* Work held back since is this thread's own: its boundaries, or other threads' calls, end it. */
        if (!t->pending && t->observed_count > 0) {
            log_debug("a sequence of %u calls ends where thread %u's %s took its stream over (a hand-over)",
                      t->observed_count, t->handover_thread, t->handover_call);
            end_sequence_handed_over(t, FALLBACK_THREAD, t->handover_call);
        }
    }
}

/* Says once why a graph on a thread's per-thread default stream is not launched at a hand-over. */
static void explain_per_thread_handover(const struct tracker *t, const struct region *r)
{
    static atomic_bool told;
    if (!atomic_exchange(&told, true))
        log_info("region %u of thread %u is on that thread's per-thread default stream: when another thread's call "
                 "must follow it, that thread cannot launch its graph there (cudaStreamPerThread names its own "
                 "stream), so its calls are submitted on the legacy stream instead and the region falls back "
                 "(other_thread)",
                 r->id, t->thread_number);
}

/*
 * Another thread's call c (NULL: none in particular) must follow the work
 * t holds back; t's lock is held, on the calling thread.  t's sequence
 * ends there, a boundary: a complete replay is launched as its graph, in
 * t's context, before c goes on; an incomplete one falls back (why,
 * naming name), and if c takes over one of its streams its calls so far
 * are a sighting, so that regions learn where the hand-over falls.  A
 * launch's error is owed to t's thread.  A robust-path capture is the
 * same: a complete one ends, updates its graph and launches it.  Left
 * falling back: a graph on t's per-thread default stream (this thread
 * cannot name it), and an incomplete occurrence that c follows only
 * device-wide.  Returns whether the
 * sequence ended there (a hand-over), not only fell back.
 */
static bool hand_over_held(struct tracker *t, const struct call *c, enum fallback_reason why, const char *name)
{
    struct region *r = t->region;
    struct touch x;
    bool complete = t->records.count >= r->length; /* a replay, or a robust-path capture */
    if (!complete && (c == NULL || !hands_over(t, touch_of_call(c, &x)))) {
        fall_back(t, why, name);
        return false;
    }
    bool launch = complete && !holds_per_thread_work(t);
    if (complete && !launch) {
        explain_per_thread_handover(t, r);
        fall_back(t, why, name);
    }
    unsigned id = r->id;
    unsigned long long replays = r->stats.replays; /* robust-path replays (recaptures) included */
    CUcontext previous;
    bool switched = enter_context_of(t, &previous);
    cudaError_t owed_before = errors_owed(false);
    end_sequence_handed_over(t, why, name);
    if (owed_before == cudaSuccess)
        owe_error_to(t, errors_owed(true)); /* the launch's own error (region_graph_launch owed it here) */
    libcuda_context_leave(switched, previous);
    /* A complete occurrence was a sighting of r itself: r is still there. */
    log_debug("thread %u's region %u: this thread's %s takes its stream over (a hand-over): %s", t->thread_number, id,
              name, launch && r->stats.replays > replays ? "launched as its graph first"
                                                         : "its held-back calls submitted first; it ends there");
    return true;
}

/*
 * A call must not overtake work another thread holds back or captures that
 * it could be ordered against: first, every other thread's held-back work
 * that must_submit says (interacts, for call c) ends there, a hand-over
 * (hand_over_held); why and name go to the log.  A recording that c takes
 * a stream of over ends at its thread's next call.  Returns how many
 * threads' held-back work it submitted or launched.
 */
unsigned submit_other_threads(struct tracker *me, bool (*must_submit)(const struct tracker *, const struct call *),
                                     const struct call *c, enum fallback_reason why, const char *name)
{
    unsigned submitted = 0;
    bool was_in_engine = in_engine;
    in_engine = true; /* what it submits for others is the shim's own work */
    struct touch x;
    if (c)
        touch_of_call(c, &x);
    pthread_mutex_lock(&trackers_lock);
    for (struct tracker *t = trackers; t; t = t->next) {
        if (t == me || !__atomic_load_n(&t->counted, __ATOMIC_RELAXED))
            continue;
        tracker_lock(t);
        if (t->pending && (t->mode == FOLLOW_REPLAY || t->mode == FOLLOW_RECAPTURE) && must_submit(t, c)) {
            if (hand_over_held(t, c, why, name) && me)
                me->quiet_starts = 0; /* it takes streams over: its sequence starts look for more */
            submitted++;
        } else if (t->recording_shown && (t->mode != FOLLOW_RECORD || ++t->recording_looks > RECORDING_LOOKS_MAX)) {
            show_recording(t, false); /* it gave the recording up, or no one takes its streams over */
        } else if (t->recording_shown && c && hands_over(t, &x)) {
            mark_handed_over(t, name);
            if (me)
                me->quiet_starts = 0;
        }
        tracker_unlock(t);
    }
    pthread_mutex_unlock(&trackers_lock);
    in_engine = was_in_engine;
    return submitted;
}

/*
 * At the first call of my sequence (sig, on stream), with my lock held:
 * another thread's sequence that it takes a stream over from, passed
 * through (nothing held back, nothing recorded: no one else looks at it),
 * ends at that thread's next call, so that its regions learn where it
 * hands over.  Learning only: a thread in the engine now is passed over
 * (its lock is tried, never waited for, so no lock order is at stake) and
 * the list is walked without trackers_lock (trackers are never removed).
 */
void note_handovers_at_start(struct tracker *me, const struct call_sig *sig, cudaStream_t stream)
{
    if (me->quiet_starts >= QUIET_STARTS_MAX)
        return;
    me->quiet_starts++;
    enum call_kind kind = call_api_kind(sig->api);
    struct touch x = {.kind = kind, .stream = stream,
                      .event = names_event(kind) ? (cudaEvent_t)(uintptr_t)sig->target : NULL};
    for (struct tracker *t = __atomic_load_n(&trackers, __ATOMIC_ACQUIRE); t; t = t->next) {
        if (t == me || atomic_exchange_explicit(&t->busy, true, memory_order_acquire))
            continue;
        if (!t->pending && t->mode == FOLLOW_NONE && t->observed_count > 0 && !t->overflow && !t->handed_over &&
            hands_over(t, &x)) {
            mark_handed_over(t, call_api_name(sig->api));
            me->quiet_starts = 0;
        }
        tracker_unlock(t);
    }
}
