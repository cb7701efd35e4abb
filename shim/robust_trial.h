/* The robust path's trial, as the engine runs it: times occurrences of regions on trial and acts on the verdicts. */
#ifndef REPRISE_ROBUST_TRIAL_H
#define REPRISE_ROBUST_TRIAL_H

#include <time.h>

#include "payoff.h"
#include "regions.h"

/* The occurrence of a region on trial that a thread is timing. */
struct trial_timer {
    unsigned region;       /* the region's id; 0: none is timed */
    enum payoff_way way;   /* how it runs: passed through or on the robust path */
    struct timespec start; /* when its first call arrived */
};

/*
 * How this occurrence of r, which has a robust-path graph, runs for r's
 * trial (pairs a trial, REPRISE_ROBUST_TRIAL): PAYOFF_EAGER passes it
 * through, anything else takes the robust path.  One the trial asks for is
 * timed from here.  A trial that found the robust path does not pay starts
 * again: r is back from its back-off.
 */
enum payoff_way trial_begin(struct trial_timer *timer, struct region *r, unsigned pairs);

/*
 * Ends the timing of a sequence, if it was timed: recaptured is the region
 * whose occurrence just ran on the robust path, seen the region the
 * sequence was a complete sighting of (either may be NULL).  The timed
 * region's trial gets a sample if it ran the way timed; when that
 * completes the trial, the verdict is logged and traced and, if the robust
 * path does not pay, the region backs off (fallback reason not_paying).
 */
void trial_end(struct trial_timer *timer, struct region_table *table, struct region *recaptured, struct region *seen);

#endif
