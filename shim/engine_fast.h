/* The common case of a held-back launch, inline in the front doors' wrappers: one test on the thread's tracker. */
#ifndef REPRISE_ENGINE_FAST_H
#define REPRISE_ENGINE_FAST_H

#include "engine_internal.h"

/* Auto mode, and nothing counted per call (REPRISE_STATS, a trace): the front doors try the fast path first. */
extern bool engine_door_fast;

/* Holds back the launch engine_fast_taker took (t's lock held): writes its parameters, unlocks; cudaSuccess. */
cudaError_t engine_fast_hold(struct tracker *t, void *const *args);

/*
 * Whether the fast path holds a launch back, without the engine, because
 * its thread replays a region and the launch is the region's next call:
 * then the thread's tracker, its lock held, for engine_fast_hold; NULL for
 * the engine's way (engine_call), which also handles everything rare.  One
 * test says whether the thread replays and nothing rare goes on
 * (fast.until, see engine_internal.h); then the launch is compared with
 * its record slot, which holds the region's call there already
 * (slots_held), so that only its parameters are written, each compared
 * with what the graph's instance launched last holds: the launch at the
 * region's end patches the ones that differ, comparing nothing.  Counts,
 * held streams and the watchdog's activity are brought up to date by
 * whoever takes the lock next (fast_sync).  stream is the launch's own, as
 * the program passed it; named_stream what it names (NULL: the legacy or
 * the per-thread stream), asked only for NULL.  Never for the shim's own
 * calls: the driver's door checks in_engine (the runtime's wrappers never
 * see them).  Split in two so that the wrapper keeps its arguments
 * untouched for the engine's way, and each half is a leaf.
 */
static inline __attribute__((always_inline)) struct tracker *
engine_fast_taker(enum hook_id api, const void *func, dim3 grid, dim3 block, void *const *args, size_t shared_mem,
                  cudaStream_t stream, cudaStream_t named_stream)
{
    struct tracker *t = self;
    if (__builtin_expect(t == NULL, 0))
        return NULL;
    /* Held by another thread (it submits this one's work): the engine's way waits for it. */
    if (__builtin_expect(atomic_exchange_explicit(&t->busy, true, memory_order_acquire), 0))
        return NULL;
    unsigned pos = t->fast.pos;
    if (__builtin_expect(pos < atomic_load_explicit(&t->fast.until, memory_order_relaxed), 1)) {
        const struct recorded *slot = &t->records.calls[pos];
        const struct call *c = &slot->call;
        if (__builtin_expect(record_is_launch(c, api, func, grid, block, shared_mem) &&
                                 (c->stream == stream || (stream == NULL && c->stream == named_stream)) &&
                                 (args != NULL || slot->layout->count == 0),
                             1))
            return t;
    }
    tracker_unlock(t);
    return NULL;
}

/*
 * The same for a held-back event record or wait (cudaEventRecord,
 * cudaStreamWaitEvent, their _ptsz, the driver's cuEventRecord and
 * cuStreamWaitEvent): the region's next call if its slot holds the same
 * function, event, stream (and a wait's flags).  Such a call has no
 * parameters to write and never differs from its node (the event is part
 * of the signature), so engine_fast_event_hold only moves on.  wait: the
 * call is a wait (flags compared); a record's flags field is unwritten.
 */
static inline __attribute__((always_inline)) struct tracker *
engine_fast_event_taker(enum hook_id api, cudaEvent_t event, bool wait, unsigned flags, cudaStream_t stream,
                        cudaStream_t named_stream)
{
    struct tracker *t = self;
    if (__builtin_expect(t == NULL, 0))
        return NULL;
    if (__builtin_expect(atomic_exchange_explicit(&t->busy, true, memory_order_acquire), 0))
        return NULL;
    unsigned pos = t->fast.pos;
    if (__builtin_expect(pos < atomic_load_explicit(&t->fast.until, memory_order_relaxed), 1)) {
        const struct call *c = &t->records.calls[pos].call;
        if (__builtin_expect(c->api == api && c->event == event && (!wait || c->flags == flags) &&
                                 (c->stream == stream || (stream == NULL && c->stream == named_stream)),
                             1))
            return t;
    }
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
