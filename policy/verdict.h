/* What kind of program this was, from what observe mode counted. */
#ifndef REPRISE_VERDICT_H
#define REPRISE_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

#include "activity.h"

/*
 * The ceiling of what graphs can save (observe mode times it, per thread,
 * on the monotonic clock): the host time inside the calls a graph removes
 * (node kinds: launches, async copies and sets, host functions, event
 * records and waits) against the host time between syncs, from the end of
 * one host sync to the start of the next (a thread's first span begins
 * with its first node call).  Calls after a thread's last sync are in
 * neither.
 */
struct ceiling {
    unsigned long long node_calls;  /* node calls between two syncs */
    unsigned long long node_ns;     /* host time inside them */
    unsigned long long between_ns;  /* host time between syncs, those calls included */
    unsigned long long sync_ns;     /* host time inside the syncs (waiting for the device, mostly) */
    unsigned long long spans;       /* spans between two syncs */
};

/* The whole program's counts, as the exit summary sees them. */
struct program_profile {
    struct activity_counts total;
    unsigned long long calls;                     /* every intercepted call */
    unsigned long long allocs_after_first_launch; /* allocations once work had started */
    unsigned streams;                             /* streams that carried work */
    unsigned long long foreign_calls;             /* driver calls not made by the runtime (libraries' own) */
    bool timed;                                   /* observe mode: ceiling holds the program's timings */
    struct ceiling ceiling;
};

#define VERDICT_LINES_MAX 8
#define VERDICT_LINE_LEN 256

/* Sentences describing the program, most important first. */
struct verdict {
    unsigned count;
    char line[VERDICT_LINES_MAX][VERDICT_LINE_LEN];
};

/* Describes the program from its profile. */
void describe_program(const struct program_profile *profile, struct verdict *out);

/* The share of the host time between syncs that node calls took (0 to 1; 0 if nothing was between syncs). */
double ceiling_share(const struct ceiling *c);

/*
 * The ceiling in one sentence ("submission calls took 41% of the host time
 * between syncs (12.3 ms of 30.1 ms; 33000 calls, 0.37 us each): a graph
 * can save at most about that"); false, and line empty, if no host time
 * between two syncs was measured.
 */
bool describe_ceiling(const struct ceiling *c, char *line, size_t len);

#endif
