/* SPDX-License-Identifier: MIT */
/* What a program did, counted by kind of activity (no CUDA types here). */
#ifndef REPRISE_ACTIVITY_H
#define REPRISE_ACTIVITY_H

enum activity {
    ACT_LAUNCH,       /* kernel launches */
    ACT_HOST_FUNC,    /* host functions and stream callbacks */
    ACT_COPY,         /* memcpy of any kind */
    ACT_SET,          /* memset of any kind */
    ACT_EVENT_RECORD, /* event records */
    ACT_EVENT_WAIT,   /* stream waits on events */
    ACT_SYNC,         /* host waits: stream/event/device sync, synchronous copies and sets */
    ACT_QUERY,        /* stream and event queries */
    ACT_ALLOC,        /* allocations of any kind */
    ACT_FREE,         /* frees of any kind */
    ACT_CAPTURE,      /* the program's own capture calls */
    ACT_GRAPH_LAUNCH, /* the program's own graph launches */
    ACT_COUNT
};

/* Counts of each activity. */
struct activity_counts {
    unsigned long long n[ACT_COUNT];
};

/* The plural noun for an activity, for summaries ("launches"). */
const char *activity_name(enum activity act);

#endif
