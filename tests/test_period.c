/* SPDX-License-Identifier: MIT */
/* Unit tests of the period detector for sync-free loops. */
#include "config.h"

#include <stdlib.h>

#include "check.h"
#include "period.h"

/* Feeds a sequence given as letters ('A' + i); returns the period reported after the last call. */
static unsigned feed_letters(struct period_detector *d, const char *letters, unsigned *first_at)
{
    unsigned period = 0;
    *first_at = 0;
    for (unsigned i = 0; letters[i]; i++) {
        period = period_feed(d, (uint64_t)letters[i] * 7919u);
        if (period && !*first_at)
            *first_at = i + 1;
    }
    return period;
}

int main(void)
{
    struct period_detector *d = malloc(sizeof *d);
    unsigned first_at, found;

    /* ABC repeated: period 3, reported once two whole periods were identical (repeats = 2). */
    CHECK(period_init(d, 64, 2));
    CHECK(feed_letters(d, "ABCABC", &first_at) == 3);
    CHECK(first_at == 6);
    period_reset(d);
    CHECK(feed_letters(d, "ABCAB", &first_at) == 0);

    /* A prefix that is not periodic does not prevent finding the period later. */
    period_reset(d);
    CHECK(feed_letters(d, "XYZQABCDABCDABCD", &first_at) == 4);

    /* A break in the pattern withdraws the period, and it comes back after enough repeats. */
    period_reset(d);
    CHECK(feed_letters(d, "ABABABAXABAB", &first_at) == 2);
    period_reset(d);
    CHECK(feed_letters(d, "ABABABAX", &first_at) == 0);

    /* Repeated letters inside the period: AAB AAB AAB. */
    period_reset(d);
    CHECK(feed_letters(d, "AABAABAABAAB", &first_at) == 3);

    /* repeats = 3 needs three identical periods. */
    period_fini(d);
    CHECK(period_init(d, 64, 3));
    CHECK(feed_letters(d, "ABCDABCD", &first_at) == 0);
    period_reset(d);
    CHECK(feed_letters(d, "ABCDABCDABCD", &first_at) == 4);
    CHECK(first_at == 12);

    /* Periods longer than max_period are not found. */
    period_fini(d);
    CHECK(period_init(d, 4, 2));
    CHECK(feed_letters(d, "ABCDEABCDEABCDE", &first_at) == 0);
    period_reset(d);
    CHECK(feed_letters(d, "ABCDABCD", &first_at) == 4);

    /* Two calls of one period whose hashes share a home slot in the last-seen table. */
    period_fini(d);
    CHECK(period_init(d, 64, 2));
    found = 0;
    uint64_t a = 5, b = 5 + PERIOD_SLOTS; /* (h ^ h >> 29) % PERIOD_SLOTS is 5 for both */
    for (unsigned i = 0; i < 20; i++)
        found = period_feed(d, i % 2 ? b : a);
    CHECK(found == 2);

    /* A long loop: 1000 periods of 37 distinct calls. */
    period_fini(d);
    CHECK(period_init(d, 512, 2));
    found = 0;
    for (unsigned i = 0; i < 37 * 1000; i++)
        found = period_feed(d, 1000 + i % 37);
    CHECK(found == 37);
    period_fini(d);
    free(d);
    return check_result("test_period");
}
