/* SPDX-License-Identifier: MIT */
/* Hand-overs of a stream between threads, as a thread's own state: what another thread's call takes over, and marks. */
#ifndef REPRISE_ENGINE_HANDOVER_H
#define REPRISE_ENGINE_HANDOVER_H

#include "engine_tracker.h"

#pragma GCC visibility push(hidden)

/* What a call touches, as far as its order after another thread's sequence goes. */
struct touch {
    enum call_kind kind;
    cudaStream_t stream;
    cudaEvent_t event; /* the event kinds only */
};

/* Who took over a stream of a thread's sequence: that thread's number and its call. */
struct handover_by {
    unsigned thread;
    const char *call;
};

/* What call c touches (into x). */
const struct touch *touch_of_call(const struct call *c, struct touch *x);

/* Whether a call of another thread that touches x comes after t's current sequence through a stream or event of it. */
bool hands_over(struct tracker *t, const struct touch *x);

/* Tells t (its lock held) that the calling thread's call of name takes over a stream of its sequence, which ends. */
void mark_handed_over(struct tracker *t, const char *name);

/* Whether any held-back call of t is on its per-thread default stream. */
bool holds_per_thread_work(const struct tracker *t);

/* After another thread submitted t's per-thread-stream work on the legacy stream: marks where, for t to wait. */
void note_moved_work(struct tracker *t);

/* At t's next call after another thread did something for it: its stream waits for moved work; true if handed over. */
bool rejoin_moved_stream(struct tracker *t, struct handover_by *by);

/* Forgets a hand-over mark on t (its lock held): the sequence it would end was dropped; a moved work's wait stays owed. */
void handover_forget_mark(struct tracker *t);

/* Whether t's stream still owes a wait for its work another thread moved onto the legacy stream (t's lock held). */
bool moved_work_owed(const struct tracker *t);

/* Destroys t's private event of moved work, unless a wait for it is still owed (its context ends). */
void moved_work_drop(struct tracker *t);

/* At the first call of my sequence, c: ends other threads' sequences it takes a stream over from. */
void note_handovers_at_start(struct tracker *me, const struct call *c);

/* Whether another thread did something that t acts on at its next call (rejoin_moved_work); read without t's lock. */
static inline bool rejoin_pending(const struct tracker *t)
{
    return atomic_load_explicit(&t->handover.pending, memory_order_relaxed);
}

/* My call took a stream over from another thread: my sequence starts look for more (note_handovers_at_start). */
static inline void handover_found(struct tracker *me)
{
    me->handover.quiet_starts = 0;
}

#pragma GCC visibility pop

#endif
