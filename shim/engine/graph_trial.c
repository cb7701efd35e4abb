/* SPDX-License-Identifier: MIT */
/* Whether a graph pays, as the engine finds out: times occurrences of regions on trial and acts on the verdicts. */
#include "config.h"

#include "graph_trial.h"
#include "log.h"
#include "trace.h"

/* How this occurrence of r runs for its trial; timed from here if the trial asks for it. */
enum payoff_way trial_begin(struct trial_timer *timer, struct region *r, unsigned pairs)
{
    if (r->trial.result.verdict == PAYOFF_DOES_NOT_PAY)
        payoff_start(&r->trial, pairs);
    timer->way = payoff_next(&r->trial);
    timer->region = timer->way == PAYOFF_NONE ? 0 : r->id;
    if (timer->region)
        clock_gettime(CLOCK_MONOTONIC, &timer->start);
    return timer->way;
}

/* Which path r's graph is on, for the log. */
static const char *path_of(const struct region *r)
{
    return r->robust ? "robust" : "fast";
}

/* Acts on the verdict of r's trial: keep the graph, or pass r through and back it off. */
static void settle(struct region_table *table, struct region *r)
{
    const struct payoff_result *p = &r->trial.result;
    double graph_us = p->graph_median * 1e6, eager_us = p->eager_median * 1e6;
    bool pays = p->verdict == PAYOFF_PAYS;
    trace_event("payoff", "\"region\":%u,\"path\":\"%s\",\"pays\":%s,\"graph_us\":%.1f,\"eager_us\":%.1f", r->id,
                path_of(r), pays ? "true" : "false", graph_us, eager_us);
    if (pays) {
        log_info("region %u: its graph pays (%s path: %.1f us an occurrence against %.1f us passed through)", r->id,
                 path_of(r), graph_us, eager_us);
        return;
    }
    regions_failed(table, r, FALLBACK_NOT_PAYING);
    /* Said at info once: a region that keeps losing is tried again after ever longer back-offs. */
    log_msg(r->stats.fallbacks[FALLBACK_NOT_PAYING] == 1 ? LOG_INFO : LOG_DEBUG,
            "region %u: its graph does not pay (%s path: %.1f us an occurrence against %.1f us passed through): "
            "passing through until it is stable again (%u sightings), then trying again",
            r->id, path_of(r), graph_us, eager_us, regions_backoff_needed(table, r));
}

/*
 * Ends a sequence: if it was the timed occurrence, run the way timed, its
 * sample is taken at the next call.  An occurrence passed through for one
 * region's trial that turned out to be another region with a graph, whose
 * trial waits for just such a sample, is that region's: it ran passed
 * through from its first call.  Regions that begin with the same call and
 * come in turn (a decode loop's tokens) would otherwise starve each
 * other's trials: each occurrence is passed through for the region that
 * came last, and is the other.
 */
void trial_end(struct trial_timer *timer, struct region *graphed, struct region *seen)
{
    struct region *done = timer->way == PAYOFF_GRAPHED ? graphed : seen;
    unsigned timed = timer->region;
    timer->region = 0;
    if (timed == 0 || done == NULL)
        return;
    if (done->id == timed ||
        (timer->way == PAYOFF_EAGER && done->graph != NULL && payoff_next(&done->trial) == PAYOFF_EAGER))
        timer->ended = done;
}

/* At the next call after a timed occurrence ended: its trial gets the sample. */
void trial_sample(struct trial_timer *timer, struct region_table *table)
{
    struct region *done = timer->ended;
    timer->ended = NULL;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double seconds = (double)(now.tv_sec - timer->start.tv_sec) + (double)(now.tv_nsec - timer->start.tv_nsec) * 1e-9;
    if (payoff_add(&done->trial, timer->way, seconds) != PAYOFF_UNDECIDED)
        settle(table, done);
}
