/* SPDX-License-Identifier: MIT */
/*
 * overhead_loop: what one eager <<<>>> launch costs the host.
 *
 *     overhead_loop.gpu [LAUNCHES [BATCH]]      (defaults 50000 and 100)
 *
 * Launches an empty kernel LAUNCHES times on the legacy stream, in batches of
 * BATCH followed by cudaStreamSynchronize, so that the launch queue never
 * fills and only the host's work is timed: clock_gettime(CLOCK_MONOTONIC)
 * around each batch's launches, the synchronisation not included.  A warm-up
 * of 10 batches comes first, untimed.
 *
 * Prints "ns_per_launch X" (the median over batches of a batch's time per
 * launch), "ns_per_launch_mean X" (all timed launches together) and
 * "launches N" (every launch made, the warm-up included).  Timings differ from
 * run to run: this program is for tools/dev/bench-overhead, not for comparing
 * outputs.
 */
#include <time.h>

#include "common.h"

__global__ void k_nothing(void) {}

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    long total = argc > 1 ? atol(argv[1]) : 50000;
    long batch = argc > 2 ? atol(argv[2]) : 100;
    if (total <= 0 || batch <= 0 || batch > total) {
        fprintf(stderr, "usage: %s [LAUNCHES [BATCH]] (LAUNCHES >= BATCH > 0)\n", argv[0]);
        return 2;
    }
    require_gpu();
    long batches = total / batch, launches = 0;
    double *per_launch = (double *)malloc(sizeof(double) * (size_t)batches);
    if (per_launch == NULL)
        return 1;

    for (int w = 0; w < 10; w++) {
        for (long i = 0; i < batch; i++, launches++)
            k_nothing<<<1, 1>>>();
        CHECK(cudaStreamSynchronize(0));
    }
    CHECK(cudaGetLastError());

    double sum = 0;
    for (long b = 0; b < batches; b++) {
        double t0 = now_ns();
        for (long i = 0; i < batch; i++)
            k_nothing<<<1, 1>>>();
        double t1 = now_ns();
        launches += batch;
        CHECK(cudaStreamSynchronize(0));
        per_launch[b] = (t1 - t0) / (double)batch;
        sum += t1 - t0;
    }
    CHECK(cudaGetLastError());
    double mean = sum / (double)(batches * batch);
    qsort(per_launch, (size_t)batches, sizeof *per_launch, by_value);
    double median = batches % 2 ? per_launch[batches / 2]
                                : (per_launch[batches / 2 - 1] + per_launch[batches / 2]) / 2;
    printf("ns_per_launch %.1f\n", median);
    printf("ns_per_launch_mean %.1f\n", mean);
    printf("launches %ld\n", launches);
    free(per_launch);
    return 0;
}
