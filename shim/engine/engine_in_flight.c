/* SPDX-License-Identifier: MIT */
/*
 * Calls in flight: while several host threads make CUDA calls, each marks
 * the call it is forwarding, from before it looks at other threads' work
 * until the runtime or driver returns, so that another thread's robust-path
 * capture never begins on (or takes in) a stream or event that call
 * touches while it is under way.
 *
 * Why: a capture makes its streams "capturing", a state the program never
 * made.  Another thread's call that touches one of them ends the capture
 * first (submit_other_threads, under the capture's lock), but its owner
 * could begin the next capture between that and the call reaching the
 * runtime: a sync then fails (cudaErrorStreamCaptureUnsupported), a launch
 * lands in the capture.  That race is what once kept the robust path to
 * one host thread (the multi-threaded differential test found it).  The
 * two sides are a store, a fence, then loads (Dekker's pattern): the
 * caller marks its call, then reads whether others hold work
 * (pending_trackers); the capturing thread counts itself pending with the
 * streams and events it takes in, then reads the marks.  One of the two
 * sees the other: either the call ends the capture, or the capture does
 * not begin (or gives the new stream up).
 */
#include "config.h"

#include "engine_held.h"
#include "engine_in_flight.h"

__thread bool in_flight_marked __attribute__((tls_model("initial-exec")));

/* Marks c as this thread's call in flight, while several threads make CUDA calls; before anything else looks. */
void in_flight_mark(struct tracker *t, const struct call *c)
{
    if (atomic_load_explicit(&threads_seen, memory_order_relaxed) < 2)
        return; /* a second thread counts itself in threads_seen before it marks anything: see in_flight_meets */
    struct in_flight *f = &t->in_flight;
    bool has_event = call_kind_in(c->kind, CALL_KINDS_ON_EVENT);
    atomic_store_explicit(&f->kind, (int)c->kind, memory_order_relaxed);
    atomic_store_explicit(&f->stream, (uintptr_t)c->stream, memory_order_relaxed);
    atomic_store_explicit(&f->event, has_event ? (uintptr_t)c->event : 0, memory_order_relaxed);
    atomic_store_explicit(&f->live, true, memory_order_relaxed);
    in_flight_marked = true;
    atomic_thread_fence(memory_order_seq_cst); /* the mark, then others_hold_work's read */
}

/* Clears this thread's mark: its call has returned (or was held back, or answered by the shim). */
void in_flight_clear(void)
{
    in_flight_marked = false;
    if (self)
        atomic_store_explicit(&self->in_flight.live, false, memory_order_release);
}

/*
 * Whether a call of another thread in flight touches what t's capture
 * holds or is about to take in: t counts as pending already, with those
 * streams and events among its held ones (interacts reads them).  A
 * capture question counts as a question about its stream (a capture the
 * program did not make would show).  The marks are read without a lock
 * (trackers are never removed); a mark read while its thread moves on to
 * its next call can only be a call that returned already, and that next
 * call sees t pending and ends the capture itself.
 */
bool in_flight_meets(const struct tracker *t)
{
    atomic_thread_fence(memory_order_seq_cst); /* t's pending count and held sets, then the marks */
    if (atomic_load_explicit(&threads_seen, memory_order_relaxed) < 2)
        return false;
    for (const struct tracker *o = __atomic_load_n(&trackers, __ATOMIC_ACQUIRE); o; o = o->next) {
        if (o == t || !atomic_load_explicit(&o->in_flight.live, memory_order_acquire))
            continue;
        struct call c = {
            .api = HOOK_COUNT,
            .kind = (enum call_kind)atomic_load_explicit(&o->in_flight.kind, memory_order_relaxed),
            .stream = (cudaStream_t)atomic_load_explicit(&o->in_flight.stream, memory_order_relaxed),
            .event = (cudaEvent_t)atomic_load_explicit(&o->in_flight.event, memory_order_relaxed),
        };
        if (c.kind == CALL_CAPTURE_STATUS || c.kind == CALL_CAPTURE_INFO)
            c.kind = CALL_QUERY;
        if (interacts(t, &c))
            return true;
    }
    return false;
}
