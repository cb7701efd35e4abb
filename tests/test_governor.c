/* SPDX-License-Identifier: MIT */
/* Unit tests of the governor: learning, probes of alternating epochs, verdicts, ties, noise, back-offs, phases. */
#include "config.h"

#include <stdlib.h>

#include "check.h"
#include "governor.h"

#define MS 1000000ull

/* Bounds small enough to count by hand: epochs of 10 ms and 5 stretches, 4 pairs, learning 100 ms. */
static const struct governor_params params = {
    .epoch_ns = 10 * MS,
    .epoch_stretches = 5,
    .pairs = 4,
    .min_key_samples = 3,
    .learn_ns = 100 * MS,
    .learn_stretches = 10,
    .learn_quiet_ns = 20 * MS,
    .learn_max_ns = 1000 * MS,
    .backoff_ns = 400 * MS,
    .backoff_max_ns = 3200 * MS,
};

/* A simulated program: its clock, and what the governor told it. */
struct program {
    uint64_t now;
    unsigned long builds;
    unsigned switches, probes, verdicts;
    enum governor_way ways[64]; /* the way of each switch asked for, in order */
};

/* How long a stretch of kind key takes in way (ns): the program's costs under each way. */
typedef uint64_t (*cost_fn)(enum governor_way way, uint64_t key, unsigned i);

/* Runs n stretches of kinds keys[i % nkeys] whose times cost gives, acting on the news as the shim does. */
static void run(struct governor *g, struct program *p, unsigned n, const uint64_t *keys, unsigned nkeys, cost_fn cost)
{
    for (unsigned i = 0; i < n; i++) {
        unsigned epoch = g->epoch;
        uint64_t key = keys[i % nkeys];
        uint64_t ns = cost(g->way, key, i);
        p->now += ns;
        if (governor_measures(g))
            governor_add(g, epoch, key, ns);
        struct governor_news news = governor_tick(g, p->now, p->builds);
        p->probes += news.probe_started;
        p->verdicts += news.verdict;
        if (news.switch_way) {
            if (p->switches < 64)
                p->ways[p->switches] = g->way;
            p->switches++;
            governor_switched(g, p->now);
        }
    }
}

/* Graphs halve every stretch. */
static uint64_t auto_fast(enum governor_way way, uint64_t key, unsigned i)
{
    return way == GOVERNOR_AUTO ? 1 * MS : 2 * MS;
}

/* Graphs make every stretch 10% longer. */
static uint64_t auto_slow(enum governor_way way, uint64_t key, unsigned i)
{
    return way == GOVERNOR_AUTO ? 1100000 : 1 * MS;
}

/* Stretches of 1 ms either way. */
static uint64_t same(enum governor_way way, uint64_t key, unsigned i)
{
    return 1 * MS;
}

static const uint64_t one_key[1] = {7};

/* Stretches of 10 ms either way. */
static uint64_t ten(enum governor_way way, uint64_t key, unsigned i)
{
    return 10 * MS;
}

/* Learning lasts its time and its stretches from the first stretch, and until no graph was built for a while. */
static void test_learning(void)
{
    struct governor g;
    struct program p = {.now = 5000 * MS};
    governor_init(&g, &params, p.now);
    CHECK(g.state == GOVERNOR_LEARN && g.way == GOVERNOR_AUTO && governor_measures(&g));
    /* No stretch yet: nothing moves however long the program runs (its start-up is not its loop). */
    struct governor_news news = governor_tick(&g, p.now + 10000 * MS, 0);
    CHECK(!news.probe_started && g.state == GOVERNOR_LEARN);
    p.now += 10000 * MS;
    /* 9 stretches of 10 ms: one short of learn_stretches, and 80 ms from the first one's end. */
    run(&g, &p, 9, one_key, 1, ten);
    CHECK(g.state == GOVERNOR_LEARN);
    /* A graph built in every stretch: learning goes on while the engine builds. */
    for (unsigned i = 0; i < 20; i++) {
        p.builds++;
        run(&g, &p, 1, one_key, 1, ten);
    }
    CHECK(g.state == GOVERNOR_LEARN && p.probes == 0);
    /* Quiet for 20 ms (two stretches): the probe begins, in the way in force (auto), no switch. */
    run(&g, &p, 1, one_key, 1, ten);
    CHECK(g.state == GOVERNOR_LEARN);
    run(&g, &p, 1, one_key, 1, ten);
    CHECK(g.state == GOVERNOR_PROBE && p.probes == 1 && p.switches == 0 && g.way == GOVERNOR_AUTO);
    /* Builds that never stop end learning at learn_max all the same (1 s from the first stretch's end). */
    governor_init(&g, &params, 0);
    struct program q = {0};
    for (unsigned i = 0; i < 2000 && g.state == GOVERNOR_LEARN; i++) {
        q.builds++;
        run(&g, &q, 1, one_key, 1, same);
    }
    CHECK(g.state == GOVERNOR_PROBE && q.now == 1001 * MS);
}

/* Runs g from its start to its first verdict (or n stretches) on program p. */
static void to_verdict(struct governor *g, struct program *p, cost_fn cost, unsigned n)
{
    unsigned before = p->verdicts;
    for (unsigned i = 0; i < n && p->verdicts == before; i++)
        run(g, p, 1, one_key, 1, cost);
}

/* Graphs that pay keep auto on; that cost step aside; the pairs go ABBA, four switches, each epoch long enough. */
static void test_clear_verdicts(void)
{
    struct governor g;
    struct program p = {0};
    governor_init(&g, &params, 0);
    to_verdict(&g, &p, auto_fast, 10000);
    CHECK(p.verdicts == 1 && g.state == GOVERNOR_SETTLED && g.way == GOVERNOR_AUTO);
    CHECK(g.verdict.way == GOVERNOR_AUTO && g.verdict.pairs == 4);
    CHECK(g.verdict.ratio > 0.49 && g.verdict.ratio < 0.51);
    /* A S | S A | A S | S A: aside, auto, aside, auto; ending in auto, the verdict's way, without a fifth. */
    CHECK(p.switches == 4);
    CHECK(p.ways[0] == GOVERNOR_ASIDE && p.ways[1] == GOVERNOR_AUTO && p.ways[2] == GOVERNOR_ASIDE &&
          p.ways[3] == GOVERNOR_AUTO);
    CHECK(!governor_measures(&g) && governor_wake_at(&g) == p.now + params.backoff_ns);

    governor_init(&g, &params, 0);
    struct program q = {0};
    to_verdict(&g, &q, auto_slow, 10000);
    CHECK(g.verdict.way == GOVERNOR_ASIDE && g.way == GOVERNOR_ASIDE && g.verdict.pairs == 4);
    CHECK(g.verdict.ratio > 1.09 && g.verdict.ratio < 1.11);
    CHECK(q.switches == 5 && q.ways[4] == GOVERNOR_ASIDE); /* the verdict's own switch */
    char said[64];
    governor_describe_ratio(g.verdict.ratio, said, sizeof said);
    CHECK_STR_EQ(said, "graphs cost 10% here");
    governor_describe_ratio(0.5, said, sizeof said);
    CHECK_STR_EQ(said, "graphs save 50% here");
}

static uint64_t tie_ratio_ppm; /* auto's time per million of aside's, for cost_ratio */

/* Stretches of 1 ms aside, tie_ratio_ppm ns with graphs. */
static uint64_t cost_ratio(enum governor_way way, uint64_t key, unsigned i)
{
    return way == GOVERNOR_AUTO ? tie_ratio_ppm : 1 * MS; /* a million ns: 1 ms */
}

/* A tie goes aside (the program as written), and so does a gain inside the margin; just outside it, auto. */
static void test_ties(void)
{
    const struct {
        uint64_t ppm;
        enum governor_way way;
    } cases[] = {{1000000, GOVERNOR_ASIDE}, {985000, GOVERNOR_ASIDE}, {975000, GOVERNOR_AUTO}};
    for (unsigned c = 0; c < 3; c++) {
        struct governor g;
        struct program p = {0};
        governor_init(&g, &params, 0);
        tie_ratio_ppm = cases[c].ppm;
        to_verdict(&g, &p, cost_ratio, 10000);
        CHECK(p.verdicts == 1 && g.verdict.way == cases[c].way && g.way == cases[c].way);
    }
    char said[64];
    governor_describe_ratio(0.985, said, sizeof said);
    CHECK_STR_EQ(said, "graphs save only 1.5% here");
}

static double noise_ratio; /* auto's mean time over aside's, for noisy */

/* Stretches of 1 ms (aside) or noise_ratio ms (auto), each off by up to 30%, and one in 16 stalled 20 times over. */
static uint64_t noisy(enum governor_way way, uint64_t key, unsigned i)
{
    double base = way == GOVERNOR_AUTO ? noise_ratio : 1.0;
    double factor = 0.7 + 0.6 * (double)rand() / RAND_MAX;
    if (rand() % 16 == 0)
        factor *= 20;
    return (uint64_t)(base * factor * MS);
}

/* Noise and stalls do not decide: a 10% gain keeps auto and a 10% loss steps aside, in every one of 20 runs. */
static void test_noise(void)
{
    srand(39);
    struct governor_params bigger = params;
    bigger.epoch_stretches = 40;
    unsigned right = 0;
    for (unsigned run_index = 0; run_index < 40; run_index++) {
        struct governor g;
        struct program p = {0};
        governor_init(&g, &bigger, 0);
        noise_ratio = run_index % 2 ? 0.9 : 1.1;
        to_verdict(&g, &p, noisy, 100000);
        right += p.verdicts == 1 && g.verdict.way == (run_index % 2 ? GOVERNOR_AUTO : GOVERNOR_ASIDE);
    }
    CHECK(right == 40);
}

/* The wait for the next probe doubles while the verdict repeats, up to its cap, and starts again when it changes. */
static void test_backoff(void)
{
    struct governor g;
    struct program p = {0};
    governor_init(&g, &params, 0);
    uint64_t waits[6];
    for (unsigned i = 0; i < 6; i++) {
        to_verdict(&g, &p, auto_slow, 100000);
        CHECK(g.verdict.way == GOVERNOR_ASIDE && g.state == GOVERNOR_SETTLED);
        waits[i] = governor_wake_at(&g) - p.now;
        /* Stepped aside, nothing is measured: the next probe starts from the wake-up (the shim's timer). */
        p.now = governor_wake_at(&g);
        struct governor_news news = governor_tick(&g, p.now, p.builds);
        CHECK(news.probe_started && !news.switch_way && g.way == GOVERNOR_ASIDE && g.state == GOVERNOR_PROBE);
    }
    CHECK(waits[0] == 400 * MS && waits[1] == 800 * MS && waits[2] == 1600 * MS && waits[3] == 3200 * MS &&
          waits[4] == 3200 * MS && waits[5] == 3200 * MS);
    /* This probe finds graphs paying: auto resumes, and the wait starts again from the first. */
    to_verdict(&g, &p, auto_fast, 100000);
    CHECK(g.verdict.way == GOVERNOR_AUTO && g.way == GOVERNOR_AUTO);
    CHECK(governor_wake_at(&g) - p.now == 400 * MS);
}

static unsigned phase; /* 0: graphs pay; 1: they cost */

/* auto_fast in phase 0, auto_slow in phase 1. */
static uint64_t phased(enum governor_way way, uint64_t key, unsigned i)
{
    return phase == 0 ? auto_fast(way, key, i) : auto_slow(way, key, i);
}

/* A program whose phase changes: the next probe after it finds out, and the one after the change back too. */
static void test_phases(void)
{
    struct governor g;
    struct program p = {0};
    governor_init(&g, &params, 0);
    phase = 0;
    to_verdict(&g, &p, phased, 100000);
    CHECK(g.way == GOVERNOR_AUTO);
    /* Settled: stretches are not measured, and nothing changes until the back-off is over. */
    phase = 1;
    run(&g, &p, 100, one_key, 1, phased);
    CHECK(g.state == GOVERNOR_SETTLED && g.way == GOVERNOR_AUTO && p.verdicts == 1);
    to_verdict(&g, &p, phased, 100000);
    CHECK(p.verdicts == 2 && g.way == GOVERNOR_ASIDE && g.verdict.way == GOVERNOR_ASIDE);
    phase = 0;
    p.now = governor_wake_at(&g);
    (void)governor_tick(&g, p.now, p.builds);
    to_verdict(&g, &p, phased, 100000);
    CHECK(p.verdicts == 3 && g.way == GOVERNOR_AUTO && g.verdict.ratio < 0.6);
}

/* Kind 1 takes 10 ms, kind 2 1 ms, each 10% less with graphs. */
static uint64_t two_kinds(enum governor_way way, uint64_t key, unsigned i)
{
    uint64_t base = key == 1 ? 10 * MS : 1 * MS;
    return way == GOVERNOR_AUTO ? base * 9 / 10 : base;
}

/* Two kinds of stretch in turn, a long and a short one: each is compared with itself, in any mix. */
static void test_kinds(void)
{
    struct governor g;
    struct program p = {0};
    struct governor_params longer = params;
    longer.epoch_ns = 100 * MS; /* about 8 long and 16 short stretches an epoch */
    governor_init(&g, &longer, 0);
    const uint64_t keys[3] = {1, 2, 2};
    unsigned before = p.verdicts;
    for (unsigned i = 0; i < 100000 && p.verdicts == before; i++)
        run(&g, &p, 1, keys + i % 3, 1, two_kinds);
    CHECK(g.verdict.way == GOVERNOR_AUTO && g.verdict.ratio > 0.89 && g.verdict.ratio < 0.91);
}

/* Feeds g stretches of 3 ms of kind 7, each in the epoch it began in, until it asks for a switch (not made). */
static struct governor_news to_switch(struct governor *g, struct program *p)
{
    struct governor_news news = {0};
    for (unsigned i = 0; i < 1000 && !news.switch_way; i++) {
        unsigned epoch = g->epoch;
        p->now += 3 * MS;
        governor_add(g, epoch, 7, 3 * MS);
        news = governor_tick(g, p->now, 0);
    }
    return news;
}

/* Stretches begun in another epoch, or during a switch, are not counted; nor is anything once settled. */
static void test_epochs(void)
{
    struct governor g;
    struct program p = {0};
    governor_init(&g, &params, 0);
    while (g.state == GOVERNOR_LEARN)
        run(&g, &p, 1, one_key, 1, same);
    unsigned epoch = g.epoch;
    uint64_t began = p.now;
    governor_add(&g, epoch - 1, 7, 1000 * MS);
    CHECK(g.current.stretches == 0 && g.current.total_ns == 0);
    governor_add(&g, epoch, 7, 1 * MS);
    CHECK(g.current.stretches == 1);
    /* End the epoch: a switch is asked for; stretches until it is done count for nothing. */
    struct governor_news news = to_switch(&g, &p);
    /* 10 ms and 5 stretches: 4 more of 3 ms. */
    CHECK(news.switch_way && g.switching && g.way == GOVERNOR_ASIDE && p.now == began + 12 * MS);
    governor_add(&g, g.epoch, 7, 1 * MS);
    CHECK(g.current.stretches == 0 || g.switching);
    news = governor_tick(&g, p.now + 100 * MS, 0);
    CHECK(!news.switch_way && !news.verdict && g.switching);
    governor_switched(&g, p.now);
    CHECK(!g.switching && g.current.stretches == 0 && g.epoch != epoch);
}

static uint64_t key_by_way; /* the kind test_nothing_compared's stretches have: one per way */

/* Stretches that differ between the two ways (no kind in common) compare nothing: auto stays, said as such. */
static void test_nothing_compared(void)
{
    struct governor g;
    struct program p = {0};
    governor_init(&g, &params, 0);
    unsigned before = p.verdicts;
    for (unsigned i = 0; i < 100000 && p.verdicts == before; i++) {
        key_by_way = g.way == GOVERNOR_AUTO ? 1 : 2;
        run(&g, &p, 1, &key_by_way, 1, same);
    }
    CHECK(g.verdict.way == GOVERNOR_AUTO && g.verdict.pairs == 0 && g.verdict.ratio == 0 && g.way == GOVERNOR_AUTO);
}

/* A step aside the engine cannot make leaves auto on until the next probe; time aside adds up only while aside. */
static void test_switch_failed_and_time_aside(void)
{
    struct governor g;
    struct program p = {0};
    governor_init(&g, &params, 0);
    while (g.state == GOVERNOR_LEARN)
        run(&g, &p, 1, one_key, 1, same);
    CHECK(to_switch(&g, &p).switch_way);
    CHECK(g.way == GOVERNOR_ASIDE && governor_aside_ns(&g, p.now + 50 * MS) == 0);
    governor_switch_failed(&g, p.now);
    CHECK(g.way == GOVERNOR_AUTO && g.state == GOVERNOR_SETTLED && !g.switching);
    CHECK(governor_wake_at(&g) == p.now + params.backoff_ns && governor_aside_ns(&g, p.now + 50 * MS) == 0);
    /* The next probe steps aside for its first pair's second epoch: that time is counted. */
    p.now = governor_wake_at(&g);
    (void)governor_tick(&g, p.now, 0);
    CHECK(to_switch(&g, &p).switch_way);
    governor_switched(&g, p.now);
    CHECK(governor_aside_ns(&g, p.now + 7 * MS) == 7 * MS);
}

int main(void)
{
    test_learning();
    test_clear_verdicts();
    test_ties();
    test_noise();
    test_backoff();
    test_phases();
    test_kinds();
    test_epochs();
    test_nothing_compared();
    test_switch_failed_and_time_aside();
    return check_result("test_governor");
}
