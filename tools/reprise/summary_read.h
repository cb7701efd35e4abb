/* SPDX-License-Identifier: MIT */
/* What the shim did in a run, read back from its logs (REPRISE_LOG=info; the exit summary with REPRISE_STATS=1). */
#ifndef REPRISE_SUMMARY_READ_H
#define REPRISE_SUMMARY_READ_H

#include <stdbool.h>
#include <stddef.h>

#define SUMMARY_REASONS 24 /* fallback reasons kept (the shim has 14) */

/* Fallback reasons and how often each was given. */
struct reason_counts {
    struct {
        char name[32];
        unsigned long long count;
    } reason[SUMMARY_REASONS];
    unsigned count;
    unsigned long long total;
};

/* What the logs of one run's processes say, summed over the processes. */
struct shim_summary {
    unsigned logs;                   /* log files read (one a process the shim started in) */
    unsigned exits;                  /* of them, with an exit summary ("exit: ...": REPRISE_STATS=1, or observe) */
    unsigned long long graphed;      /* regions given a graph ("graph built", "graph captured on the robust path") */
    unsigned long long replayed;     /* regions replayed (the line of each one's first replay) */
    unsigned long long regions;      /* the exit summary's regions ("region N (thread T, C calls): ...") */
    unsigned long long replays;      /* their replays */
    unsigned long long calls_saved;  /* their calls not submitted one by one */
    struct reason_counts fallbacks;  /* the exit summary's fallbacks by reason if it lists regions, else the log's
                                        fall-back lines' (a region that does not pay is said once at info) */
    unsigned warnings, errors;       /* the logs' warning and error lines */
    char stepped_aside[256];         /* the first line that says auto "stepped aside", its message; else "" */
    char ceiling[256];               /* observe's first "ceiling: ..." line, its message; else "" */
};

/* Adds count to a fallback reason (its name: len bytes of name). */
void reasons_add(struct reason_counts *r, const char *name, size_t len, unsigned long long count);

/* Reads every log file of dir whose name begins with prefix into s (zeroed first). */
void summary_read(const char *dir, const char *prefix, struct shim_summary *s);

#endif
