/* SPDX-License-Identifier: MIT */
/* The shim's exit summary read back from its logs (REPRISE_LOG=info, REPRISE_STATS=1), for reprise compare. */
#ifndef REPRISE_SUMMARY_READ_H
#define REPRISE_SUMMARY_READ_H

#include <stdbool.h>
#include <stddef.h>

#define SUMMARY_REASONS 24 /* fallback reasons kept (the shim has 14) */

/* One fallback reason and how often the regions summarised fell back for it. */
struct summary_reason {
    char name[32];
    unsigned long long count;
};

/* What the exit summaries of one run's processes say, summed over the processes. */
struct shim_summary {
    unsigned logs;                     /* log files read (one a process) */
    unsigned exits;                    /* of them, with an exit summary ("exit: N calls intercepted") */
    unsigned long long regions;        /* regions summarised at exit ("region N (thread T, C calls): ...") */
    unsigned long long replayed;       /* of them, replayed at least once */
    unsigned long long replays;        /* their replays */
    unsigned long long calls_saved;    /* their calls not submitted one by one */
    unsigned long long graphs_built;   /* "graphs: N built" */
    struct summary_reason reasons[SUMMARY_REASONS];
    unsigned reason_count;
    unsigned long long fallbacks;      /* every reason's count, summed */
    unsigned warnings, errors;         /* the log's warning and error lines */
    char stepped_aside[256];           /* the first line that says auto "stepped aside", its message; else "" */
    char ceiling[256];                 /* observe's first "ceiling: ..." line, its message; else "" */
};

/* Adds a fallback reason's count to s (its name: len bytes of name). */
void summary_add_reason(struct shim_summary *s, const char *name, size_t len, unsigned long long count);

/* Reads every log file of dir whose name begins with prefix into s (zeroed first). */
void summary_read(const char *dir, const char *prefix, struct shim_summary *s);

#endif
