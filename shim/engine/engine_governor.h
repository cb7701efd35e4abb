/* SPDX-License-Identifier: MIT */
/* The governor at work (policy/governor.h decides): stretches between host syncs timed, its verdicts acted on. */
#ifndef REPRISE_ENGINE_GOVERNOR_H
#define REPRISE_ENGINE_GOVERNOR_H

#include "engine_tracker.h"

#pragma GCC visibility push(hidden)

/* A host sync the engine saw is forwarded next: the stretch it ends is timed when it returns (governor_returned). */
void governor_arm_slow(enum hook_id api, cudaStream_t stream);

/* Before a host sync the engine saw (api, on stream) is forwarded: one relaxed load unless the governor measures. */
static inline void governor_arm(enum hook_id api, cudaStream_t stream)
{
    if (__builtin_expect(engine_governor_timing(), 0))
        governor_arm_slow(api, stream);
}

/* After a call this thread made returned (engine_call_returned): the stretch a host sync armed ends. */
void governor_returned(void);

/* A step aside waits for something owed (aside_finish): try again, from a call the engine saw (no lock held). */
void governor_drain_retry_slow(void);

/* Set while a step aside waits for something owed. */
extern atomic_bool governor_draining;

/* After a call the engine saw while it holds nothing: one relaxed load, unless a step aside waits. */
static inline void governor_drain_retry(void)
{
    if (__builtin_expect(atomic_load_explicit(&governor_draining, memory_order_relaxed), 0))
        governor_drain_retry_slow();
}

#pragma GCC visibility pop

#endif
