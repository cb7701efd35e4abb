/* SPDX-License-Identifier: MIT */
/* The governor: learning, probes of alternating epochs, verdicts and back-offs, from stretches between host syncs. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "governor.h"

/* A probe that compared no pair after this many pairs tried gives up: nothing here can be compared. */
#define GOVERNOR_TRIES_PER_PAIR 2

/* Starts a governor in LEARN (auto) at time now. */
void governor_init(struct governor *g, const struct governor_params *params, uint64_t now)
{
    memset(g, 0, sizeof *g);
    g->params = *params;
    if (g->params.pairs == 0)
        g->params.pairs = 1;
    if (g->params.pairs > GOVERNOR_PAIRS_MAX)
        g->params.pairs = GOVERNOR_PAIRS_MAX;
    if (g->params.epoch_stretches == 0)
        g->params.epoch_stretches = 1;
    g->state = GOVERNOR_LEARN;
    g->way = GOVERNOR_AUTO;
    g->epoch = 1;
    g->way_since = now;
    g->backoff_ns = g->params.backoff_ns;
}

/* Whether stretches are wanted: while learning (counted) and probing (timed); not while a verdict holds. */
bool governor_measures(const struct governor *g)
{
    return g->state != GOVERNOR_SETTLED;
}

/* The epoch's record of kind key, made if there is room; NULL if not. */
static struct governor_kind *kind_of(struct governor_epoch *e, uint64_t key)
{
    for (unsigned i = 0; i < e->kind_count; i++)
        if (e->kinds[i].key == key)
            return &e->kinds[i];
    if (e->kind_count == GOVERNOR_KEYS)
        return NULL;
    struct governor_kind *k = &e->kinds[e->kind_count++];
    k->key = key;
    k->count = 0;
    k->sum_ns = 0;
    return k;
}

/* A stretch of ns ended by a host sync of kind key, begun in epoch `epoch`: counted if that is the current one. */
void governor_add(struct governor *g, unsigned epoch, uint64_t key, uint64_t ns)
{
    if (g->state == GOVERNOR_LEARN) {
        g->learn_stretches++;
        return;
    }
    if (g->state != GOVERNOR_PROBE || g->switching || epoch != g->epoch)
        return;
    struct governor_epoch *e = &g->current;
    e->stretches++;
    e->total_ns += ns;
    struct governor_kind *k = kind_of(e, key);
    if (k == NULL)
        return;
    k->samples[k->count % GOVERNOR_SAMPLES] = ns;
    k->count++;
    k->sum_ns += ns;
}

/* Orders two sample times. */
static int compare_ns(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/*
 * The typical stretch of a kind: the mean of the middle half of its kept
 * samples (all of them below 4).  Robust to a stall, like a median, and
 * steady where one sync ends two kinds of stretch in turn (a long and a
 * short one), where a median jumps between the two.
 */
static double typical(struct governor_kind *k)
{
    unsigned n = k->count < GOVERNOR_SAMPLES ? k->count : GOVERNOR_SAMPLES;
    uint64_t sorted[GOVERNOR_SAMPLES];
    memcpy(sorted, k->samples, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, compare_ns);
    unsigned from = n >= 4 ? n / 4 : 0, to = n >= 4 ? n - n / 4 : n;
    double sum = 0;
    for (unsigned i = from; i < to; i++)
        sum += (double)sorted[i];
    return to > from ? sum / (to - from) : 0;
}

/* Summarises epoch e into s. */
static void summarise(struct governor_epoch *e, struct governor_summary *s)
{
    s->kind_count = e->kind_count;
    s->total_ns = e->total_ns;
    for (unsigned i = 0; i < e->kind_count; i++) {
        s->key[i] = e->kinds[i].key;
        s->count[i] = e->kinds[i].count;
        s->sum_ns[i] = e->kinds[i].sum_ns;
        s->typical_ns[i] = typical(&e->kinds[i]);
    }
}

/*
 * Auto's time over aside's for the same stretches, from the two epochs of
 * a pair: each kind seen at least min times in both weighs in with its
 * typical stretch times the mean of its two counts, so that both ways are
 * priced on one mix of stretches.  False (no ratio) if the kinds compared
 * cover less than half of either epoch's time: what is left is not the
 * same work.
 */
static bool pair_ratio(const struct governor_summary *autos, const struct governor_summary *aside, unsigned min,
                       double *ratio)
{
    double auto_time = 0, aside_time = 0, auto_covered = 0, aside_covered = 0;
    for (unsigned i = 0; i < aside->kind_count; i++) {
        for (unsigned j = 0; j < autos->kind_count; j++) {
            if (autos->key[j] != aside->key[i])
                continue;
            if (aside->count[i] >= min && autos->count[j] >= min) {
                double weight = (aside->count[i] + autos->count[j]) / 2.0;
                auto_time += weight * autos->typical_ns[j];
                aside_time += weight * aside->typical_ns[i];
                auto_covered += (double)autos->sum_ns[j];
                aside_covered += (double)aside->sum_ns[i];
            }
            break;
        }
    }
    if (aside_time <= 0 || auto_time <= 0 || 2 * aside_covered < (double)aside->total_ns ||
        2 * auto_covered < (double)autos->total_ns)
        return false;
    *ratio = auto_time / aside_time;
    return true;
}

/* Begins an epoch at now, the way already in force. */
static void begin_epoch(struct governor *g, uint64_t now)
{
    g->epoch++;
    g->epoch_start = now;
    memset(&g->current, 0, sizeof g->current);
}

/* Asks for a switch to way (the epoch begins once it is done). */
static void switch_to(struct governor *g, enum governor_way way, struct governor_news *news)
{
    g->way = way;
    g->switching = true;
    g->epoch++; /* stretches begun before the switch, or during it, count for nothing */
    news->switch_way = true;
}

/* Begins a probe at now, its first epoch in the way in force (no switch: pairs go ABBA). */
static void begin_probe(struct governor *g, uint64_t now, struct governor_news *news)
{
    g->state = GOVERNOR_PROBE;
    g->in_second = false;
    g->ratio_count = g->pairs_tried = 0;
    begin_epoch(g, now);
    news->probe_started = true;
}

/* The median of the probe's pair ratios (sorts them). */
static double median_ratio(struct governor *g)
{
    unsigned n = g->ratio_count;
    for (unsigned i = 1; i < n; i++)
        for (unsigned j = i; j > 0 && g->ratios[j - 1] > g->ratios[j]; j--) {
            double swap = g->ratios[j];
            g->ratios[j] = g->ratios[j - 1];
            g->ratios[j - 1] = swap;
        }
    return n % 2 ? g->ratios[n / 2] : (g->ratios[n / 2 - 1] + g->ratios[n / 2]) / 2;
}

/*
 * Ends the probe at now with its verdict: auto if it made the same
 * stretches clearly faster, aside otherwise (a tie too); auto if no pair
 * could be compared (nothing to go by: the engine as before).  The wait
 * for the next probe doubles when the verdict repeats.
 */
static void end_probe(struct governor *g, uint64_t now, struct governor_news *news)
{
    struct governor_verdict v = {.way = GOVERNOR_AUTO, .pairs = g->ratio_count, .at_ns = now};
    if (g->ratio_count > 0) {
        v.ratio = median_ratio(g);
        v.way = v.ratio < GOVERNOR_MARGIN ? GOVERNOR_AUTO : GOVERNOR_ASIDE;
    }
    bool repeated = g->verdicts > 0 && g->verdict.way == v.way;
    if (repeated) {
        g->backoff_ns = g->backoff_ns > g->params.backoff_max_ns / 2 ? g->params.backoff_max_ns : 2 * g->backoff_ns;
    } else {
        g->backoff_ns = g->params.backoff_ns;
    }
    g->verdict = v;
    g->verdicts++;
    g->state = GOVERNOR_SETTLED;
    g->next_probe = now + g->backoff_ns;
    news->verdict = true;
    if (v.way == GOVERNOR_ASIDE && g->first_aside == 0)
        g->first_aside = now;
    if (v.way != g->way)
        switch_to(g, v.way, news);
    else
        g->epoch++;
}

/* Ends the current epoch of the probe at now: the pair's first, or its second (a ratio, maybe the verdict). */
static void end_epoch(struct governor *g, uint64_t now, struct governor_news *news)
{
    if (!g->in_second) {
        summarise(&g->current, &g->first);
        g->first_way = g->way;
        g->in_second = true;
        switch_to(g, g->way == GOVERNOR_AUTO ? GOVERNOR_ASIDE : GOVERNOR_AUTO, news);
        return;
    }
    struct governor_summary second;
    summarise(&g->current, &second);
    const struct governor_summary *autos = g->first_way == GOVERNOR_AUTO ? &g->first : &second;
    const struct governor_summary *aside = g->first_way == GOVERNOR_AUTO ? &second : &g->first;
    double ratio;
    if (pair_ratio(autos, aside, g->params.min_key_samples, &ratio))
        g->ratios[g->ratio_count++] = ratio;
    g->pairs_tried++;
    g->in_second = false;
    if (g->ratio_count >= g->params.pairs || g->pairs_tried >= GOVERNOR_TRIES_PER_PAIR * g->params.pairs)
        end_probe(g, now, news);
    else
        begin_epoch(g, now); /* the next pair starts the way this one ended: no switch */
}

/* Whether learning is over at now: long enough, enough stretches, and no graph built for a while (or long enough). */
static bool learnt(const struct governor *g, uint64_t now)
{
    const struct governor_params *p = &g->params;
    uint64_t elapsed = now - g->started_ns;
    if (elapsed < p->learn_ns || g->learn_stretches < p->learn_stretches)
        return false;
    return now - g->last_build_ns >= p->learn_quiet_ns || elapsed >= p->learn_max_ns;
}

/* Moves on at time now: ends learning, an epoch, a probe or a back-off, as due. */
struct governor_news governor_tick(struct governor *g, uint64_t now, unsigned long builds)
{
    struct governor_news news = {0};
    if (g->switching)
        return news;
    switch (g->state) {
    case GOVERNOR_LEARN:
        if (g->learn_stretches == 0)
            return news; /* learning is timed from the first stretch: the program's loop, not its start-up */
        if (!g->started) {
            g->started = true;
            g->started_ns = g->last_build_ns = now;
            g->builds_seen = builds;
        }
        if (builds != g->builds_seen) {
            g->builds_seen = builds;
            g->last_build_ns = now;
        }
        if (learnt(g, now))
            begin_probe(g, now, &news);
        return news;
    case GOVERNOR_PROBE:
        if (now - g->epoch_start >= g->params.epoch_ns && g->current.stretches >= g->params.epoch_stretches)
            end_epoch(g, now, &news);
        return news;
    case GOVERNOR_SETTLED:
        if (now >= g->next_probe)
            begin_probe(g, now, &news);
        return news;
    }
    return news;
}

/* Notes at now that the way in force changes (its time stepped aside added up). */
static void way_changed(struct governor *g, uint64_t now)
{
    if (g->way == GOVERNOR_AUTO) /* it was aside until now */
        g->aside_ns += now - g->way_since;
    g->way_since = now;
}

/* The switch governor_tick asked for is done at now: the next epoch begins (or the verdict's stay). */
void governor_switched(struct governor *g, uint64_t now)
{
    if (!g->switching)
        return;
    g->switching = false;
    way_changed(g, now);
    if (g->state == GOVERNOR_SETTLED)
        g->next_probe = now + g->backoff_ns;
    begin_epoch(g, now);
}

/* The engine could not step aside: auto stays until the next probe, after a back-off that doubles each time. */
void governor_switch_failed(struct governor *g, uint64_t now)
{
    if (!g->switching)
        return;
    g->switching = false;
    g->way = GOVERNOR_AUTO;
    g->state = GOVERNOR_SETTLED;
    g->next_probe = now + g->backoff_ns;
    /* The next failure waits twice as long, as a repeated verdict does: what stopped it may well last. */
    g->backoff_ns = g->backoff_ns > g->params.backoff_max_ns / 2 ? g->params.backoff_max_ns : 2 * g->backoff_ns;
    begin_epoch(g, now);
}

/* When governor_tick has something to do with no stretch coming (the next probe); 0 if nothing. */
uint64_t governor_wake_at(const struct governor *g)
{
    return g->state == GOVERNOR_SETTLED && !g->switching ? g->next_probe : 0;
}

/* How long the process has been stepped aside in all, up to now. */
uint64_t governor_aside_ns(const struct governor *g, uint64_t now)
{
    bool aside_now = (g->way == GOVERNOR_ASIDE) != g->switching; /* while switching, the old way still runs */
    return g->aside_ns + (aside_now ? now - g->way_since : 0);
}

/* What a ratio (auto's time / aside's) means, for the log. */
void governor_describe_ratio(double ratio, char *out, unsigned len)
{
    if (ratio >= 1)
        snprintf(out, len, "graphs cost %.0f%% here", (ratio - 1) * 100);
    else if (ratio >= GOVERNOR_MARGIN)
        snprintf(out, len, "graphs save only %.1f%% here", (1 - ratio) * 100);
    else
        snprintf(out, len, "graphs save %.0f%% here", (1 - ratio) * 100);
}
