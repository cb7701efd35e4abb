/* SPDX-License-Identifier: MIT */
/* Unit tests of the payoff trial (graph against passing through): turns, medians, the margin, restarts. */
#include "config.h"

#include "check.h"
#include "payoff.h"

/*
 * Runs a whole trial of n pairs on t, feeding eager[i] and robust[i] in the
 * order payoff_next asks for them (checked: eager, robust, eager, ...).
 * Returns the verdict of the last sample; the samples before it must not
 * decide.
 */
static enum payoff_verdict run_trial(struct payoff_trial *t, unsigned n, const double *eager, const double *robust)
{
    CHECK(payoff_start(t, n));
    enum payoff_verdict verdict = PAYOFF_UNDECIDED;
    for (unsigned i = 0; i < n; i++) {
        CHECK(verdict == PAYOFF_UNDECIDED);
        CHECK(payoff_next(t) == PAYOFF_EAGER);
        CHECK(payoff_add(t, PAYOFF_EAGER, eager[i]) == PAYOFF_UNDECIDED);
        CHECK(payoff_next(t) == PAYOFF_GRAPHED);
        verdict = payoff_add(t, PAYOFF_GRAPHED, robust[i]);
    }
    CHECK(payoff_next(t) == PAYOFF_NONE);
    CHECK(t->result.verdict == verdict);
    return verdict;
}

/* The mean of n samples: what a trial must not decide by. */
static double mean(const double *samples, unsigned n)
{
    double sum = 0;
    for (unsigned i = 0; i < n; i++)
        sum += samples[i];
    return sum / n;
}

/* A trial never started, or of 0 pairs, asks for nothing and takes no samples. */
static void test_no_trial(void)
{
    struct payoff_trial t = {0};
    CHECK(payoff_next(&t) == PAYOFF_NONE);
    CHECK(payoff_add(&t, PAYOFF_EAGER, 1.0) == PAYOFF_UNDECIDED);
    CHECK(payoff_add(&t, PAYOFF_GRAPHED, 1.0) == PAYOFF_UNDECIDED);
    CHECK(t.eager_count == 0 && t.graph_count == 0);
    CHECK(!payoff_start(&t, 0));
    CHECK(payoff_next(&t) == PAYOFF_NONE);
    CHECK(payoff_add(&t, PAYOFF_EAGER, 1.0) == PAYOFF_UNDECIDED);
    CHECK(t.result.verdict == PAYOFF_UNDECIDED);
    /* K=0 after a finished trial: no trial any more, and its verdict is forgotten. */
    const double slow[1] = {2.0}, fast[1] = {1.0};
    CHECK(run_trial(&t, 1, slow, fast) == PAYOFF_PAYS);
    CHECK(!payoff_start(&t, 0));
    CHECK(payoff_next(&t) == PAYOFF_NONE && t.result.verdict == PAYOFF_UNDECIDED);
    payoff_fini(&t);
}

/* Samples out of turn (or of no way) are ignored: the trial stays interleaved. */
static void test_turns(void)
{
    struct payoff_trial t = {0};
    CHECK(payoff_start(&t, 2));
    CHECK(payoff_next(&t) == PAYOFF_EAGER);
    CHECK(payoff_add(&t, PAYOFF_GRAPHED, 1.0) == PAYOFF_UNDECIDED);
    CHECK(payoff_add(&t, PAYOFF_NONE, 1.0) == PAYOFF_UNDECIDED);
    CHECK(t.graph_count == 0 && payoff_next(&t) == PAYOFF_EAGER);
    CHECK(payoff_add(&t, PAYOFF_EAGER, 1.0) == PAYOFF_UNDECIDED);
    CHECK(payoff_add(&t, PAYOFF_EAGER, 1.0) == PAYOFF_UNDECIDED); /* not its turn */
    CHECK(t.eager_count == 1 && payoff_next(&t) == PAYOFF_GRAPHED);
    CHECK(payoff_add(&t, PAYOFF_GRAPHED, 0.5) == PAYOFF_UNDECIDED);
    CHECK(payoff_next(&t) == PAYOFF_EAGER);
    CHECK(payoff_add(&t, PAYOFF_EAGER, 1.0) == PAYOFF_UNDECIDED);
    CHECK(payoff_add(&t, PAYOFF_GRAPHED, 0.5) == PAYOFF_PAYS);
    /* Done: no more turns, and a late sample changes nothing. */
    CHECK(payoff_next(&t) == PAYOFF_NONE);
    CHECK(payoff_add(&t, PAYOFF_GRAPHED, 100.0) == PAYOFF_UNDECIDED);
    CHECK(t.result.verdict == PAYOFF_PAYS && t.result.graph_median == 0.5);
    payoff_fini(&t);
    CHECK(t.samples == NULL && payoff_next(&t) == PAYOFF_NONE);
}

/* Clear wins and losses, with the medians for the log. */
static void test_clear(void)
{
    struct payoff_trial t = {0};
    const double eager[4] = {100e-6, 104e-6, 98e-6, 102e-6};
    const double fast[4] = {50e-6, 52e-6, 49e-6, 51e-6};
    const double slow[4] = {150e-6, 149e-6, 160e-6, 151e-6};
    CHECK(run_trial(&t, 4, eager, fast) == PAYOFF_PAYS);
    CHECK(t.result.eager_median > 100.9e-6 && t.result.eager_median < 101.1e-6); /* (100 + 102) / 2 */
    CHECK(t.result.graph_median > 50.4e-6 && t.result.graph_median < 50.6e-6);
    CHECK(run_trial(&t, 4, eager, slow) == PAYOFF_DOES_NOT_PAY);
    CHECK(t.result.graph_median > 150.4e-6 && t.result.graph_median < 150.6e-6);
    payoff_fini(&t);
}

/* A tie, or a gain inside the margin, goes to passing through; just outside it, to the robust path. */
static void test_margin(void)
{
    struct payoff_trial t = {0};
    const double eager[3] = {100, 100, 100};
    const double same[3] = {100, 100, 100};
    const double inside[3] = {97.5, 97.5, 97.5};
    const double outside[3] = {96.5, 96.5, 96.5};
    CHECK(run_trial(&t, 3, eager, same) == PAYOFF_DOES_NOT_PAY);
    CHECK(run_trial(&t, 3, eager, inside) == PAYOFF_DOES_NOT_PAY);
    CHECK(run_trial(&t, 3, eager, outside) == PAYOFF_PAYS);
    payoff_fini(&t);
}

/* One outlier cannot decide: the medians do, where the means would decide the other way. */
static void test_noise(void)
{
    struct payoff_trial t = {0};
    const double eager[5] = {10, 11, 10, 9, 10};
    /* A robust occurrence stalled once (a page fault, a preemption): still clearly faster. */
    const double robust_stall[5] = {5, 5, 100, 5, 6};
    CHECK(mean(robust_stall, 5) >= PAYOFF_MARGIN * mean(eager, 5));
    CHECK(run_trial(&t, 5, eager, robust_stall) == PAYOFF_PAYS);
    CHECK(t.result.graph_median == 5 && t.result.eager_median == 10);
    /* An eager occurrence stalled once: the robust path is still slower. */
    const double eager_stall[5] = {10, 10, 1000, 10, 10};
    const double robust[5] = {12, 12, 12, 12, 12};
    CHECK(mean(robust, 5) < PAYOFF_MARGIN * mean(eager_stall, 5));
    CHECK(run_trial(&t, 5, eager_stall, robust) == PAYOFF_DOES_NOT_PAY);
    /* Two lucky robust occurrences of five: the typical one is slower. */
    const double robust_lucky[5] = {0.1, 12, 12, 0.1, 12};
    CHECK(mean(robust_lucky, 5) < PAYOFF_MARGIN * mean(eager, 5));
    CHECK(run_trial(&t, 5, eager, robust_lucky) == PAYOFF_DOES_NOT_PAY);
    payoff_fini(&t);
}

/* A trial starts again from nothing, with more or fewer pairs than before. */
static void test_restart(void)
{
    struct payoff_trial t = {0};
    const double one[1] = {1}, two[1] = {2};
    CHECK(run_trial(&t, 1, one, two) == PAYOFF_DOES_NOT_PAY);
    CHECK(payoff_start(&t, 3));
    CHECK(t.result.verdict == PAYOFF_UNDECIDED && t.eager_count == 0 && t.graph_count == 0);
    CHECK(payoff_next(&t) == PAYOFF_EAGER);
    const double eager[8] = {8, 1, 7, 2, 6, 3, 5, 4}, robust[8] = {1, 1, 1, 1, 9, 9, 9, 9};
    CHECK(run_trial(&t, 8, eager, robust) == PAYOFF_DOES_NOT_PAY); /* medians 4.5 and 5 */
    CHECK(t.result.eager_median == 4.5 && t.result.graph_median == 5);
    CHECK(run_trial(&t, 1, two, one) == PAYOFF_PAYS);
    payoff_fini(&t);
}

int main(void)
{
    test_no_trial();
    test_turns();
    test_clear();
    test_margin();
    test_noise();
    test_restart();
    return check_result("test_payoff");
}
