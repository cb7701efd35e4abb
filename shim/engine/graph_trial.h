/* SPDX-License-Identifier: MIT */
/* Whether a graph pays, as the engine finds out: times occurrences of regions on trial and acts on the verdicts. */
#ifndef REPRISE_GRAPH_TRIAL_H
#define REPRISE_GRAPH_TRIAL_H

#include <time.h>

#include "payoff.h"
#include "regions.h"

/*
 * The occurrence of a region on trial that a thread is timing.  It is
 * timed from its first call to the thread's next call after the one that
 * ended it: that includes the sync that ended it, which is where a graph
 * launched at the region's end spends the GPU time an eager occurrence
 * overlapped with its own submission (measured on the H200: a PyTorch MLP
 * on a side stream took 559 us to its end on the robust path against 605 us
 * passed through, yet each iteration took 885 us against 599 us).
 */
struct trial_timer {
    unsigned region;       /* the region's id while its occurrence runs; 0: none */
    enum payoff_way way;   /* how it runs: passed through or as its graph */
    struct timespec start; /* when its first call arrived */
    struct region *ended;  /* the timed occurrence ran to its end the way timed: sampled at the next call */
};

/*
 * How this occurrence of r, which has a graph (on either path), runs for
 * r's trial (pairs a trial, REPRISE_TRIAL): PAYOFF_EAGER passes it
 * through, anything else uses the graph.  One the trial asks for is timed
 * from here.  A trial that found the graph does not pay starts again: r is
 * back from its back-off.
 */
enum payoff_way trial_begin(struct trial_timer *timer, struct region *r, unsigned pairs);

/*
 * Ends a sequence, if it was timed: graphed is the region whose occurrence
 * just ran as its graph (replayed or re-captured), seen the region the sequence was
 * a complete sighting of (either may be NULL).  If the timed region ran the
 * way timed, its sample is taken at the thread's next call (trial_sample).
 */
void trial_end(struct trial_timer *timer, struct region *graphed, struct region *seen);

/*
 * At the thread's next call after the one that ended a timed occurrence
 * (timer->ended set): its trial gets the sample.  When that completes the
 * trial, the verdict is logged and traced and, if the graph does not pay,
 * the region backs off (fallback reason not_paying).
 */
void trial_sample(struct trial_timer *timer, struct region_table *table);

#endif
