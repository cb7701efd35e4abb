/* SPDX-License-Identifier: MIT */
/* What kind of program this was, from what observe mode counted. */
#ifndef REPRISE_VERDICT_H
#define REPRISE_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

#include "activity.h"
#include "neighbours.h"

/*
 * The ceiling of what graphs can save (observe mode times it, per thread,
 * on the monotonic clock): the host time inside the calls a graph removes
 * (node kinds: launches, async copies and sets, host functions, event
 * records and waits) against the host time between syncs, from the end of
 * one host sync to the start of the next (a thread's first span begins
 * with its first node call).  Calls after a thread's last sync are in
 * neither.  A loop's first span is left out when it is far longer than
 * the rest (ceiling_add_thread): start-up (a JIT's compiles, a library's
 * first-use set-up, lazy module loading) would otherwise stand for the
 * loop's host time, and CuPy's ceiling read 18% where auto removed 45-57% of
 * its time (H200, 2026-12-01).
 */
struct ceiling {
    unsigned long long node_calls;  /* node calls between two syncs */
    unsigned long long node_ns;     /* host time inside them */
    unsigned long long between_ns;  /* host time between syncs, those calls included */
    unsigned long long sync_ns;     /* host time inside the syncs (waiting for the device, mostly) */
    unsigned long long spans;       /* spans between two syncs */
    unsigned long long call_spans;    /* those of the spans with node calls in them */
    unsigned long long call_spans_ns; /* and their host time */
    unsigned long long warmup_ns;   /* host time of the first spans left out as start-up (in none of the above) */
    unsigned long long warmup_spans; /* how many: one at most per thread */
};

/* Whether a thread's first span with node calls is start-up to leave out: a loop's, far longer than its other spans (rest). */
bool ceiling_first_is_warmup(const struct ceiling *first, const struct ceiling *rest);

/* Adds a thread's timings into total: its first span (first) and its later ones (rest), the first as warm-up if so. */
void ceiling_add_thread(struct ceiling *total, const struct ceiling *first, const struct ceiling *rest);

/* The whole program's counts, as the exit summary sees them. */
struct program_profile {
    struct activity_counts total;
    unsigned long long calls;                     /* every intercepted call */
    unsigned long long allocs_after_first_launch; /* allocations once work had started */
    unsigned streams;                             /* streams that carried work */
    unsigned long long direct_calls;             /* driver calls not made by the runtime (libraries' own) */
    bool timed;                                   /* observe mode: ceiling holds the program's timings */
    struct ceiling ceiling;
    /* Nothing was graphed (auto) or would be (observe), and this is why: sequences that do not repeat; or NULL. */
    const struct no_repeat *no_repeat;
};

#define VERDICT_LINES_MAX 10
#define VERDICT_LINE_LEN 768 /* room for two kernels' names (describe_no_repeat) */

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
