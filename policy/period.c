/* SPDX-License-Identifier: MIT */
/* Finding the period of a call stream that never synchronises. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "period.h"

/* Sets up a detector; false if memory for max_period calls cannot be had. */
int period_init(struct period_detector *d, unsigned max_period, unsigned repeats)
{
    memset(d, 0, sizeof *d);
    d->max_period = max_period ? max_period : 1;
    d->repeats = repeats ? repeats : 1;
    d->ring = calloc(d->max_period, sizeof *d->ring);
    return d->ring != NULL;
}

/* Frees the detector's memory. */
void period_fini(struct period_detector *d)
{
    free(d->ring);
    d->ring = NULL;
}

/* Forgets everything seen (after a host sync, say). */
void period_reset(struct period_detector *d)
{
    d->position = 0;
    d->period = 0;
    d->run = 0;
    memset(d->last_seen, 0, sizeof d->last_seen);
}

/* The hash seen p calls ago (p <= max_period, p <= position). */
static uint64_t hash_ago(const struct period_detector *d, unsigned p)
{
    return d->ring[(d->position - p) % d->max_period];
}

/* How far a hash's entry may lie from its home slot. */
#define PERIOD_PROBES 8

/* Where hash was last fed, 0 if unknown (positions start at 1); remembers position for it. */
static uint64_t swap_last_seen(struct period_detector *d, uint64_t hash, uint64_t position)
{
    /* Open addressing with a short probe: two hashes of one period that
       share a home slot must not keep evicting each other, or the period
       would never be seen. */
    unsigned home = (unsigned)(hash ^ (hash >> 29)) % PERIOD_SLOTS;
    for (unsigned k = 0; k < PERIOD_PROBES; k++) {
        unsigned slot = (home + k) % PERIOD_SLOTS;
        if (d->last_seen[slot].position == 0 || d->last_seen[slot].hash == hash) {
            uint64_t before = d->last_seen[slot].position;
            d->last_seen[slot].hash = hash;
            d->last_seen[slot].position = position;
            return before;
        }
    }
    /* A full neighbourhood: forget the home slot's hash for this one. */
    d->last_seen[home].hash = hash;
    d->last_seen[home].position = position;
    return 0;
}

/* Feeds one call's signature hash; returns the period once it has repeated enough, else 0. */
unsigned period_feed(struct period_detector *d, uint64_t hash)
{
    if (d->period && hash_ago(d, d->period) == hash) {
        d->run++;
    } else {
        d->period = 0;
        d->run = 0;
    }
    uint64_t position = d->position + 1;
    uint64_t before = swap_last_seen(d, hash, position);
    if (d->period == 0 && before && position - before <= d->max_period) {
        /* A new candidate: count how far back it already held, so that a
           pattern resumed after a break is recognised as soon as it is. */
        unsigned p = (unsigned)(position - before);
        d->period = p;
        d->run = 1;
        for (unsigned i = 1; i + p <= d->max_period && i + p <= d->position && hash_ago(d, i) == hash_ago(d, i + p); i++)
            d->run++;
    }
    d->ring[d->position % d->max_period] = hash;
    d->position = position;
    /* `run` calls equalled their predecessor one period back: the last
       run + period calls are periodic, i.e. (run / period) + 1 periods. */
    if (d->period && d->run >= (uint64_t)d->period * (d->repeats - 1) && d->run >= d->period)
        return d->period;
    return 0;
}
