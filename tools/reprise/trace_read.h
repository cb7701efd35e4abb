/* SPDX-License-Identifier: MIT */
/* Reading a trace written by the shim (REPRISE_TRACE): its events and its regions. */
#ifndef REPRISE_TRACE_READ_H
#define REPRISE_TRACE_READ_H

#include <stdbool.h>
#include <stddef.h>

#include "json.h"

/* One fallback reason of a region and how often it happened. */
struct reason_count {
    char *reason;
    unsigned long long count;
};

/* What the trace says about one region of one thread of one process. */
struct region_info {
    long pid;
    unsigned tid, id;
    unsigned calls;
    const char *state;          /* from region_summary; NULL when the trace has none */
    unsigned long long sightings, replays, calls_saved, patched, builds, evictions;
    struct reason_count *fallbacks;
    size_t fallback_kinds;
    const char *not_graphed;    /* the last reason it was not graphed, or NULL */
    double first_us, last_us;
};

/* A whole trace. */
struct trace {
    struct json **events;       /* every event, in file order */
    size_t count;
    struct region_info *regions;
    size_t region_count;
    bool truncated;             /* the last line was cut */
    unsigned truncated_line;
};

/* Reads and indexes a trace file; dies with one line on an unreadable or malformed file. */
void trace_read(const char *path, struct trace *t);

#endif
