/* SPDX-License-Identifier: MIT */
/* Whether a region's graph pays: an interleaved trial of timed occurrences, decided by medians. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "payoff.h"

/* Starts a trial of `pairs` pairs; false (no trial) if pairs is 0 or memory ran out. */
bool payoff_start(struct payoff_trial *trial, unsigned pairs)
{
    trial->pairs = 0;
    trial->eager_count = trial->graph_count = 0;
    memset(&trial->result, 0, sizeof trial->result);
    if (pairs == 0)
        return false;
    if (trial->capacity < pairs) {
        double *grown = realloc(trial->samples, sizeof *grown * 2 * pairs);
        if (grown == NULL)
            return false;
        trial->samples = grown;
        trial->capacity = pairs;
    }
    trial->pairs = pairs;
    return true;
}

/* How the next occurrence must run: eager and graphed by turns, eager first; PAYOFF_NONE unless a trial runs. */
enum payoff_way payoff_next(const struct payoff_trial *trial)
{
    if (trial->pairs == 0 || trial->result.verdict != PAYOFF_UNDECIDED)
        return PAYOFF_NONE;
    return trial->eager_count <= trial->graph_count ? PAYOFF_EAGER : PAYOFF_GRAPHED;
}

/* Orders two samples. */
static int compare_seconds(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of n samples (n > 0); sorts them. */
static double median(double *samples, unsigned n)
{
    qsort(samples, n, sizeof *samples, compare_seconds);
    return n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
}

/* Adds one occurrence's time; the verdict if it completed the trial, else PAYOFF_UNDECIDED. */
enum payoff_verdict payoff_add(struct payoff_trial *trial, enum payoff_way way, double seconds)
{
    if (way == PAYOFF_NONE || way != payoff_next(trial))
        return PAYOFF_UNDECIDED;
    if (way == PAYOFF_EAGER)
        trial->samples[trial->eager_count++] = seconds;
    else
        trial->samples[trial->pairs + trial->graph_count++] = seconds;
    if (trial->graph_count < trial->pairs)
        return PAYOFF_UNDECIDED; /* graphed samples come second: the last one completes the trial */
    struct payoff_result *r = &trial->result;
    r->eager_median = median(trial->samples, trial->pairs);
    r->graph_median = median(trial->samples + trial->pairs, trial->pairs);
    r->verdict = r->graph_median < PAYOFF_MARGIN * r->eager_median ? PAYOFF_PAYS : PAYOFF_DOES_NOT_PAY;
    return r->verdict;
}

/* Frees what a trial holds. */
void payoff_fini(struct payoff_trial *trial)
{
    free(trial->samples);
    memset(trial, 0, sizeof *trial);
}
