/* SPDX-License-Identifier: MIT */
/* Who made a driver call: the interposed runtime, libcuda or the shim (seen already), or someone else. */
#ifndef REPRISE_CALLER_H
#define REPRISE_CALLER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* The executable text of one object: [lo, hi); hi is 0 until it is known. */
struct text_range {
    _Atomic uintptr_t lo, hi;
};

enum { CALLER_RUNTIME, CALLER_DRIVER, CALLER_SHIM, CALLER_RANGES };
extern struct text_range caller_ranges[CALLER_RANGES];

/* Looks the ranges up again if objects were loaded since; true if addr is now inside one. */
bool caller_rescan(uintptr_t addr);

/* Whether address a lies in one of the ranges known so far. */
static inline __attribute__((always_inline)) bool caller_in_ranges(uintptr_t a)
{
    for (int i = 0; i < CALLER_RANGES; i++) {
        uintptr_t hi = atomic_load_explicit(&caller_ranges[i].hi, memory_order_acquire); /* 0: not known yet */
        uintptr_t lo = atomic_load_explicit(&caller_ranges[i].lo, memory_order_relaxed);
        if (hi != 0 && a - lo < hi - lo)
            return true;
    }
    return false;
}

/* real_found_generation + 1 when the ranges were last looked up (caller.c): nothing new to find since. */
extern atomic_uint caller_scanned_generation;
extern atomic_uint real_found_generation;

/*
 * The return address of this thread's last driver call from outside the
 * ranges, and real_found_generation then, with caller_scanned_generation
 * one more: while the generation stays, no scan can add a range (a scan
 * happens only after it changed), so the address is still outside.
 */
struct caller_seen {
    uintptr_t outside;
    unsigned generation;
};
extern __thread struct caller_seen caller_last_outside __attribute__((tls_model("initial-exec")));

/*
 * Whether a return address lies in the interposed libcudart, libcuda or the
 * shim: a few compares.  Without a dynamic runtime (a static one in the
 * program) the ranges stay incomplete, and a generation compare says that
 * nothing could have changed since the last look.  A program's own call
 * site, which makes its driver calls in a loop, is answered by two
 * compares with the one before (caller_last_outside).
 */
static inline __attribute__((always_inline)) bool caller_is_runtime(const void *return_address)
{
    uintptr_t a = (uintptr_t)return_address;
    struct caller_seen *last = &caller_last_outside;
    if (a == last->outside && last->generation == atomic_load_explicit(&real_found_generation, memory_order_relaxed))
        return false;
    if (caller_in_ranges(a))
        return true;
    unsigned scanned = atomic_load_explicit(&caller_scanned_generation, memory_order_acquire);
    unsigned generation = atomic_load_explicit(&real_found_generation, memory_order_relaxed);
    if (scanned == generation + 1) {
        last->outside = a;
        last->generation = generation;
        return false;
    }
    return caller_rescan(a);
}

#endif
