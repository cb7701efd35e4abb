/* SPDX-License-Identifier: MIT */
/*
 * Hand-overs of a stream between threads, as a thread's own state: whether
 * another thread's call takes over a stream or event of its sequence, the
 * mark that ends the sequence at its next call, and its per-thread-stream
 * work that another thread moved onto the legacy stream.
 */
#include "config.h"

#include "engine_events.h"
#include "engine_fast.h"
#include "engine_handover.h"
#include "engine_observed.h"
#include "libcuda.h"
#include "log.h"
#include "stream_facts.h"
#include "stream_order.h"

/* How far back a hand-over looks into the other thread's sequence for the stream or event it takes over, in calls. */
#define HANDOVER_LOOKBACK 256

/*
 * A thread's sequence starts that look for other threads' sequences they
 * take a stream over from (note_handovers_at_start), after the last that
 * found one: a thread that takes none over stops looking, and its sequence
 * starts cost no other thread's lock.
 */
#define QUIET_STARTS_MAX 64

/* Whether a call of kind names an event (records, waits, event syncs and queries). */
static bool names_event(enum call_kind kind)
{
    return (unsigned)kind < CALL_KIND_COUNT && call_kind_in(kind, CALL_KINDS_ON_EVENT);
}

/* What call c touches (into x). */
const struct touch *touch_of_call(const struct call *c, struct touch *x)
{
    *x = (struct touch){.kind = c->kind, .stream = c->stream, .event = names_event(c->kind) ? c->event : NULL};
    return x;
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
bool hands_over(struct tracker *t, const struct touch *x)
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
    }
    /* An event it records or waits for: a signature says how its event relates to the others, not which it is. */
    return has_event && sequence_names_event(t, x->event, first);
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
    CUresult err = private_event(&t->handover.moved_work);
    if (err == CUDA_SUCCESS)
        err = DEVICE_CALL(cuEventRecord, t->handover.moved_work, cudaStreamLegacy);
    if (err == CUDA_SUCCESS) {
        t->handover.moved = true;
        atomic_store_explicit(&t->handover.pending, true, memory_order_relaxed);
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
void mark_handed_over(struct tracker *t, const char *name)
{
    t->handover.handed_over = true;
    t->handover.thread = log_thread_number();
    t->handover.call = name;
    show_recording(t, false);
    atomic_store_explicit(&t->handover.pending, true, memory_order_relaxed);
}

/*
 * At this thread's next call after another thread did something for it
 * (rejoin_pending): its stream waits for its per-thread work moved onto
 * the legacy stream.  Returns whether another thread took over a stream of
 * its sequence (then *by names that thread and its call), which ends it.
 */
bool rejoin_moved_stream(struct tracker *t, struct handover_by *by)
{
    struct handover *h = &t->handover;
    atomic_store_explicit(&h->pending, false, memory_order_relaxed);
    if (h->moved) {
        h->moved = false;
        (void)DEVICE_CALL(cuStreamWaitEvent, cudaStreamPerThread, h->moved_work, 0);
    }
    if (!h->handed_over)
        return false;
    h->handed_over = false;
    *by = (struct handover_by){h->thread, h->call};
    return true;
}

/* Forgets a hand-over mark on t (its lock held): the sequence it would end was dropped; a moved work's wait stays owed. */
void handover_forget_mark(struct tracker *t)
{
    t->handover.handed_over = false;
    if (!t->handover.moved)
        atomic_store_explicit(&t->handover.pending, false, memory_order_relaxed);
}

/* Whether t's stream still owes a wait for its work another thread moved onto the legacy stream (t's lock held). */
bool moved_work_owed(const struct tracker *t)
{
    return t->handover.moved;
}

/* Destroys t's private event of moved work, unless a wait for it is still owed (its context ends). */
void moved_work_drop(struct tracker *t)
{
    if (!rejoin_pending(t)) {
        private_event_destroy(t->handover.moved_work);
        t->handover.moved_work = NULL;
    }
}

/*
 * At the first call of my sequence, c, with my lock held:
 * another thread's sequence that it takes a stream over from, passed
 * through (nothing held back, nothing recorded: no one else looks at it),
 * ends at that thread's next call, so that its regions learn where it
 * hands over.  Learning only: a thread in the engine now is passed over
 * (its lock is tried, never waited for, so no lock order is at stake) and
 * the list is walked without trackers_lock (trackers are never removed).
 */
void note_handovers_at_start(struct tracker *me, const struct call *c)
{
    if (me->handover.quiet_starts >= QUIET_STARTS_MAX)
        return;
    me->handover.quiet_starts++;
    struct touch x;
    touch_of_call(c, &x);
    for (struct tracker *t = __atomic_load_n(&trackers, __ATOMIC_ACQUIRE); t; t = t->next) {
        if (t == me || !tracker_try_lock_unsynced(t))
            continue;
        if (!holds_back(t) && t->mode == FOLLOW_NONE && t->observed_count > 0 && !t->overflow &&
            !t->handover.handed_over && hands_over(t, &x)) {
            mark_handed_over(t, call_api_name(c->api));
            me->handover.quiet_starts = 0;
        }
        tracker_unlock(t);
    }
}
