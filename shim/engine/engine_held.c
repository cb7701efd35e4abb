/* SPDX-License-Identifier: MIT */
/* The streams and events a thread's held-back (or captured) calls use, and whether another thread's call meets them. */
#include "config.h"

#include "engine_held.h"

/* Adds item to a small set; false if it was not there and the set is full. */
static bool add_unique(const void **set, unsigned *count, unsigned capacity, const void *item)
{
    for (unsigned i = 0; i < *count; i++)
        if (set[i] == item)
            return true;
    if (*count == capacity)
        return false;
    set[(*count)++] = item;
    return true;
}

/* Notes the stream and event a held-back (or captured) call uses, for other threads' calls to check against. */
void note_held(struct tracker *t, const struct call *c)
{
    struct held_set *h = &t->held;
    /* Most held-back calls are on the stream of the call before them. */
    bool same_stream = h->stream_count > 0 && h->streams[h->stream_count - 1] == c->stream;
    unsigned stream_capacity = sizeof h->streams / sizeof *h->streams;
    if (!same_stream && !add_unique(h->streams, &h->stream_count, stream_capacity, c->stream))
        h->everything = true;
    if ((c->kind == CALL_EVENT_RECORD || c->kind == CALL_EVENT_WAIT) &&
        !add_unique(h->events, &h->event_count, sizeof h->events / sizeof *h->events, c->event))
        h->everything = true;
}

/* Forgets the streams and events noted: t holds nothing back any more. */
void held_forget(struct tracker *t)
{
    t->held.stream_count = 0;
    t->held.event_count = 0;
    t->held.everything = false;
}

/* Whether another thread's call c could be ordered against the work t holds back. */
bool interacts(const struct tracker *t, const struct call *c)
{
    const struct held_set *h = &t->held;
    if (call_kind_in(c->kind, CALL_KINDS_NO_ORDER))
        return false;
    /* Anything else but stream work and stream or event waits is device-wide: syncs, allocations, frees,
       graphs, other copies. */
    unsigned on_streams = CALL_KINDS_ON_STREAM | CALL_KINDS_ON_EVENT;
    if (!call_kind_in(c->kind, on_streams))
        return true;
    if (h->everything)
        return true;
    bool has_stream = call_kind_in(c->kind, CALL_KINDS_ON_STREAM);
    /* The legacy stream waits for, and is waited for by, every blocking stream. */
    if (has_stream && c->stream == cudaStreamLegacy)
        return true;
    /* cudaStreamPerThread names each thread's own stream: the same handle is never the same stream here. */
    bool same_stream_possible = has_stream && c->stream != cudaStreamPerThread;
    for (unsigned i = 0; i < h->stream_count; i++)
        if (h->streams[i] == (const void *)cudaStreamLegacy || (same_stream_possible && h->streams[i] == c->stream))
            return true;
    bool has_event = call_kind_in(c->kind, CALL_KINDS_ON_EVENT);
    for (unsigned i = 0; has_event && i < h->event_count; i++)
        if (h->events[i] == c->event)
            return true;
    return false;
}
