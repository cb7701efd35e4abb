/* SPDX-License-Identifier: MIT */
/* Unit tests of the region table: learning, candidates, back-off, eviction. */
#include "config.h"

#include <stdlib.h>

#include "check.h"
#include "regions.h"

/* A sequence of n launch signatures of kernels base, base+1, ... */
static void make_seq(struct call_sig *sigs, unsigned n, unsigned base)
{
    memset(sigs, 0, sizeof *sigs * n);
    for (unsigned i = 0; i < n; i++) {
        sigs[i].api = 1;
        sigs[i].target = base + i;
        sigs[i].grid[0] = sigs[i].block[0] = 32;
    }
}

static const struct region_policy policy = {
    .min_repeats = 2, .min_calls = 3, .max_calls = 100, .max_graphs = 2, .max_regions = 8};

/* A region becomes WANTED after min_repeats identical sightings; different ones are separate regions. */
static void test_learning(void)
{
    struct region_table t;
    regions_init(&t, &policy);
    struct call_sig a[10], b[10];
    make_seq(a, 10, 100);
    make_seq(b, 10, 100);
    b[5].grid[0] = 64; /* same kernels, one launch geometry differs */
    struct region *ra = regions_sighting(&t, a, 10);
    CHECK(ra && ra->state == REGION_LEARNING && ra->stable == 1);
    struct region *rb = regions_sighting(&t, b, 10);
    CHECK(rb && rb != ra && rb->state == REGION_LEARNING);
    CHECK(regions_sighting(&t, a, 10) == ra);
    CHECK(ra->state == REGION_WANTED);
    CHECK(ra->stats.sightings == 2);
    /* Too short or too long: not tracked. */
    CHECK(regions_sighting(&t, a, 2) == NULL);
    struct call_sig *long_seq = calloc(101, sizeof *long_seq);
    make_seq(long_seq, 101, 0);
    CHECK(regions_sighting(&t, long_seq, 101) == NULL);
    free(long_seq);
    /* A prefix is a different region. */
    CHECK(regions_sighting(&t, a, 9) != ra);
    regions_fini(&t);
}

/* Candidates: only WANTED or GRAPHED regions whose start matches, the most recent first. */
static void test_candidates(void)
{
    struct region_table t;
    regions_init(&t, &policy);
    struct call_sig a[6], b[6];
    make_seq(a, 6, 1);
    make_seq(b, 6, 1);
    b[4].target = 99; /* shares a's first four calls */
    CHECK(regions_candidate(&t, a, 1) == NULL);
    struct region *ra = regions_sighting(&t, a, 6);
    CHECK(regions_candidate(&t, a, 1) == NULL); /* still learning */
    regions_sighting(&t, a, 6);
    struct region *rb = regions_sighting(&t, b, 6);
    regions_sighting(&t, b, 6);
    CHECK(ra->state == REGION_WANTED && rb->state == REGION_WANTED);
    CHECK(regions_candidate(&t, a, 1) == rb); /* b was used last */
    CHECK(regions_candidate(&t, a, 5) == ra); /* the fifth call tells them apart */
    CHECK(regions_candidate(&t, b, 5) == rb);
    struct call_sig c[6];
    make_seq(c, 6, 50);
    CHECK(regions_candidate(&t, c, 1) == NULL);
    regions_fini(&t);
}

/* A sighting of a region's own calls counts exactly as a sighting of the same signatures does. */
static void test_sighting_of(void)
{
    struct region_table t, u;
    regions_init(&t, &policy);
    regions_init(&u, &policy);
    struct call_sig a[5];
    make_seq(a, 5, 7);
    struct region *rt = regions_sighting(&t, a, 5), *ru = regions_sighting(&u, a, 5);
    for (int i = 0; i < 6; i++) {
        if (i == 3) {
            regions_failed(&t, rt, FALLBACK_MISMATCH);
            regions_failed(&u, ru, FALLBACK_MISMATCH);
        }
        CHECK(regions_sighting_of(&t, rt) == rt);
        CHECK(regions_sighting(&u, a, 5) == ru);
        CHECK(rt->state == ru->state && rt->stable == ru->stable && rt->last_used == ru->last_used);
        CHECK(rt->stats.sightings == ru->stats.sightings && t.clock == u.clock);
    }
    regions_fini(&t);
    regions_fini(&u);
}

/* A new table t holding one region, the 5 calls of a, seen min_repeats times and given graph. */
static struct region *one_graphed_region(struct region_table *t, struct call_sig *a, void *graph)
{
    regions_init(t, &policy);
    make_seq(a, 5, 7);
    struct region *r = regions_sighting(t, a, 5);
    regions_sighting(t, a, 5);
    CHECK(regions_graph_built(t, r, graph) == NULL);
    return r;
}

/* Failures back off, longer each time; stable sightings bring a region back. */
static void test_backoff(void)
{
    struct region_table t;
    struct call_sig a[5];
    int graph_token;
    struct region *r = one_graphed_region(&t, a, &graph_token);
    CHECK(r->state == REGION_GRAPHED && t.graphs == 1);
    regions_replayed(&t, r, 3);
    CHECK(r->stats.replays == 1 && r->stats.calls_saved == 5 && r->stats.args_patched == 3);
    /* Replays that patched nothing, and instances: one per build, more for recurring argument sets. */
    CHECK(r->stats.unpatched == 0 && r->stats.instances == 1);
    regions_replayed(&t, r, 0);
    regions_instance_made(r);
    CHECK(r->stats.unpatched == 1 && r->stats.instances == 2 && r->stats.args_patched == 3);

    regions_failed(&t, r, FALLBACK_MISMATCH);
    CHECK(r->state == REGION_BACKOFF && r->stats.fallbacks[FALLBACK_MISMATCH] == 1);
    CHECK(regions_candidate(&t, a, 1) == NULL);
    CHECK(regions_backoff_needed(&t, r) == 2);
    regions_sighting(&t, a, 5);
    CHECK(r->state == REGION_BACKOFF);
    regions_sighting(&t, a, 5);
    CHECK(r->state == REGION_GRAPHED); /* its graph was kept: no rebuild */
    CHECK(regions_candidate(&t, a, 1) == r);

    /* Failing again without a successful replay in between doubles the wait. */
    regions_failed(&t, r, FALLBACK_ALLOCATION);
    CHECK(regions_backoff_needed(&t, r) == 4);
    for (int i = 0; i < 3; i++)
        regions_sighting(&t, a, 5);
    CHECK(r->state == REGION_BACKOFF);
    regions_sighting(&t, a, 5);
    CHECK(r->state == REGION_GRAPHED);
    /* A success resets the count. */
    regions_replayed(&t, r, 0);
    regions_failed(&t, r, FALLBACK_MISMATCH);
    CHECK(regions_backoff_needed(&t, r) == 2);
    for (int i = 0; i < 40; i++)
        regions_failed(&t, r, FALLBACK_MISMATCH);
    CHECK(regions_backoff_needed(&t, r) == 2u << 6);
    regions_fini(&t);
}

/* Plays a whole trial of r, recording each re-captured occurrence; robust ones take `robust` s, eager ones 1 s. */
static enum payoff_verdict play_trial(struct region_table *t, struct region *r, double robust)
{
    enum payoff_verdict verdict = PAYOFF_UNDECIDED;
    CHECK(payoff_start(&r->trial, 2));
    while (payoff_next(&r->trial) != PAYOFF_NONE) {
        regions_sighting_of(t, r);
        if (payoff_next(&r->trial) == PAYOFF_GRAPHED) {
            regions_recaptured(t, r);
            verdict = payoff_add(&r->trial, PAYOFF_GRAPHED, robust);
        } else {
            verdict = payoff_add(&r->trial, PAYOFF_EAGER, 1.0);
        }
    }
    return verdict;
}

/* Robust replays during a trial are no success: trials that keep losing back off longer each time. */
static void test_losing_trials(void)
{
    struct region_table t;
    struct call_sig a[5];
    int graph_token;
    struct region *r = one_graphed_region(&t, a, &graph_token);
    regions_failed(&t, r, FALLBACK_MISMATCH);
    regions_recaptured(&t, r); /* no trial: a success */
    CHECK(r->failures == 0);
    for (unsigned wait = 2; wait <= 8; wait *= 2) {
        CHECK(play_trial(&t, r, 2.0) == PAYOFF_DOES_NOT_PAY);
        regions_failed(&t, r, FALLBACK_NOT_PAYING);
        CHECK(regions_backoff_needed(&t, r) == wait);
        for (unsigned i = 0; i < wait; i++)
            regions_sighting_of(&t, r);
        CHECK(r->state == REGION_GRAPHED && r->graph == &graph_token); /* back, its graph kept */
    }
    CHECK(r->stats.fallbacks[FALLBACK_NOT_PAYING] == 3);
    /* A trial that pays: the next robust replay is a success again. */
    CHECK(play_trial(&t, r, 0.5) == PAYOFF_PAYS);
    CHECK(r->failures == 3);
    regions_recaptured(&t, r);
    CHECK(r->failures == 0);
    regions_fini(&t); /* frees the trial's samples too (checked under valgrind or ASan) */
}

/* More graphs than allowed: the least recently used one is evicted and must be learnt again. */
static void test_eviction(void)
{
    struct region_table t;
    regions_init(&t, &policy);
    struct call_sig s[3][4];
    struct region *r[3];
    int tokens[3];
    for (int i = 0; i < 3; i++) {
        make_seq(s[i], 4, 10 * (unsigned)i);
        regions_sighting(&t, s[i], 4);
        r[i] = regions_sighting(&t, s[i], 4);
    }
    CHECK(regions_graph_built(&t, r[0], &tokens[0]) == NULL);
    CHECK(regions_graph_built(&t, r[1], &tokens[1]) == NULL);
    regions_replayed(&t, r[0], 0); /* r[1] is now the least recently used */
    struct region *victim = regions_graph_built(&t, r[2], &tokens[2]);
    CHECK(victim == r[1]);
    if (victim) {
        CHECK(victim->graph == &tokens[1]);
        regions_evicted(&t, victim);
        CHECK(victim->graph == NULL && victim->state == REGION_LEARNING && t.graphs == 2);
        CHECK(victim->stats.evictions == 1);
    }
    regions_fini(&t);
}

/* The table remembers at most max_regions regions, dropping the least recently used without a graph. */
static void test_region_limit(void)
{
    struct region_table t;
    regions_init(&t, &policy);
    struct call_sig s[4];
    for (unsigned i = 0; i < 20; i++) {
        make_seq(s, 4, 100 * i);
        CHECK(regions_sighting(&t, s, 4) != NULL);
    }
    CHECK(t.count == policy.max_regions);
    regions_fini(&t);
    CHECK(t.count == 0);
}

/*
 * Deferral timeouts: one backs off like any failure; a second in a row starts a
 * timeout back-off of 16 sightings, doubling with each further timeout, and the
 * region comes back with its graph kept; a replay forgives them.
 */
static void test_deferral_timeouts(void)
{
    struct region_table t;
    struct call_sig a[5];
    int graph_token;
    struct region *r = one_graphed_region(&t, a, &graph_token);
    CHECK(!regions_failed(&t, r, FALLBACK_DEFERRAL_TIMEOUT));
    CHECK(r->state == REGION_BACKOFF && r->timeouts == 1);
    regions_sighting(&t, a, 5);
    regions_sighting(&t, a, 5);
    CHECK(r->state == REGION_GRAPHED);
    /* A successful replay in between forgives the first timeout. */
    regions_replayed(&t, r, 0);
    CHECK(r->timeouts == 0);
    CHECK(!regions_failed(&t, r, FALLBACK_DEFERRAL_TIMEOUT));
    /* Other failures between two timeouts do not forgive them. */
    for (int i = 0; i < 2; i++)
        regions_sighting(&t, a, 5);
    CHECK(!regions_failed(&t, r, FALLBACK_MISMATCH));
    CHECK(regions_failed(&t, r, FALLBACK_DEFERRAL_TIMEOUT));
    CHECK(r->state == REGION_BACKOFF && r->timeouts == 2 && r->stats.fallbacks[FALLBACK_DEFERRAL_TIMEOUT] == 3);
    CHECK(regions_backoff_needed(&t, r) == 16);
    for (int i = 0; i < 15; i++)
        regions_sighting(&t, a, 5);
    CHECK(r->state == REGION_BACKOFF && regions_candidate(&t, a, 1) == NULL);
    regions_sighting(&t, a, 5);
    CHECK(r->state == REGION_GRAPHED && r->graph == &graph_token);
    /* Timing out again doubles the back-off; the back-offs stop growing at 16 << 12 sightings. */
    CHECK(regions_failed(&t, r, FALLBACK_DEFERRAL_TIMEOUT));
    CHECK(regions_backoff_needed(&t, r) == 32);
    for (int i = 0; i < 20; i++)
        regions_failed(&t, r, FALLBACK_DEFERRAL_TIMEOUT);
    CHECK(regions_backoff_needed(&t, r) == 16u << 12);
    /* Without its graph it comes back wanted; a replay forgives every timeout. */
    regions_graph_dropped(&t, r);
    CHECK(r->graph == NULL && t.graphs == 0 && r->state == REGION_WANTED);
    CHECK(regions_graph_built(&t, r, &graph_token) == NULL);
    regions_replayed(&t, r, 0);
    CHECK(r->timeouts == 0 && regions_backoff_needed(&t, r) == policy.min_repeats);
    CHECK(strcmp(fallback_reason_name(FALLBACK_DEFERRAL_TIMEOUT), "deferral_timeout") == 0);
    regions_fini(&t);
}

/* A region refers to its calls' streams and targets; an invalidated graph is forgotten and its region learnt again. */
static void test_references(void)
{
    struct region_table t;
    struct call_sig a[5];
    int graph_token;
    struct region *r = one_graphed_region(&t, a, &graph_token);
    for (unsigned i = 0; i < 5; i++)
        a[i].stream = 100; /* the region copied its signatures: this changes nothing of it */
    const uint64_t kernels[] = {3, 9, 40}, other_kernels[] = {1, 2, 12, 13}, streams[] = {0, 100};
    CHECK(region_refers_to(r, REGION_REF_TARGET, kernels, 3));       /* kernel 9 is its third call's */
    CHECK(!region_refers_to(r, REGION_REF_TARGET, other_kernels, 4)); /* its kernels are 7 to 11 */
    CHECK(region_refers_to(r, REGION_REF_STREAM, streams, 1));        /* every call is on stream 0 */
    CHECK(!region_refers_to(r, REGION_REF_STREAM, streams + 1, 1));
    CHECK(!region_refers_to(r, REGION_REF_TARGET, kernels, 0));
    regions_replayed(&t, r, 0);
    regions_replayed(&t, r, 0);
    CHECK(r->stats.graphs_replayed == 1); /* one graph, replayed twice */
    regions_graph_invalidated(&t, r);
    CHECK(r->graph == NULL && t.graphs == 0 && r->state == REGION_LEARNING && r->stable == 0);
    CHECK(r->stats.invalidations == 1 && r->stats.evictions == 0);
    regions_graph_invalidated(&t, r); /* no graph: nothing more counted */
    CHECK(r->stats.invalidations == 1);
    CHECK(strcmp(fallback_reason_name(FALLBACK_OBJECT_ENDED), "object_ended") == 0);
    regions_fini(&t);
}

/* A table whose two graphs (max_graphs) are *ra's (built first) and *rb's; c holds a third sequence. */
static void two_graphed_regions(struct region_table *t, struct call_sig *a, struct call_sig *b, struct call_sig *c,
                                int *graph, struct region **ra, struct region **rb)
{
    *ra = one_graphed_region(t, a, graph);
    make_seq(b, 5, 20);
    make_seq(c, 5, 40);
    *rb = regions_sighting(t, b, 5);
    regions_sighting(t, b, 5);
    CHECK(regions_graph_built(t, *rb, graph) == NULL); /* max_graphs is 2: the table is full */
}

/* An evicted graph that was never replayed is counted as such; one that was is not. */
static void test_evicted_unreplayed(void)
{
    struct region_table t;
    struct call_sig a[5], b[5], c[5];
    int graph_token;
    struct region *ra, *rb;
    two_graphed_regions(&t, a, b, c, &graph_token, &ra, &rb);
    regions_replayed(&t, rb, 0);
    struct region *rc = regions_sighting(&t, c, 5);
    regions_sighting(&t, c, 5);
    struct region *victim = regions_graph_built(&t, rc, &graph_token);
    CHECK(victim == ra); /* the least recently used: built first, never replayed */
    regions_evicted(&t, victim);
    CHECK(ra->stats.evictions == 1 && ra->stats.evicted_unreplayed == 1);
    regions_replayed(&t, rc, 0);
    victim = regions_graph_built(&t, ra, &graph_token); /* built again: rb is now the least recently used */
    CHECK(victim == rb);
    regions_evicted(&t, victim);
    CHECK(rb->stats.evictions == 1 && rb->stats.evicted_unreplayed == 0 && rb->stats.graphs_replayed == 1);
    regions_fini(&t);
}

/*
 * A region whose every sighting is apart from the last by the use of all
 * max_graphs graphs is crowded out: it stays LEARNING, counted, and is
 * weighed again at each sighting; fewer graphs in between, it is wanted.
 */
static void test_crowded_out(void)
{
    struct region_table t;
    struct call_sig a[5], b[5], c[5];
    int graph_token;
    struct region *ra, *rb;
    two_graphed_regions(&t, a, b, c, &graph_token, &ra, &rb);
    struct region *rc = regions_sighting(&t, c, 5);
    regions_replayed(&t, ra, 0);
    regions_replayed(&t, rb, 0);
    CHECK(regions_sighting(&t, c, 5) == rc);
    CHECK(rc->crowded && rc->crowded_by == 2 && rc->state == REGION_LEARNING && rc->stats.crowded == 1);
    /* Both graphs ran again in between: still crowded out. */
    regions_sighting_of(&t, ra);
    regions_replayed(&t, rb, 0);
    regions_sighting(&t, c, 5);
    CHECK(rc->crowded && rc->state == REGION_LEARNING && rc->stats.crowded == 2);
    /* Only one graph ran since: a graph built for it would outlive the next gap; it is wanted. */
    regions_replayed(&t, rb, 0);
    regions_sighting(&t, c, 5);
    CHECK(!rc->crowded && rc->crowded_by == 1 && rc->state == REGION_WANTED && rc->stats.crowded == 2);
    regions_fini(&t);
}

/*
 * Regions that begin with the same call and come in turn: the one coming
 * is the one that came after the region seen last (regions_predicted),
 * where the one used last is the wrong one; a predicted region that is
 * backed off is followed by none, not by another that begins alike.
 */
static void test_predicted(void)
{
    struct region_table t;
    struct region_policy wide = policy;
    wide.max_graphs = 8;
    regions_init(&t, &wide);
    struct call_sig s[3][4];
    struct region *r[3];
    for (int i = 0; i < 3; i++) {
        make_seq(s[i], 4, 10);
        s[i][3].target = 100 + (unsigned)i; /* they part at the fourth call */
    }
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < 3; i++)
            r[i] = regions_sighting(&t, s[i], 4);
    CHECK(r[0]->state == REGION_WANTED && r[1]->state == REGION_WANTED && r[2]->state == REGION_WANTED);
    CHECK(regions_candidate(&t, s[0], 1) == r[2]); /* used last */
    CHECK(regions_predicted(&t, s[0]) == r[0]);    /* came after r[2] last time */
    regions_sighting(&t, s[0], 4);
    CHECK(regions_predicted(&t, s[0]) == r[1]);
    regions_failed(&t, r[1], FALLBACK_MISMATCH);
    CHECK(r[1]->state == REGION_BACKOFF && regions_predicted(&t, s[0]) == NULL);
    /* A sequence that is no region: nothing predicts what follows, the candidate is the one used last. */
    regions_sighting(&t, s[0], 2); /* shorter than min_calls */
    CHECK(regions_predicted(&t, s[0]) == r[0]);
    regions_fini(&t);
}

/*
 * Tokens that alternate with a short region, T0 S T1 S T2 S T0 ...: after
 * S, the region coming is the T after the T before S (the last two
 * regions), not the one that came after S last time (always the T before).
 */
static void test_predicted_after_pair(void)
{
    struct region_table t;
    struct region_policy wide = policy;
    wide.max_graphs = 8;
    regions_init(&t, &wide);
    struct call_sig tok[3][4], small[4];
    struct region *r[3], *between = NULL;
    for (int i = 0; i < 3; i++) {
        make_seq(tok[i], 4, 10);
        tok[i][3].target = 100 + (unsigned)i; /* the tokens part at their fourth call */
    }
    make_seq(small, 4, 50);
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < 3; i++) {
            r[i] = regions_sighting(&t, tok[i], 4);
            between = regions_sighting(&t, small, 4);
        }
    CHECK(r[0]->state == REGION_WANTED && r[1]->state == REGION_WANTED && r[2]->state == REGION_WANTED);
    /* Last seen: T2 S; S was followed by T0 last time and T2 S by T0: both say T0. */
    CHECK(regions_predicted(&t, tok[0]) == r[0]);
    regions_sighting(&t, tok[0], 4);
    regions_sighting(&t, small, 4);
    /* T0 S: the first order says T0 (S's last successor), the pair T0 S was followed by T1. */
    CHECK(between != NULL && between->next_hash == r[0]->hash);
    CHECK(regions_predicted(&t, tok[0]) == r[1]);
    regions_sighting(&t, tok[1], 4);
    regions_sighting(&t, small, 4);
    CHECK(regions_predicted(&t, tok[0]) == r[2]);
    /* A pair never seen (S S), S last followed by itself, which does not begin so: the token used last. */
    regions_sighting(&t, small, 4);
    CHECK(regions_predicted(&t, tok[0]) == r[1]);
    regions_fini(&t);
}

int main(void)
{
    test_learning();
    test_candidates();
    test_sighting_of();
    test_backoff();
    test_losing_trials();
    test_eviction();
    test_region_limit();
    test_deferral_timeouts();
    test_references();
    test_evicted_unreplayed();
    test_crowded_out();
    test_predicted();
    test_predicted_after_pair();
    CHECK(strcmp(fallback_reason_name(FALLBACK_HIDDEN_WORK), "hidden_work") == 0);
    CHECK(strcmp(fallback_reason_name(FALLBACK_NOT_PAYING), "not_paying") == 0);
    return check_result("test_regions");
}
