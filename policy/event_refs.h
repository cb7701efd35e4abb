/* SPDX-License-Identifier: MIT */
/* How an event call's event relates to its sequence's earlier event calls: what its signature names it by. */
#ifndef REPRISE_EVENT_REFS_H
#define REPRISE_EVENT_REFS_H

#include <stdbool.h>
#include <stdint.h>

/*
 * A program may record and wait for another event in each occurrence of
 * the same work (JAX's runtime takes them from a pool), so an event call's
 * signature does not name its event, whose handle would make every
 * occurrence a region of its own, but how the event relates to the
 * sequence's earlier event calls: how many calls back the last one that
 * named the same event is, or EVENT_REF_NEW if none did.  Occurrences whose
 * event calls relate alike are the same region: which event a call names
 * is a parameter of its node, as a pointer is (docs/design.md, "Events that
 * rotate"), while what a graph's shape depends on stays in the signature: a
 * wait for an event recorded earlier in the region is an edge from that
 * record, one for an event named nowhere before it a wait node.
 *
 * The table keeps each event the sequence named, in the order they first
 * came, with the position of the last call that named it; reset at a
 * sequence's start, it keeps its memory.
 */
struct event_seen {
    uint64_t event;
    unsigned last; /* the position of the sequence's last call that named it */
};

struct event_refs {
    struct event_seen *seen;
    unsigned count, capacity;
};

/* An event call whose event no earlier call of its sequence named. */
#define EVENT_REF_NEW 0

/* What an event call is named by when the table could not grow: no call of a region is (see event_refs_note). */
#define EVENT_REF_UNKNOWN UINT64_MAX

/* The most events one sequence's table holds. */
#define EVENT_REFS_MAX 65536

/* Forgets the events noted (a sequence starts), keeping the memory. */
static inline void event_refs_reset(struct event_refs *r)
{
    r->count = 0;
}

/* Frees the table's memory. */
void event_refs_free(struct event_refs *r);

/*
 * Notes that the call at position names event (positions grow call by
 * call) and returns its reference: the distance back to the last call
 * that named it, or EVENT_REF_NEW.  EVENT_REF_UNKNOWN if the event is new
 * and the table cannot take it (EVENT_REFS_MAX, or memory ran out).
 */
uint64_t event_refs_note(struct event_refs *r, uint64_t event, unsigned position);

/* Whether a call at position first or later named event. */
bool event_refs_named_since(const struct event_refs *r, uint64_t event, unsigned first);

/* A reference in words, for logs: "named 3 calls before", "new to the sequence". */
const char *event_ref_words(uint64_t ref, char *buf, unsigned len);

#endif
