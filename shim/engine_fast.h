/* The common case of a held-back launch, inline in the front doors' wrappers: one test on the thread's tracker. */
#ifndef REPRISE_ENGINE_FAST_H
#define REPRISE_ENGINE_FAST_H

#include "engine_internal.h"

/* Auto mode, and nothing counted per call (REPRISE_STATS, a trace): the front doors try the fast path first. */
extern bool engine_door_fast;

/* Holds back the launch whose slot engine_fast_slot found (its lock held): writes its parameters; cudaSuccess. */
cudaError_t engine_fast_hold(const struct recorded *slot, void *const *args);

/*
 * Whether the fast path holds a launch back, without the engine, because
 * its thread replays a region and the launch is the region's next call:
 * then the launch's record slot, with the tracker's lock held, for
 * engine_fast_hold; NULL for the engine's way (engine_call), which also
 * handles everything rare.  One test says whether the thread replays and
 * nothing rare goes on (fast.until, see engine_internal.h); then the
 * launch is compared with its record slot, which holds the region's call
 * there already (slots_held), so that only its parameters are written,
 * each compared with what the graph's instance launched last holds: the
 * launch at the region's end patches the ones that differ, comparing
 * nothing.  Counts, held streams and the watchdog's activity are brought
 * up to date by whoever takes the lock next (fast_sync).  Never for the
 * shim's own calls: the driver's door checks in_engine (the runtime's
 * wrappers never see them).  Split in two so that the wrapper keeps its
 * arguments untouched for the engine's way, and each half is a leaf.
 */
static inline __attribute__((always_inline)) const struct recorded *
engine_fast_slot(enum hook_id api, const void *func, dim3 grid, dim3 block, void *const *args, size_t shared_mem,
                 cudaStream_t stream)
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
        if (__builtin_expect(record_is_launch(&slot->call, api, func, grid, block, shared_mem, stream) &&
                                 (args != NULL || slot->layout->count == 0),
                             1))
            return slot;
    }
    tracker_unlock(t);
    return NULL;
}

#endif
