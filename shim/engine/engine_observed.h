/* SPDX-License-Identifier: MIT */
/* The signatures of a thread's calls since its sequence began: written out only where they leave the followed region. */
#ifndef REPRISE_ENGINE_OBSERVED_H
#define REPRISE_ENGINE_OBSERVED_H

#include "engine_tracker.h"

#pragma GCC visibility push(hidden)

/* Appends a signature to the sequence being observed. */
void observe_sig(struct tracker *t, const struct call_sig *sig);

/* Writes out the signatures counted while they matched the followed region. */
void materialize_observed(struct tracker *t);

/* The signature of call i of t's sequence: written out, or its region's while the calls matched it (t's lock held). */
static inline const struct call_sig *sequence_sig(const struct tracker *t, unsigned i)
{
    return i < t->observed_stored ? &t->observed[i] : &t->region->sigs[i];
}

#pragma GCC visibility pop

#endif
