/* SPDX-License-Identifier: MIT */
/* How an event call's event relates to its sequence's earlier event calls: what its signature names it by. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "event_refs.h"

/* Frees the table's memory. */
void event_refs_free(struct event_refs *r)
{
    free(r->seen);
    r->seen = NULL;
    r->count = r->capacity = 0;
}

/* The entry of event, or NULL; the latest first: a wait mostly names the event recorded just before it. */
static struct event_seen *find(const struct event_refs *r, uint64_t event)
{
    for (unsigned i = r->count; i-- > 0;)
        if (r->seen[i].event == event)
            return &r->seen[i];
    return NULL;
}

/* Makes room for one more event; false if the table is full or memory ran out. */
static bool grow(struct event_refs *r)
{
    if (r->count < r->capacity)
        return true;
    unsigned capacity = r->capacity ? r->capacity * 2 : 16;
    if (r->count >= EVENT_REFS_MAX)
        return false;
    if (capacity > EVENT_REFS_MAX)
        capacity = EVENT_REFS_MAX;
    struct event_seen *grown = realloc(r->seen, sizeof *grown * capacity);
    if (grown == NULL)
        return false;
    r->seen = grown;
    r->capacity = capacity;
    return true;
}

/* Notes that the call at position names event; its reference (see event_refs.h). */
uint64_t event_refs_note(struct event_refs *r, uint64_t event, unsigned position)
{
    struct event_seen *s = find(r, event);
    if (s) {
        uint64_t back = position - s->last;
        s->last = position;
        return back;
    }
    if (!grow(r))
        return EVENT_REF_UNKNOWN;
    r->seen[r->count++] = (struct event_seen){event, position};
    return EVENT_REF_NEW;
}

/* Whether a call at position first or later named event. */
bool event_refs_named_since(const struct event_refs *r, uint64_t event, unsigned first)
{
    const struct event_seen *s = find(r, event);
    return s != NULL && s->last >= first;
}

/* A reference in words, for logs. */
const char *event_ref_words(uint64_t ref, char *buf, unsigned len)
{
    if (ref == EVENT_REF_NEW)
        snprintf(buf, len, "an event new to the sequence");
    else if (ref == EVENT_REF_UNKNOWN)
        snprintf(buf, len, "an event past the sequence's %u", EVENT_REFS_MAX);
    else
        snprintf(buf, len, "the event named %llu call%s before", (unsigned long long)ref, ref == 1 ? "" : "s");
    return buf;
}
