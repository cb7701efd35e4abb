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
    p.foreign_calls = 33330, p.streams = 1, p.total.n[ACT_LAUNCH] = 33000, p.total.n[ACT_SYNC] = 330;
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
    p.foreign_calls = 12;
    CHECK_CONTAINS(describe(&p), "libraries call the driver API directly (12 calls, cuBLAS-style): their launches");
    CHECK_CONTAINS(describe(&p), "uses 3 streams"); /* every line still fits */
    CHECK(strcmp(activity_name(ACT_LAUNCH), "launches") == 0);
    return check_result("test_verdict");
}
