/* SPDX-License-Identifier: MIT */
/* The events a thread's sequence names: what an event call's signature says of its event (policy/event_refs.h). */
#ifndef REPRISE_ENGINE_EVENTS_H
#define REPRISE_ENGINE_EVENTS_H

#include "engine_tracker.h"

#pragma GCC visibility push(hidden)

/*
 * The reference event call c at position of t's sequence gets in its
 * signature (how its event relates to the sequence's earlier event calls);
 * c is taken in (t's lock held).  EVENT_REF_UNKNOWN, the sequence no
 * sighting, if the sequence names more events than the table holds.
 */
uint64_t sequence_event_ref(struct tracker *t, const struct call *c, unsigned position);

/* Whether t's sequence named event at position first or later (t's lock held). */
bool sequence_names_event(struct tracker *t, cudaEvent_t event, unsigned first);

/* Takes in the event calls the fast path held back, before the record is emptied mid-sequence (a fallback). */
void sequence_events_catch_up(struct tracker *t);

/* Forgets the sequence's events: the next call starts a new sequence. */
void sequence_events_forget(struct tracker *t);

#pragma GCC visibility pop

#endif
