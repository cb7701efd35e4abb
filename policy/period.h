/* SPDX-License-Identifier: MIT */
/* Finding the period of a call stream that never synchronises. */
#ifndef REPRISE_PERIOD_H
#define REPRISE_PERIOD_H

#include <stdint.h>

/* Remembers the last positions of signature hashes in a small open-addressed table. */
#define PERIOD_SLOTS 4096

struct period_detector {
    unsigned max_period; /* longest period looked for, in calls */
    unsigned repeats;    /* whole periods that must repeat before it counts */
    uint64_t position;   /* calls fed so far */
    unsigned period;     /* the candidate period, 0 if none */
    uint64_t run;        /* calls in a row that equalled the call one period earlier */
    uint64_t *ring;      /* the last max_period hashes, by position % max_period */
    struct {
        uint64_t hash, position;
    } last_seen[PERIOD_SLOTS];
};

/* Sets up a detector; false if memory for max_period calls cannot be had. */
int period_init(struct period_detector *d, unsigned max_period, unsigned repeats);

/* Frees the detector's memory. */
void period_fini(struct period_detector *d);

/* Forgets everything seen (after a host sync, say). */
void period_reset(struct period_detector *d);

/*
 * Feeds one call's signature hash.  Returns the period once the last
 * `repeats` periods were identical call for call, else 0; it keeps returning
 * it for as long as the calls go on repeating.
 */
unsigned period_feed(struct period_detector *d, uint64_t hash);

#endif
