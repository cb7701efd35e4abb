/* SPDX-License-Identifier: MIT */
/* The events a thread's sequence names: what an event call's signature says of its event (policy/event_refs.h). */
#include "config.h"

#include "engine_events.h"

/*
 * The table holds the sequence's event calls up to t->events.upto.  The
 * engine notes each event call it sees; the fast path's event calls (a
 * replay's, which the engine never sees) are taken in from the record,
 * which holds every call of a replayed sequence at its position, before
 * anything reads the table.
 */

/* Whether call c names an event as a node: a record or a wait. */
static bool event_call(const struct call *c)
{
    return c->kind == CALL_EVENT_RECORD || c->kind == CALL_EVENT_WAIT;
}

/* Notes the event of the call at position; its reference (an unknown one makes the sequence no sighting). */
static uint64_t note(struct tracker *t, cudaEvent_t event, unsigned position)
{
    struct sequence_events *e = &t->events;
    uint64_t ref = event_refs_note(&e->refs, (uint64_t)(uintptr_t)event, position);
    if (__builtin_expect(ref == EVENT_REF_UNKNOWN, 0)) {
        t->overflow = true; /* how its events relate is not known: no region */
        event_refs_reset(&e->refs);
    }
    e->upto = position + 1;
    return ref;
}

/* Takes in the event calls of t's record before position end that the fast path held back. */
static void take_in(struct tracker *t, unsigned end)
{
    struct sequence_events *e = &t->events;
    if (t->mode != FOLLOW_REPLAY)
        return; /* the fast path takes calls only in a replay: the engine saw every other */
    if (end > t->records.count)
        end = t->records.count;
    for (unsigned i = e->upto; i < end; i++)
        if (event_call(&t->records.calls[i].call))
            (void)note(t, t->records.calls[i].call.event, i);
}

/* The reference of event call c at position of t's sequence; c taken in. */
uint64_t sequence_event_ref(struct tracker *t, const struct call *c, unsigned position)
{
    take_in(t, position);
    return note(t, c->event, position);
}

/* Whether t's sequence named event at position first or later. */
bool sequence_names_event(struct tracker *t, cudaEvent_t event, unsigned first)
{
    take_in(t, t->records.count);
    return event_refs_named_since(&t->events.refs, (uint64_t)(uintptr_t)event, first);
}

/* Takes in the event calls the fast path held back (before a fallback empties the record). */
void sequence_events_catch_up(struct tracker *t)
{
    take_in(t, t->records.count);
}

/* Forgets the sequence's events. */
void sequence_events_forget(struct tracker *t)
{
    event_refs_reset(&t->events.refs);
    t->events.upto = 0;
}
