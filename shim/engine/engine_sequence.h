/* SPDX-License-Identifier: MIT */
/* A sequence's start and end: which region it follows, and at its end launch, build or learn; where calls are cut. */
#ifndef REPRISE_ENGINE_SEQUENCE_H
#define REPRISE_ENGINE_SEQUENCE_H

#include "engine_tracker.h"

#pragma GCC visibility push(hidden)

/* Starts following a sequence at its first call, c (its signature sig): replay, record, or just learn. */
void start_sequence(struct tracker *t, const struct call_sig *sig, const struct call *c);

/* Ends the current sequence (launch, build or learn); a replay it cuts short falls back for reason, naming name. */
void end_sequence(struct tracker *t, bool at_sync, enum fallback_reason reason, const char *name);

/* Ends the current sequence before runtime call c, a boundary, is forwarded. */
void end_sequence_before(struct tracker *t, const struct call *c);

/* Ends t's sequence where another thread's call took over its stream (from any thread, under t's lock); counted. */
void end_sequence_handed_over(struct tracker *t, enum fallback_reason reason, const char *name);

/* Feeds the period detector a call of a long stretch that follows no region; cuts at the period once it settled. */
void look_for_period(struct tracker *t, const struct call_sig *sig);

/*
 * After the sequence ended before a boundary call (under t's lock): a whole
 * region's pending pace sample is taken when the call returns if it is a
 * host sync (sync: its wait is the GPU's work left), at once otherwise.
 */
void pace_at_boundary(struct tracker *t, bool sync);

/* After a call this thread made returned (engine_call_returned): the sync pace_at_boundary timed, if any. */
void pace_sync_returned(void);

/* Forgets the sync-free loop's period, if one was found: the calls are looked at for one anew. */
void forget_period(struct tracker *t);

/* Drops t's sequence without learning from it, and the timings that span it (the governor steps the engine aside). */
void abandon_sequence(struct tracker *t);

/* The cut check's slow path: ends a sequence that holds a whole cut, or feeds the period detector. */
void cut_check(struct tracker *t);

/* How many calls the sequence's cut holds (UINT_MAX: the sequence is no cut): where it ends, for both paths. */
static inline unsigned cut_calls(const struct tracker *t)
{
    return t->cuts.at;
}

/* Whether an occurrence on trial ended at t's last call: its sample is taken at this one (trial_sample). */
static inline bool trial_ended(const struct tracker *t)
{
    return t->trial.ended != NULL;
}

#pragma GCC visibility pop

#endif
