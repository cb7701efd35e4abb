/* The robust path's trial, as the engine runs it: times occurrences of regions on trial and acts on the verdicts. */
#include "config.h"

#include "log.h"
#include "robust_trial.h"
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

/* Acts on the verdict of r's trial: keep the robust path, or pass r through and back it off. */
static void settle(struct region_table *table, struct region *r)
{
    const struct payoff_result *p = &r->trial.result;
    double robust_us = p->robust_median * 1e6, eager_us = p->eager_median * 1e6;
    bool pays = p->verdict == PAYOFF_PAYS;
    trace_event("payoff", "\"region\":%u,\"pays\":%s,\"robust_us\":%.1f,\"eager_us\":%.1f", r->id,
                pays ? "true" : "false", robust_us, eager_us);
    if (pays) {
        log_info("region %u: the robust path pays (%.1f us an occurrence against %.1f us passed through)", r->id,
                 robust_us, eager_us);
        return;
    }
    regions_failed(table, r, FALLBACK_NOT_PAYING);
    /* Said at info once: a region that keeps losing is tried again after ever longer back-offs. */
    log_msg(r->stats.fallbacks[FALLBACK_NOT_PAYING] == 1 ? LOG_INFO : LOG_DEBUG,
            "region %u: the robust path does not pay (%.1f us an occurrence against %.1f us passed through): "
            "passing through until it is stable again (%u sightings), then trying again",
            r->id, robust_us, eager_us, regions_backoff_needed(table, r));
}

/* Ends the timing of a sequence: a sample for the timed region's trial if it ran the way timed. */
void trial_end(struct trial_timer *timer, struct region_table *table, struct region *recaptured, struct region *seen)
{
    struct region *done = timer->way == PAYOFF_ROBUST ? recaptured : seen;
    unsigned timed = timer->region;
    timer->region = 0;
    if (timed == 0 || done == NULL || done->id != timed)
        return;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double seconds = (double)(now.tv_sec - timer->start.tv_sec) + (double)(now.tv_nsec - timer->start.tv_nsec) * 1e-9;
    if (payoff_add(&done->trial, timer->way, seconds) != PAYOFF_UNDECIDED)
        settle(table, done);
}
