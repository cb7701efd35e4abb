/* SPDX-License-Identifier: MIT */
/*
 * The common case of a held-back launch, inline in the front doors' wrappers: one test on the thread's tracker;
 * the tracker's lock, which takes the calls it held back in (engine_fast.c owns struct fast_follow).
 */
#ifndef REPRISE_ENGINE_FAST_H
#define REPRISE_ENGINE_FAST_H

#include <limits.h>
#include <sched.h>

#include "engine_tracker.h"

#pragma GCC visibility push(hidden)

/* Takes the fast path's calls into t's counts and records, and, for another thread, held streams (under t's lock). */
void fast_sync(struct tracker *t);

/* Opens the fast path for the thread's next calls while it replays and nothing rare goes on; else closes it. */
void fast_open(struct tracker *t);

/*
 * Takes t's lock.  Not a pthread mutex: its own thread takes it on every
 * call, almost always free, and one atomic exchange is all that costs;
 * another thread holds it only while it submits t's held-back work, so a
 * waiter yields rather than sleeps.  Whoever holds it then sees every
 * call the fast path held back in t's counts (fast_sync); the fast path
 * alone takes the lock without.
 */
static inline void tracker_lock(struct tracker *t)
{
    while (__builtin_expect(atomic_exchange_explicit(&t->busy, 1, memory_order_acquire), 0))
        sched_yield();
    if (__builtin_expect(t->fast.pos != t->fast.synced || t->fast.unnoted < t->fast.pos, 0))
        fast_sync(t);
}

/* Takes t's lock if it is free, without taking the fast path's calls in (what is read must not need them); true if taken. */
static inline bool tracker_try_lock_unsynced(struct tracker *t)
{
    return !atomic_exchange_explicit(&t->busy, 1, memory_order_acquire);
}

/* Releases t's lock. */
static inline void tracker_unlock(struct tracker *t)
{
    atomic_store_explicit(&t->busy, 0, memory_order_release);
}

/* Gets t's fast path ready, when t is made: no call is left to note. */
static inline void fast_init(struct tracker *t)
{
    t->fast.unnoted = UINT_MAX;
}

/* Closes the fast path of t: its next call goes to the engine (a relaxed store: t's own engine re-checks). */
static inline void fast_close(struct tracker *t)
{
    atomic_store_explicit(&t->fast.until, 0, memory_order_relaxed);
}

/* Closes the fast path of t from another thread, after a rare state began: sequentially consistent (see fast_open). */
static inline void fast_close_ordered(struct tracker *t)
{
    atomic_store(&t->fast.until, 0);
}

/* After t's held-back work was submitted (by anyone): its fast path closes, and none of its calls is left to note. */
static inline void fast_held_submitted(struct tracker *t)
{
    fast_close(t); /* whoever submitted the work: its thread's next call finds what changed */
    t->fast.unnoted = UINT_MAX;
}

/*
 * How many calls the fast path held back that t's counts have not taken
 * in yet (fast_sync moves them from pos - synced into the watchdog's
 * activity): read without t's lock, a read torn by a sync or a new
 * sequence at that moment can only make it differ from the last look.
 */
static inline unsigned fast_unsynced(const struct tracker *t)
{
    return __atomic_load_n(&t->fast.pos, __ATOMIC_RELAXED) - __atomic_load_n(&t->fast.synced, __ATOMIC_RELAXED);
}

/*
 * The record slot of the last call the fast path held back since t's
 * counts last took its calls in, which came after the engine's last call
 * (fast_open, at its end, takes them in); NULL if none.  Read without t's
 * lock, by a crash report on t's own thread.
 */
static inline const struct held_call *fast_last_unsynced(const struct tracker *t)
{
    unsigned pos = __atomic_load_n(&t->fast.pos, __ATOMIC_RELAXED);
    if (pos == __atomic_load_n(&t->fast.synced, __ATOMIC_RELAXED) || pos == 0 || pos > t->records.capacity)
        return NULL;
    return &t->records.calls[pos - 1];
}

/* After a call was appended to the record (now held calls): its slot, and those before it, hold region id's calls. */
static inline void fast_note_slot(struct tracker *t, unsigned id, unsigned held)
{
    if (t->fast.slots_region != id)
        t->fast.slots_region = id, t->fast.slots_held = held;
    else if (t->fast.slots_held < held)
        t->fast.slots_held = held;
}

/* The sequence switches from following region from to region to at position: the slots up to there hold both's calls. */
static inline void fast_slots_switch(struct tracker *t, unsigned from, unsigned to, unsigned position)
{
    if (t->fast.slots_region == from)
        t->fast.slots_region = to, t->fast.slots_held = position < t->fast.slots_held ? position : t->fast.slots_held;
}

/* A failed append may have written part of slot held: the slots from there hold nothing known. */
static inline void fast_slots_trim(struct tracker *t, unsigned held)
{
    if (t->fast.slots_held > held)
        t->fast.slots_held = held;
}

#pragma GCC visibility pop

/*
 * Auto mode, and nothing counted per call (REPRISE_STATS, a trace): the front doors try the fast path first.
 * Cleared while the governor steps the engine aside (engine_aside.c), when the doors forward as in off mode.
 */
extern atomic_bool engine_door_fast;

/* Whether the front doors try the fast path first (engine_door_fast): one relaxed load. */
static inline bool engine_door_is_fast(void)
{
    return atomic_load_explicit(&engine_door_fast, memory_order_relaxed);
}

#pragma GCC visibility push(hidden)
/* This thread's tracker if the door was fast when it was made, else NULL: the driver's front tests nothing more. */
extern __thread struct tracker *door_self __attribute__((tls_model("initial-exec")));
#pragma GCC visibility pop

/*
 * How the fast path holds back the launch in slot (t's lock held): writes
 * its parameters, unlocks; cudaSuccess.  One function per kernel parameter
 * shape (kernel_shape_of), whose offsets and sizes are constants, and at 0
 * the one for any other layout (engine_fast.c).
 */
typedef cudaError_t (*engine_fast_holder)(struct tracker *t, const struct held_call *slot, void *const *args);
extern const engine_fast_holder engine_fast_holders[KERNEL_SHAPES];

/* Holds back the launch engine_fast_taker took, in slot (t's lock held), by its kernel's shape; cudaSuccess. */
static inline __attribute__((always_inline)) cudaError_t engine_fast_hold(struct tracker *t, const struct held_call *slot,
                                                                         void *const *args)
{
    return engine_fast_holders[slot->layout->shape](t, slot, args);
}

/*
 * Whether the fast path holds a launch back for t (this thread's tracker,
 * or NULL), without the engine, because its thread replays a region and
 * the launch is the region's next call: then its record slot, t's lock
 * held, for engine_fast_hold; NULL for the engine's way (engine_call),
 * which also handles everything rare.  One test says whether the thread
 * replays and nothing rare goes on (fast.until, see engine_tracker.h);
 * then the launch is compared with its record slot, which holds the
 * region's call there already (slots_held), so that only its parameters
 * are written, each compared with what the graph's instance launched last
 * holds: the launch at the region's end patches the ones that differ,
 * comparing nothing.  Counts, held streams and the watchdog's activity are
 * brought up to date by whoever takes the lock next (fast_sync).  stream is
 * the launch's own, as the program passed it; named_stream what it names
 * (NULL: the legacy or the per-thread stream).  Never for the shim's own
 * calls: the driver's door checks in_engine (the runtime's wrappers never
 * see them).  Split in two (the test here, the copy in engine_fast_hold)
 * so that the wrapper keeps its arguments untouched for the engine's way.
 * First, engine_fast_next: t's lock taken and the fast path open, the slot
 * of its next call; else NULL, unlocked.
 */
static inline __attribute__((always_inline)) const struct held_call *engine_fast_next(struct tracker *t)
{
    if (__builtin_expect(t == NULL, 0))
        return NULL;
    /* Held by another thread (it submits this one's work): the engine's way waits for it. */
    if (__builtin_expect(atomic_exchange_explicit(&t->busy, 1, memory_order_acquire), 0))
        return NULL;
    unsigned pos = t->fast.pos;
    if (__builtin_expect(pos < atomic_load_explicit(&t->fast.until, memory_order_relaxed), 1))
        return &t->records.calls[pos];
    tracker_unlock(t);
    return NULL;
}

/* Whether a call on stream (NULL naming named_stream) is on the stream of recorded call c. */
static inline __attribute__((always_inline)) bool engine_fast_same_stream(const struct call *c, cudaStream_t stream,
                                                                         cudaStream_t named_stream)
{
    return c->stream == stream || (stream == NULL && c->stream == named_stream);
}

/* Whether a launch of the slot's shape, on stream (naming named_stream), with args, is the slot's call. */
static inline __attribute__((always_inline)) bool engine_fast_fits(const struct held_call *slot, void *const *args,
                                                                  cudaStream_t stream, cudaStream_t named_stream)
{
    return engine_fast_same_stream(&slot->call, stream, named_stream) && (args != NULL || slot->layout->count == 0);
}

/* The fast path's test for a launch of the runtime's (geometry as dim3, as it arrives in registers). */
static inline __attribute__((always_inline)) const struct held_call *
engine_fast_taker(struct tracker *t, enum hook_id api, const void *func, dim3 grid, dim3 block, void *const *args,
                  size_t shared_mem, cudaStream_t stream, cudaStream_t named_stream)
{
    /* engine_fast_next written out: with one unlock, GCC gives the runtime's wrappers 5 instructions fewer. */
    if (__builtin_expect(t == NULL, 0))
        return NULL;
    if (__builtin_expect(atomic_exchange_explicit(&t->busy, 1, memory_order_acquire), 0))
        return NULL;
    unsigned pos = t->fast.pos;
    if (__builtin_expect(pos < atomic_load_explicit(&t->fast.until, memory_order_relaxed), 1)) {
        const struct held_call *slot = &t->records.calls[pos];
        if (__builtin_expect(held_is_launch(&slot->call, api, func, grid, block, shared_mem) &&
                                 engine_fast_fits(slot, args, stream, named_stream),
                             1))
            return slot;
    }
    tracker_unlock(t);
    return NULL;
}

/* The same for the driver's cuLaunchKernel, whose geometry comes as six numbers: compared one by one. */
static inline __attribute__((always_inline)) const struct held_call *
engine_fast_taker_dims(struct tracker *t, enum hook_id api, const void *func, const unsigned dims[6],
                       void *const *args, size_t shared_mem, cudaStream_t stream, cudaStream_t named_stream)
{
    const struct held_call *slot = engine_fast_next(t);
    if (slot == NULL)
        return NULL;
    const struct call *c = &slot->call;
    if (__builtin_expect(c->api == api && c->func == func && c->grid.x == dims[0] && c->grid.y == dims[1] &&
                             c->grid.z == dims[2] && c->block.x == dims[3] && c->block.y == dims[4] &&
                             c->block.z == dims[5] && c->shared_mem == shared_mem &&
                             engine_fast_fits(slot, args, stream, named_stream),
                         1))
        return slot;
    tracker_unlock(t);
    return NULL;
}

/*
 * The same for a held-back event record or wait (cudaEventRecord,
 * cudaStreamWaitEvent, their _ptsz, the driver's cuEventRecord and
 * cuStreamWaitEvent): the region's next call if its slot holds the same
 * function, event, stream (and a wait's flags), while the region's graph
 * names its own events (events_fixed: its every event call so far named
 * the graph's event at its place, so that this one relates to the
 * sequence's others as the graph's does and needs no patch).  Such a call
 * has no parameters to write, so engine_fast_event_hold only moves on.  A
 * pool's rotating events go the engine's way (region_graph_events_fixed).
 * wait: the call is a wait (flags compared); a record's flags field is
 * unwritten.
 */
static inline __attribute__((always_inline)) struct tracker *
engine_fast_event_taker(enum hook_id api, cudaEvent_t event, bool wait, unsigned flags, cudaStream_t stream,
                        cudaStream_t named_stream)
{
    struct tracker *t = self;
    const struct held_call *slot = engine_fast_next(t);
    if (slot == NULL)
        return NULL;
    const struct call *c = &slot->call;
    if (__builtin_expect(c->api == api && c->event == event && (!wait || c->flags == flags) &&
                             engine_fast_same_stream(c, stream, named_stream) && t->fast.events_fixed,
                         1))
        return t;
    tracker_unlock(t);
    return NULL;
}

/* Holds back the event call engine_fast_event_taker took (t's lock held): moves on past it, unlocks; cudaSuccess. */
static inline __attribute__((always_inline)) cudaError_t engine_fast_event_hold(struct tracker *t)
{
    __atomic_store_n(&t->fast.pos, t->fast.pos + 1, __ATOMIC_RELAXED); /* the watchdog reads it without the lock */
    tracker_unlock(t);
    return cudaSuccess;
}

#endif
