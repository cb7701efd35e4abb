/* SPDX-License-Identifier: MIT */
/* Unit tests of where calls are cut into graph launches: paces, stretches, sync-free batches, segments. */
#include "config.h"

#include <string.h>

#include "check.h"
#include "cuts.h"

static const struct cut_bounds defaults = {
    .min_calls = 4, .max_calls = 8192, .max_batch_calls = 1024, .max_segments = 8};

/* Feeds n samples of one kind (slow: 50 us between calls, a 10 us launch; fast: 0.2 us); the last verdict. */
static enum pace_verdict samples(struct pace *p, bool slow, unsigned n)
{
    enum pace_verdict v = PACE_UNSURE;
    for (unsigned i = 0; i < n; i++)
        v = pace_sample(p, slow ? 32 * 50000u : 32 * 200u, 32, 10000, 0, 0, 0);
    return v;
}

/* Slow only after CUTS_PACE_SAMPLES slow occurrences in a row, fast likewise; one of the other kind starts again. */
static void test_pace(void)
{
    struct pace p = {0};
    CHECK(pace_verdict(&p) == PACE_UNSURE);
    CHECK(samples(&p, true, CUTS_PACE_SAMPLES - 1) == PACE_UNSURE);
    CHECK(samples(&p, true, 1) == PACE_SLOW);
    CHECK(samples(&p, true, 300) == PACE_SLOW); /* the counts saturate */
    CHECK(samples(&p, false, 1) == PACE_UNSURE);
    CHECK(samples(&p, true, CUTS_PACE_SAMPLES - 1) == PACE_UNSURE);
    CHECK(samples(&p, false, CUTS_PACE_SAMPLES) == PACE_FAST);
    /* The line: exactly a launch between two calls is slow, a nanosecond less is not. */
    memset(&p, 0, sizeof p);
    for (int i = 0; i < CUTS_PACE_SAMPLES; i++)
        pace_sample(&p, 10 * 7000, 10, 7000, 0, 0, 0);
    CHECK(pace_verdict(&p) == PACE_SLOW);
    for (int i = 0; i < CUTS_PACE_SAMPLES; i++)
        pace_sample(&p, 10 * 7000 - 1, 10, 7000, 0, 0, 0);
    CHECK(pace_verdict(&p) == PACE_FAST);
    CHECK(pace_sample(&p, 1000000, 0, 1, 0, 0, 0) == PACE_FAST); /* no calls: nothing was slow */
    /* A launch that waited (10 times the shortest) does not make a slow host fast. */
    memset(&p, 0, sizeof p);
    for (int i = 0; i < CUTS_PACE_SAMPLES; i++)
        pace_sample(&p, 32 * 50000u, 32, i == 0 ? 10000 : 500000, 0, 0, 0);
    CHECK(pace_verdict(&p) == PACE_SLOW && p.launch_ns == 10000);
    /* A dear launch (3 ms, longer than the host's 50 us between calls) keeps the host fast. */
    memset(&p, 0, sizeof p);
    for (int i = 0; i < CUTS_PACE_SAMPLES; i++)
        pace_sample(&p, 32 * 50000u, 32, 3000000, 0, 0, 0);
    CHECK(pace_verdict(&p) == PACE_FAST);
}

/*
 * The GPU's wait makes a host fast between calls slow where segments would end the occurrence 5% sooner:
 * train_lt's step on the H200 (21 calls in 19 us, a launch of 6.5 us, 3.5 of it submitting, 60 us of GPU
 * work after it: 3 segments end it about 8% sooner) is; a launch-bound chain (5 us of calls, 70 us of GPU
 * work: 2 segments end it later) is not, nor is anything without a wait or without two segments.
 */
static void test_overlap(void)
{
    CHECK(overlap_pays(19000, 3000, 3500, 60000, 3));
    CHECK(!overlap_pays(5000, 0, 5000, 70000, 2));
    CHECK(!overlap_pays(19000, 3000, 3500, 0, 3));
    CHECK(!overlap_pays(19000, 3000, 3500, 60000, 1));
    /* HF generate()'s eager static cache on the H200 (session 17): 7.9 ms of host, a launch of 365 us (198 of it
       patching 183 nodes, 167 submitting 464), 1014 us in the sync: 8 segments end it about 9% sooner.  Were
       each segment to pay the whole submission again, they would end it later than whole. */
    CHECK(overlap_pays(7938700, 197700, 167000, 1014100, 8));
    CHECK(7938700 + 197700 + 8 * 167000 + 1014100 / 8 > 7938700 + 197700 + 167000 + 1014100);
    /* The same token with the host at 14 ms (debug logging) and 900 us in the sync: 4.9%, under the bar. */
    CHECK(!overlap_pays(14000000, 200000, 167000, 900000, 8));
    /* 100 small launches in 15 us, a 30 us launch, 200 us of GPU work: 9 segments would start the GPU 40 us
       sooner and spend as much on the joins between them, so it stays whole. */
    CHECK(!overlap_pays(15000, 0, 30000, 200000, 9));
    /* Little GPU work after a long host: the segments' launches cost more than they overlap. */
    CHECK(!overlap_pays(100000, 0, 20000, 5000, 4));
    CHECK(!overlap_pays(100000, 0, 2000, 5000, 4));
    /* In the pace: four such samples in a row are slow, counted as the wait's; a host slow between calls is not. */
    struct pace p = {0};
    for (int i = 0; i < CUTS_PACE_SAMPLES; i++)
        pace_sample(&p, 19000, 21, 6500, 3000, 60000, 3);
    CHECK(pace_verdict(&p) == PACE_SLOW && p.overlap == CUTS_PACE_SAMPLES);
    memset(&p, 0, sizeof p);
    for (int i = 0; i < CUTS_PACE_SAMPLES; i++)
        pace_sample(&p, 32 * 50000u, 32, 10000, 0, 60000, 4);
    CHECK(pace_verdict(&p) == PACE_SLOW && p.overlap == 0);
    /* The same occurrence without its wait timed is fast. */
    memset(&p, 0, sizeof p);
    for (int i = 0; i < CUTS_PACE_SAMPLES; i++)
        pace_sample(&p, 19000, 21, 6500, 3000, 0, 3);
    CHECK(pace_verdict(&p) == PACE_FAST);
}

/* Stretches are looked at from CUTS_EARLY_CALLS; a cut stretch that repeats its length moves that past it. */
static void test_stretches(void)
{
    struct stretch_memory m = {0};
    CHECK(!stretch_feeds(&m, CUTS_EARLY_CALLS - 1));
    CHECK(stretch_feeds(&m, CUTS_EARLY_CALLS));
    /* A loop that is cut and ends at different lengths stays a loop. */
    m.cut = true;
    CHECK(!stretch_ended(&m, 1000, &defaults));
    CHECK(m.calls == 0 && !m.cut);
    m.cut = true;
    CHECK(!stretch_ended(&m, 1200, &defaults));
    CHECK(stretch_feeds(&m, CUTS_EARLY_CALLS));
    /* The same length again, cut: a region between syncs that repeats; it is learnt whole from now on. */
    m.cut = true;
    CHECK(stretch_ended(&m, 1000, &defaults));
    CHECK(!stretch_feeds(&m, 1000));
    CHECK(stretch_feeds(&m, 1001));
    /* Only stretches at or beyond the threshold count: 1000 is below it now, cut or not. */
    m.cut = true;
    CHECK(!stretch_ended(&m, 1000, &defaults));
    /* The same length not cut (it was not looked at) moves nothing. */
    memset(&m, 0, sizeof m);
    CHECK(!stretch_ended(&m, 500, &defaults));
    CHECK(!stretch_ended(&m, 500, &defaults));
    CHECK(stretch_feeds(&m, 500));
    /* Longer than a region: a loop, however often its length repeats. */
    struct cut_bounds small = defaults;
    small.max_calls = 4000;
    memset(&m, 0, sizeof m);
    for (int i = 0; i < 3; i++) {
        m.cut = true;
        CHECK(!stretch_ended(&m, 5000, &small));
    }
    /* Short stretches (two syncs in a row) do not push a long one out of the recent lengths. */
    memset(&m, 0, sizeof m);
    m.cut = true;
    CHECK(!stretch_ended(&m, 700, &defaults));
    for (int i = 0; i < 2 * CUTS_RECENT_STRETCHES; i++)
        CHECK(!stretch_ended(&m, 0, &defaults));
    m.cut = true;
    CHECK(stretch_ended(&m, 700, &defaults));
    CHECK(stretch_feeds(&m, 701) && !stretch_feeds(&m, 700));
}

/* Cuts start at whole periods of about CUTS_BASE_CALLS, within the bounds. */
static void test_batch_sizes(void)
{
    struct batch_plan p;
    batch_start(&p, 2, &defaults);
    CHECK(p.period == 2 && p.base == 64 && p.bound == 1024);
    CHECK(batch_fits(&p, 64) && batch_fits(&p, 1024) && !batch_fits(&p, 2048) && !batch_fits(&p, 63));
    CHECK(batch_may_grow(&p, 512) && !batch_may_grow(&p, 1024));
    batch_start(&p, 3, &defaults);
    CHECK(p.base == 66);
    batch_start(&p, 100, &defaults);
    CHECK(p.base == 100);
    CHECK(batch_fits(&p, 800) && !batch_fits(&p, 850));
    /* A bound below the first size keeps the first size. */
    struct cut_bounds tight = defaults;
    tight.max_batch_calls = 16;
    batch_start(&p, 4, &tight);
    CHECK(p.base == 64 && p.bound == 64 && !batch_may_grow(&p, 64));
    /* The bound is at most the longest region. */
    tight = defaults;
    tight.max_calls = 300;
    batch_start(&p, 4, &tight);
    CHECK(p.bound == 300 && batch_may_grow(&p, 128) && !batch_may_grow(&p, 256));
    /* A period longer than the longest region: cuts of one period. */
    tight.max_calls = 50;
    batch_start(&p, 40, &tight);
    CHECK(p.base == 40);
}

/* Feeds n cuts replayed as region id of `calls` calls; returns how many asked for a doubled sighting. */
static unsigned replays(struct batch_plan *p, unsigned id, unsigned calls, unsigned n)
{
    unsigned doubled = 0;
    for (unsigned i = 0; i < n; i++)
        doubled += batch_cut_done(p, id, calls, true) == BATCH_SEEN_DOUBLE;
    return doubled;
}

/* Cuts grow while the loop replays regularly: every second cut after CUTS_GROW_AFTER in a row is a doubled sighting. */
static void test_batch_growth(void)
{
    struct batch_plan p;
    batch_start(&p, 2, &defaults);
    CHECK(replays(&p, 1, 64, CUTS_GROW_AFTER) == 0);
    CHECK(replays(&p, 1, 64, 1) == 1);
    CHECK(replays(&p, 1, 64, 1) == 0);
    CHECK(replays(&p, 1, 64, 1) == 1);
    CHECK(replays(&p, 1, 64, 10) == 5);
    /* A cut that did not replay (a change, a trial's pass) starts the count again. */
    CHECK(batch_cut_done(&p, 1, 64, false) == BATCH_KEEP);
    CHECK(replays(&p, 1, 64, CUTS_GROW_AFTER) == 0);
    CHECK(replays(&p, 1, 64, 1) == 1);
    /* So does another region: the doubled one, which then grows in turn. */
    CHECK(replays(&p, 2, 128, CUTS_GROW_AFTER) == 0);
    CHECK(replays(&p, 2, 128, 2) == 1);
    /* Not past the bound. */
    CHECK(replays(&p, 5, 1024, 20) == 0);
    CHECK(replays(&p, 4, 512, 20) == 8);
    /* Not while the host is slow. */
    batch_start(&p, 2, &defaults);
    samples(&p.pace, true, CUTS_PACE_SAMPLES);
    CHECK(replays(&p, 1, 64, 20) == 0);
    samples(&p.pace, false, 1);
    CHECK(replays(&p, 1, 64, 2) == 1);
    /* No growth at all when the bound is the first size. */
    struct cut_bounds tight = defaults;
    tight.max_batch_calls = 64;
    batch_start(&p, 2, &tight);
    CHECK(replays(&p, 1, 64, 50) == 0);
    /* A restart (the period found again) forgets the count. */
    batch_start(&p, 2, &defaults);
    CHECK(replays(&p, 1, 64, CUTS_GROW_AFTER + 1) == 1);
    batch_start(&p, 2, &defaults);
    CHECK(replays(&p, 1, 64, CUTS_GROW_AFTER) == 0);
}

/* Segments: at least CUTS_SEGMENT_MIN_CALLS and a region's length, at most max_segments of them, two at least. */
static void test_segment_calls(void)
{
    CHECK(segment_calls(32, &defaults) == 8);
    CHECK(segment_calls(100, &defaults) == 13);
    CHECK(segment_calls(1000, &defaults) == 125);
    CHECK(segment_calls(20, &defaults) == 8);
    CHECK(segment_calls(16, &defaults) == 8);
    CHECK(segment_calls(15, &defaults) == 0);
    CHECK(segment_calls(8, &defaults) == 0);
    CHECK(segment_calls(4, &defaults) == 0);
    struct cut_bounds b = defaults;
    b.max_segments = 1;
    CHECK(segment_calls(1000, &b) == 0);
    b.max_segments = 2;
    CHECK(segment_calls(1000, &b) == 500);
    b = defaults;
    b.min_calls = 20;
    CHECK(segment_calls(40, &b) == 20);
    CHECK(segment_calls(39, &b) == 0);
}

/* The table of regions launched in segments: found by first call, renewed, the least recently used replaced. */
static void test_segment_table(void)
{
    struct segment_table t = {0};
    CHECK(segments_find(&t, 7) == NULL);
    struct segmented *s = segments_add(&t, 7, 8, 32);
    CHECK(s && s->first == 7 && s->each == 8 && s->region_calls == 32);
    CHECK(segments_find(&t, 7) == s);
    CHECK(segments_add(&t, 7, 16, 64) == s && s->each == 16 && t.count == 1);
    for (uint64_t k = 1; k < CUTS_SEGMENTED_MAX; k++)
        segments_add(&t, 100 + k, 8, 32);
    CHECK(t.count == CUTS_SEGMENTED_MAX);
    segments_find(&t, 7); /* 101 is now the least recently used */
    segments_add(&t, 555, 8, 32);
    CHECK(t.count == CUTS_SEGMENTED_MAX);
    CHECK(segments_find(&t, 101) == NULL && segments_find(&t, 7) && segments_find(&t, 555));
    segments_remove(&t, segments_find(&t, 7));
    CHECK(t.count == CUTS_SEGMENTED_MAX - 1 && segments_find(&t, 7) == NULL && segments_find(&t, 555));
}

/* A segment holds a segment's calls, or what is left of the region where its last segment is shorter. */
static void test_segment_room(void)
{
    struct segment_table t = {0};
    struct segmented *s = segments_add(&t, 7, 8, 34); /* 4 segments of 8, then one of 2 */
    CHECK(segment_room(s, 0) == 8);
    CHECK(segment_room(s, 8) == 8);
    CHECK(segment_room(s, 24) == 8);
    CHECK(segment_room(s, 26) == 8);
    CHECK(segment_room(s, 32) == 2);
    CHECK(segment_room(s, 33) == 1);
    CHECK(segment_room(s, 34) == 8); /* past the region: the stretch is something else, cut as segments */
    CHECK(segment_room(s, 90) == 8);
    s = segments_add(&t, 9, 8, 32); /* a multiple: every segment whole */
    CHECK(segment_room(s, 24) == 8 && segment_room(s, 32) == 8);
}

int main(void)
{
    test_pace();
    test_overlap();
    test_stretches();
    test_batch_sizes();
    test_batch_growth();
    test_segment_calls();
    test_segment_table();
    test_segment_room();
    return check_result("test_cuts");
}
