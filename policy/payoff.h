/* SPDX-License-Identifier: MIT */
/* Whether a region's graph pays: an interleaved trial of timed occurrences, decided by medians. */
#ifndef REPRISE_PAYOFF_H
#define REPRISE_PAYOFF_H

#include <stdbool.h>

/*
 * A graph pays only if its median occurrence takes less than this
 * fraction of the median occurrence passed through.  A tie goes to passing
 * through: that is the program as written, with no capture that can be
 * lost, no graph or staging memory kept and nothing for the next CUDA
 * version to change.  The 3% keeps a near tie, within the jitter of a few
 * host timings, on that side: noise alone must not keep a graph that gains
 * nothing, and a gain below 3% of the region's host time is not worth its
 * risks.
 */
#define PAYOFF_MARGIN 0.97

/* How the next occurrence of a region on trial runs. */
enum payoff_way {
    PAYOFF_NONE,    /* no trial is running: the graph, untimed */
    PAYOFF_EAGER,   /* passed through, timed */
    PAYOFF_GRAPHED, /* replayed (or re-captured) as its graph, timed */
};

/* What a trial found. */
enum payoff_verdict {
    PAYOFF_UNDECIDED,    /* never run, or still running */
    PAYOFF_PAYS,         /* the graph is clearly faster: keep it */
    PAYOFF_DOES_NOT_PAY, /* it is not: pass the region through */
};

/* A verdict and the medians it was drawn from (seconds an occurrence), for the log. */
struct payoff_result {
    enum payoff_verdict verdict;
    double eager_median;
    double graph_median;
};

/*
 * One region's trial.  All zero is a valid trial that was never started.
 * The caller starts it once the region's graph exists (the
 * occurrence that instantiated it is not a fair sample); the next 2*pairs
 * occurrences alternate, passed through first.
 */
struct payoff_trial {
    unsigned pairs;        /* occurrences of each way to compare; 0: no trial */
    unsigned eager_count;  /* samples taken so far of each way */
    unsigned graph_count;
    unsigned capacity;     /* pairs samples has room for */
    double *samples;       /* eager ones in [0, pairs), graphed ones in [pairs, 2*pairs) */
    struct payoff_result result;
};

/* Starts a trial of `pairs` pairs, forgetting any earlier one; false (no trial) if pairs is 0 or memory ran out. */
bool payoff_start(struct payoff_trial *trial, unsigned pairs);

/* How the next occurrence must run: PAYOFF_NONE unless a trial is running. */
enum payoff_way payoff_next(const struct payoff_trial *trial);

/*
 * Adds the time one occurrence took the way payoff_next said (a sample of
 * the other way is ignored).  Returns the verdict if this sample completed
 * the trial (trial->result then holds the medians), else PAYOFF_UNDECIDED.
 */
enum payoff_verdict payoff_add(struct payoff_trial *trial, enum payoff_way way, double seconds);

/* Frees what a trial holds; it is then one never started. */
void payoff_fini(struct payoff_trial *trial);

#endif
