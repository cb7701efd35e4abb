/* SPDX-License-Identifier: MIT */
/* Unit tests of REPRISE_EXCLUDE_STREAMS: parsing and matching. */
#include "config.h"

#include <string.h>

#include "check.h"
#include "stream_filter.h"

/* A stream's facts, shortly. */
static struct stream_facts facts(enum stream_kind kind, int priority, unsigned long long id)
{
    struct stream_facts f = {.kind = kind, .priority = priority, .id = id};
    return f;
}

int main(void)
{
    struct stream_filter f;
    char bad[64] = "";
    struct stream_facts legacy = facts(STREAM_KIND_LEGACY, 0, 1), per_thread = facts(STREAM_KIND_PER_THREAD, 0, 2),
                        blocking = facts(STREAM_KIND_BLOCKING, 0, 7), fast = facts(STREAM_KIND_NON_BLOCKING, -3, 8),
                        plain = facts(STREAM_KIND_NON_BLOCKING, 0, 9);

    /* Empty: nothing excluded. */
    CHECK(stream_filter_parse("", &f, bad, sizeof bad));
    CHECK(stream_filter_empty(&f));
    CHECK(!stream_filter_matches(&f, &legacy) && !stream_filter_matches(&f, &fast));
    CHECK(stream_filter_parse(" , ,", &f, bad, sizeof bad) && stream_filter_empty(&f));

    /* Kinds. */
    CHECK(stream_filter_parse("legacy, per_thread", &f, bad, sizeof bad));
    CHECK(!stream_filter_empty(&f));
    CHECK(stream_filter_matches(&f, &legacy));
    CHECK(stream_filter_matches(&f, &per_thread));
    CHECK(!stream_filter_matches(&f, &blocking));
    CHECK(!stream_filter_matches(&f, &fast));
    CHECK(stream_filter_parse("non_blocking", &f, bad, sizeof bad));
    CHECK(stream_filter_matches(&f, &fast) && stream_filter_matches(&f, &plain) && !stream_filter_matches(&f, &blocking));

    /* Priority. */
    CHECK(stream_filter_parse("high_priority", &f, bad, sizeof bad));
    CHECK(stream_filter_matches(&f, &fast));
    CHECK(!stream_filter_matches(&f, &plain));
    CHECK(!stream_filter_matches(&f, &legacy));

    /* Ids; an unknown id (0) never matches. */
    CHECK(stream_filter_parse("7, 12", &f, bad, sizeof bad));
    CHECK(stream_filter_matches(&f, &blocking));
    CHECK(!stream_filter_matches(&f, &plain));
    struct stream_facts unknown = facts(STREAM_KIND_BLOCKING, 0, 0);
    CHECK(!stream_filter_matches(&f, &unknown));

    /* Bad items are named, and leave nothing excluded. */
    CHECK(!stream_filter_parse("legacy,bogus", &f, bad, sizeof bad));
    CHECK(strcmp(bad, "bogus") == 0);
    CHECK(stream_filter_empty(&f));
    CHECK(!stream_filter_parse("0", &f, bad, sizeof bad) && strcmp(bad, "0") == 0);
    CHECK(!stream_filter_parse("12x", &f, bad, sizeof bad) && strcmp(bad, "12x") == 0);
    CHECK(!stream_filter_parse("-3", &f, bad, sizeof bad));
    CHECK(!stream_filter_parse("1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17", &f, bad, sizeof bad));
    CHECK(strcmp(bad, "17") == 0);
    CHECK(strcmp(stream_kind_name(STREAM_KIND_NON_BLOCKING), "non_blocking") == 0);
    return check_result("test_stream_filter");
}
