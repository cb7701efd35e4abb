/* SPDX-License-Identifier: MIT */
/* Unit tests of the exit summary's description of a program. */
#include "config.h"

#include "check.h"
#include "verdict.h"

/* The verdict's lines joined, for matching. */
static const char *describe(const struct program_profile *p)
{
    static char all[VERDICT_LINES_MAX * VERDICT_LINE_LEN];
    struct verdict v;
    describe_program(p, &v);
    all[0] = '\0';
    for (unsigned i = 0; i < v.count; i++) {
        strcat(all, v.line[i]);
        strcat(all, "\n");
    }
    return all;
}

int main(void)
{
    struct program_profile p = {0};
    CHECK_CONTAINS(describe(&p), "no CUDA calls were seen");

    /* A static runtime: only driver calls, counted by activity as runtime ones are. */
    p.direct_calls = 33330, p.streams = 1, p.total.n[ACT_LAUNCH] = 33000, p.total.n[ACT_SYNC] = 330;
    CHECK_CONTAINS(describe(&p), "only the driver API's (33330 calls)");
    CHECK_CONTAINS(describe(&p), "launch-bound and sync-delimited: 100.0 launches per host sync");
    CHECK(strstr(describe(&p), "libraries call the driver API directly") == NULL);
    p = (struct program_profile){0};

    p.calls = 10, p.total.n[ACT_ALLOC] = 5, p.total.n[ACT_SYNC] = 5;
    CHECK_CONTAINS(describe(&p), "no kernel launches were seen");

    p = (struct program_profile){.calls = 10100, .streams = 1};
    p.total.n[ACT_LAUNCH] = 10000, p.total.n[ACT_SYNC] = 100;
    CHECK_CONTAINS(describe(&p), "launch-bound and sync-delimited: 100.0 launches per host sync");
    CHECK(strstr(describe(&p), "uses 1 streams") == NULL);

    p.total.n[ACT_SYNC] = 5000;
    CHECK_CONTAINS(describe(&p), "sync-heavy: 2.0 launches per host sync");

    p.total.n[ACT_SYNC] = 1;
    CHECK_CONTAINS(describe(&p), "sync-free: 10000 launches with 1 host sync");

    p.allocs_after_first_launch = 7, p.streams = 3, p.total.n[ACT_GRAPH_LAUNCH] = 2, p.total.n[ACT_QUERY] = 4;
    const char *all = describe(&p);
    CHECK_CONTAINS(all, "7 allocations after the first launch");
    CHECK_CONTAINS(all, "uses CUDA graphs itself (2 graph launches, 0 capture calls)");
    CHECK_CONTAINS(all, "polls for completion (4 stream or event queries)");
    CHECK_CONTAINS(all, "uses 3 streams");
    p.direct_calls = 12;
    CHECK_CONTAINS(describe(&p), "libraries call the driver API directly (12 calls, cuBLAS-style): their launches");
    CHECK_CONTAINS(describe(&p), "uses 3 streams"); /* every line still fits */
    CHECK(strcmp(activity_name(ACT_LAUNCH), "launches") == 0);

    /* The ceiling: said only when timed (observe mode), worded by its share. */
    p = (struct program_profile){.calls = 10100, .streams = 1};
    p.total.n[ACT_LAUNCH] = 10000, p.total.n[ACT_SYNC] = 100;
    p.ceiling = (struct ceiling){.node_calls = 33000, .node_ns = 12300000, .between_ns = 30100000, .spans = 99};
    CHECK(strstr(describe(&p), "host time between syncs") == NULL);
    p.timed = true;
    CHECK_CONTAINS(describe(&p), "graphs can save at most about 41% of the host time between syncs");
    char line[VERDICT_LINE_LEN];
    CHECK(describe_ceiling(&p.ceiling, line, sizeof line));
    CHECK_CONTAINS(line, "submission calls took 41% of the host time between syncs (12.3 ms of 30.1 ms; 33000 calls, "
                         "0.37 us each): a graph can save at most about that");
    p.ceiling.node_ns = 2900000; /* 9.6%: said as 10%, and worded as such */
    CHECK_CONTAINS(describe(&p), "graphs can save at most about 10% of the host time between syncs");
    p.ceiling.node_ns = 2700000; /* 9.0% */
    CHECK_CONTAINS(describe(&p), "graphs can gain little here: submission calls took only 9% of the host time");
    p.ceiling.node_ns = 15000000; /* 49.8% */
    CHECK_CONTAINS(describe(&p), "submission-bound: submission calls took 50% of the host time between syncs");
    p.ceiling = (struct ceiling){.node_calls = 600, .node_ns = 171601342, .between_ns = 171957783};
    CHECK_CONTAINS(describe(&p), "submission-bound: submission calls took 100% of the host time between syncs");
    CHECK(describe_ceiling(&p.ceiling, line, sizeof line));
    CHECK_CONTAINS(line, "(171.6 ms of 172.0 ms; 600 calls, 286.00 us each)");
    p.ceiling = (struct ceiling){.node_calls = 3, .node_ns = 4500, .between_ns = 1500000000};
    CHECK(describe_ceiling(&p.ceiling, line, sizeof line));
    CHECK_CONTAINS(line, "took 0% of the host time between syncs (4.5 us of 1.50 s; 3 calls, 1.50 us each)");
    p.ceiling.node_ns = 2 * p.ceiling.between_ns; /* clocks that disagree: never more than all of it */
    CHECK(ceiling_share(&p.ceiling) == 1.0);
    p.ceiling = (struct ceiling){0}; /* sync-free: no span between two syncs */
    CHECK(!describe_ceiling(&p.ceiling, line, sizeof line) && line[0] == '\0');
    CHECK(ceiling_share(&p.ceiling) == 0.0);
    CHECK_CONTAINS(describe(&p), "how much graphs could save is unknown: no thread made calls between two host syncs");
    p.allocs_after_first_launch = 7, p.streams = 3, p.total.n[ACT_GRAPH_LAUNCH] = 2, p.total.n[ACT_QUERY] = 4;
    p.direct_calls = 12;
    CHECK_CONTAINS(describe(&p), "uses 3 streams"); /* every line still fits, the ceiling's too */

    /* Start-up: a thread's first span is left out when at least 8 spans follow and it is over 4x their mean. */
    struct ceiling first = {.node_calls = 100, .node_ns = 400000, .between_ns = 280000000, .spans = 1};
    struct ceiling rest = {.node_calls = 22200, .node_ns = 78000000, .between_ns = 146000000, .sync_ns = 9000,
                           .spans = 222, .call_spans = 222, .call_spans_ns = 146000000};
    CHECK(ceiling_first_is_warmup(&first, &rest));
    struct ceiling total = {0};
    ceiling_add_thread(&total, &first, &rest);
    CHECK(total.node_calls == 22200 && total.node_ns == 78000000 && total.between_ns == 146000000 &&
          total.spans == 222 && total.sync_ns == 9000);
    CHECK(total.warmup_ns == 280000000 && total.warmup_spans == 1);
    CHECK(describe_ceiling(&total, line, sizeof line));
    CHECK_CONTAINS(line, "took 53% of the host time between syncs (78.0 ms of 146.0 ms; 22200 calls, 3.51 us each; "
                         "start-up left out: 1 thread's first span, 280.0 ms)");
    ceiling_add_thread(&total, &first, &rest); /* a second thread like it: the totals add up */
    CHECK(total.spans == 444 && total.warmup_spans == 2);
    CHECK(describe_ceiling(&total, line, sizeof line));
    CHECK_CONTAINS(line, "start-up left out: 2 threads' first span, 560.0 ms)");
    first.between_ns = 4 * rest.between_ns / rest.spans; /* not more than 4x the mean: kept */
    CHECK(!ceiling_first_is_warmup(&first, &rest));
    first.between_ns = 280000000;
    /* One long span of launches, then copies back in a row (syncs with nothing between): no loop, kept. */
    struct ceiling copies_back = {.between_ns = 50000, .spans = 10};
    CHECK(!ceiling_first_is_warmup(&first, &copies_back));
    rest.spans = 7, rest.call_spans = 7; /* too few spans follow: not a loop's start-up */
    CHECK(!ceiling_first_is_warmup(&first, &rest));
    total = (struct ceiling){0};
    ceiling_add_thread(&total, &first, &rest); /* kept: counted with the rest */
    CHECK(total.node_calls == 22300 && total.between_ns == 426000000 && total.spans == 8 && total.warmup_spans == 0);
    CHECK(describe_ceiling(&total, line, sizeof line) && strstr(line, "start-up") == NULL);
    struct ceiling none = {0}; /* a thread with no span: nothing added, nothing left out */
    total = (struct ceiling){0};
    ceiling_add_thread(&total, &none, &rest);
    CHECK(total.spans == 7 && total.warmup_spans == 0);
    return check_result("test_verdict");
}
