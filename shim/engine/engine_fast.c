/* SPDX-License-Identifier: MIT */
/*
 * The fast path's side in the engine: the holders that copy a held-back
 * launch's parameters (one per kernel shape, called from the front doors'
 * inline common case, engine_fast.h), the calls it held back taken into
 * the tracker's counts, and where it may take the thread's next calls.
 */
#include "config.h"

#include <string.h>

#include "engine_fast.h"
#include "engine_handover.h"
#include "engine_held.h"
#include "engine_sequence.h"
#include "engine_watchdog.h"
#include "region_graph.h"

/* Notes whether the launch the fast path holds back at pos differs from the graph; moves on past it and unlocks. */
static inline cudaError_t fast_held(struct tracker *t, unsigned pos, bool differs)
{
    if (__builtin_expect(differs, 0))
        t->records.differ[t->records.differ_count++] = pos;
    __atomic_store_n(&t->fast.pos, pos + 1, __ATOMIC_RELAXED); /* the watchdog reads it without the lock */
    tracker_unlock(t);
    return cudaSuccess;
}

/* fast_hold_listed for a launch with a parameter of a size other than 4 or 8 bytes: the same, with memcpy and memcmp. */
static __attribute__((noinline)) cudaError_t fast_hold_any(struct tracker *t, const struct held_call *slot,
                                                           void *const *args)
{
    unsigned pos = t->fast.pos;
    const struct kernel_params *layout = slot->layout;
    unsigned char *block = t->records.arena + slot->arena_offset;
    const unsigned char *held = t->fast.compare + t->fast.compare_at[pos];
    bool differs = false;
    for (unsigned i = 0; i < layout->count; i++) {
        memcpy(block + layout->offset[i], args[i], layout->size[i]);
        differs |= memcmp(block + layout->offset[i], held + layout->offset[i], layout->size[i]) != 0;
    }
    return fast_held(t, pos, differs);
}

/* Copies parameter i (of 4 or 8 bytes, else goto other) into block, adding its difference from held's to differ. */
#define FAST_PARAM(i)                                                                                       \
    do {                                                                                                    \
        uint32_t at = layout->offset[i];                                                                    \
        if (layout->size[i] == 8) {                                                                         \
            uint64_t now, was;                                                                              \
            memcpy(&now, args[i], 8);                                                                       \
            memcpy(&was, held + at, 8);                                                                     \
            memcpy(block + at, &now, 8);                                                                    \
            differ |= now ^ was;                                                                            \
        } else if (layout->size[i] == 4) {                                                                  \
            uint32_t now, was;                                                                              \
            memcpy(&now, args[i], 4);                                                                       \
            memcpy(&was, held + at, 4);                                                                     \
            memcpy(block + at, &now, 4);                                                                    \
            differ |= now ^ was;                                                                            \
        } else {                                                                                            \
            goto other;                                                                                     \
        }                                                                                                   \
    } while (0)

/*
 * Holds back a launch of a kernel without a shape (t's lock held): copies
 * its parameters into the arena, each compared with the graph's instance
 * launched last, notes it if any differs; cudaSuccess.  Up to 8 pointers
 * and 4-byte scalars inline, unrolled from the last down; any other launch
 * goes to fast_hold_any, so that this stays a leaf.
 */
static cudaError_t fast_hold_listed(struct tracker *t, const struct held_call *slot, void *const *args)
{
    unsigned pos = t->fast.pos;
    const struct kernel_params *layout = slot->layout;
    unsigned char *block = t->records.arena + slot->arena_offset;
    const unsigned char *held = t->fast.compare + t->fast.compare_at[pos];
    uint64_t differ = 0;
    switch (layout->count) {
    case 8: FAST_PARAM(7); /* fall through */
    case 7: FAST_PARAM(6); /* fall through */
    case 6: FAST_PARAM(5); /* fall through */
    case 5: FAST_PARAM(4); /* fall through */
    case 4: FAST_PARAM(3); /* fall through */
    case 3: FAST_PARAM(2); /* fall through */
    case 2: FAST_PARAM(1); /* fall through */
    case 1: FAST_PARAM(0); /* fall through */
    case 0: break;
    default: goto other;
    }
    return fast_held(t, pos, differ != 0);
other:
    return fast_hold_any(t, slot, args);
}

/*
 * The same for a kernel of the given shape (kernel_params.h), a constant in
 * each of its instances below: every offset and size is known, so that a
 * parameter costs its copy and compare alone, a few instructions.
 */
static inline __attribute__((always_inline)) cudaError_t fast_hold_shaped(struct tracker *t, const struct held_call *slot,
                                                                         void *const *args, unsigned shape)
{
    unsigned pos = t->fast.pos;
    unsigned char *block = t->records.arena + slot->arena_offset;
    const unsigned char *held = t->fast.compare + t->fast.compare_at[pos];
    uint64_t differ = 0;
    uint32_t end = 0;
#pragma GCC unroll 8
    for (unsigned i = 0; i < kernel_shape_count(shape); i++) {
        uint32_t at = kernel_shape_place(end, kernel_shape_wide(shape, i));
        end = at + (kernel_shape_wide(shape, i) ? 8 : 4);
        if (kernel_shape_wide(shape, i)) {
            uint64_t now, was;
            memcpy(&now, args[i], 8);
            memcpy(&was, held + at, 8);
            memcpy(block + at, &now, 8);
            differ |= now ^ was;
        } else {
            uint32_t now, was;
            memcpy(&now, args[i], 4);
            memcpy(&was, held + at, 4);
            memcpy(block + at, &now, 4);
            differ |= now ^ was;
        }
    }
    return fast_held(t, pos, differ != 0);
}

/* One holder per shape: fast_hold_shape_0xNN for shape 0xNN (0x00, no shape: the layout's own offsets and sizes). */
#define FAST_SHAPE(h, l)                                                                                    \
    static cudaError_t fast_hold_shape_0x##h##l(struct tracker *t, const struct held_call *slot, void *const *args) \
    {                                                                                                       \
        return 0x##h##l ? fast_hold_shaped(t, slot, args, 0x##h##l ? 0x##h##l : 1) : fast_hold_listed(t, slot, args); \
    }
#define FAST_SHAPE_ROW(h)                                                                                   \
    FAST_SHAPE(h, 0) FAST_SHAPE(h, 1) FAST_SHAPE(h, 2) FAST_SHAPE(h, 3) FAST_SHAPE(h, 4) FAST_SHAPE(h, 5)   \
    FAST_SHAPE(h, 6) FAST_SHAPE(h, 7) FAST_SHAPE(h, 8) FAST_SHAPE(h, 9) FAST_SHAPE(h, a) FAST_SHAPE(h, b)   \
    FAST_SHAPE(h, c) FAST_SHAPE(h, d) FAST_SHAPE(h, e) FAST_SHAPE(h, f)
FAST_SHAPE_ROW(0)
FAST_SHAPE_ROW(1)
FAST_SHAPE_ROW(2)
FAST_SHAPE_ROW(3)
FAST_SHAPE_ROW(4)
FAST_SHAPE_ROW(5)
FAST_SHAPE_ROW(6)
FAST_SHAPE_ROW(7)
#undef FAST_SHAPE

_Static_assert(KERNEL_SHAPES == 0x80, "one row of holders per 16 shapes");
#define FAST_SHAPE(h, l) [0x##h##l] = fast_hold_shape_0x##h##l,
const engine_fast_holder engine_fast_holders[KERNEL_SHAPES] = {
    FAST_SHAPE_ROW(0) FAST_SHAPE_ROW(1) FAST_SHAPE_ROW(2) FAST_SHAPE_ROW(3)
    FAST_SHAPE_ROW(4) FAST_SHAPE_ROW(5) FAST_SHAPE_ROW(6) FAST_SHAPE_ROW(7)
};
#undef FAST_SHAPE
#undef FAST_SHAPE_ROW

/*
 * Takes the fast path's calls into t's counts and records (under t's
 * lock).  Their streams go into the held set only when another thread
 * holds the lock: only other threads ask (interacts), and the calls' own
 * thread would note them in vain, the region's end clearing them.
 */
void fast_sync(struct tracker *t)
{
    unsigned from = t->fast.synced, to = t->fast.pos;
    if (from != to) {
        __atomic_store_n(&t->fast.synced, to, __ATOMIC_RELAXED); /* read by the watchdog, as pos */
        unsigned n = to - from;
        t->observed_count += n;
        t->records.count += n;
        /* The arena ends where the last launch's block does (an event call takes no room). */
        for (unsigned i = to; i-- > from;)
            if (t->records.calls[i].layout) {
                const struct held_call *last = &t->records.calls[i];
                t->records.arena_used = last->arena_offset + last->layout->total;
                break;
            }
        note_progress_by(t, n);
    }
    if (t == self || t->fast.unnoted >= to)
        return;
    for (unsigned i = t->fast.unnoted; i < to; i++)
        note_held(t, &t->records.calls[i].call);
    t->fast.unnoted = to;
}

/* Where the fast path must leave the thread's next calls to the engine again; at most pos: it takes none. */
static unsigned fast_stop(struct tracker *t, unsigned pos)
{
    struct region *r = t->region;
    /* Replaying r's graph, every call so far recorded, compared with it and in slots that hold r's calls. */
    if (t->mode != FOLLOW_REPLAY || t->observed_count != pos || t->fast.slots_region != r->id ||
        t->records.differ_graph != r->graph)
        return 0;
    if (trial_ended(t) || rejoin_pending(t))
        return 0;
    unsigned stop = r->length < t->fast.slots_held ? r->length : t->fast.slots_held;
    unsigned cut = cut_calls(t);
    if (cut - 1 < stop)
        stop = cut - 1; /* the cut's last call ends it: the engine takes it (cut_if_period_done) */
    return stop;
}

/*
 * Opens the fast path for the thread's next calls while it replays and
 * nothing rare goes on; else closes it.  Against a thread that closes it
 * (fast_close_others) after causing a rare state: that state is stored,
 * then until; here until is stored, then the states are read (all
 * sequentially consistent), so one of the two sees the other.
 */
void fast_open(struct tracker *t)
{
    unsigned pos = t->records.count;
    __atomic_store_n(&t->fast.pos, pos, __ATOMIC_RELAXED); /* the watchdog reads both (tracker_activity) */
    __atomic_store_n(&t->fast.synced, pos, __ATOMIC_RELAXED);
    unsigned stop = fast_stop(t, pos);
    if (stop <= pos) {
        if (atomic_load_explicit(&t->fast.until, memory_order_relaxed) != 0)
            fast_close(t);
        return;
    }
    region_graph_compare(t->region->graph, &t->fast.compare, &t->fast.compare_at);
    t->fast.events_fixed = region_graph_events_fixed(t->region->graph);
    if (t->fast.unnoted > pos)
        t->fast.unnoted = pos;
    atomic_store(&t->fast.until, stop);
    if (atomic_load(&pending_trackers) > 1 || atomic_load(&program_captures) != 0 || atomic_load(&shut_down) ||
        !atomic_load(&engine_holding))
        fast_close(t);
}
