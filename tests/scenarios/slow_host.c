/* SPDX-License-Identifier: MIT */
/*
 * slow_host: a host that computes between launches (issue 14, item 5).
 * Each of ITERS iterations launches CALLS kernels on a non-blocking
 * stream with HOST_US microseconds of host work (a sleep)
 * after each, then synchronises.  The third launch writes the iteration
 * number into mapped pinned memory; just before its last launch the host
 * reads it, without a CUDA call: eagerly the GPU has long run that kernel,
 * while a region held back whole until its sync has not launched it yet.
 * stdout (the same with and without the shim): checksums of the buffers
 * and of the flags read after each sync; stderr: one character an
 * iteration, 'y' if the flag was there before the last launch, else '.'.
 * Whether it was depends on when the device got to run the kernel, which
 * on a loaded machine can be late; what a shim decides is when it submits
 * the kernel. So with STANDIN_GRAPH_LOG set (the stand-in says each graph
 * launch on stderr as it is made) it also says on stderr where each
 * iteration begins and where its last launch comes: "slow_host: iteration
 * N" and "slow_host: iteration N: last launch" (tests/cuts.sh counts the
 * graph launches between the two).
 *
 *     slow_host [HOST_US [ITERS [CALLS]]]      (default 200 40 32)
 *
 * A CALLS that is not a multiple of the segments' size leaves a last
 * segment shorter than the others, which begins with the same kernel as
 * an earlier segment (34: the tail of 2 calls begins as the second
 * segment does).
 *
 * Stand-in only for now: no expected GPU output is recorded.
 */
#include <stdbool.h>
#include <time.h>

#include "scenario.h"

#define N 1024

/* The stand-in's host work (standin/host_cost.c); absent from the GPU build. */
extern void standin_host_work(long us) __attribute__((weak));

/*
 * Takes us microseconds of host time, with no CUDA call: asleep, not
 * spinning, so that on a loaded machine of two cores (CI) the stand-in's
 * device thread is not starved of the core the host would spin on; on the
 * stand-in through standin_host_work, which spends it on the virtual host
 * clock when that is preloaded (standin/host_clock.c).
 */
static void host_work(long us)
{
    if (us <= 0)
        return; /* a launch-bound loop: not even the system call (a sleep of 0 still takes the timer's slack) */
    if (standin_host_work) {
        standin_host_work(us);
        return;
    }
    struct timespec left = {.tv_sec = us / 1000000L, .tv_nsec = us % 1000000L * 1000L};
    while (nanosleep(&left, &left) != 0)
        ; /* interrupted: sleep the rest */
}

/* The j-th launch of an iteration: a poke of the flag third, else one of three kernels in turn. */
static void launch(int j, int it, float *x, float *y, int *flag_dev, cudaStream_t s)
{
    if (j == 2)
        k_poke_on(flag_dev, it, s);
    else if (j % 3 == 0)
        k_axpy_on(0.25f, x, y, N, s);
    else if (j % 3 == 1)
        k_scale_on(y, 0.5f, N, s);
    else
        k_add_step_on(x, 0.0009765625f, it & 7, N, s);
}

/* ITERS iterations of CALLS launches with host work between them, and a sync. */
int main(int argc, char **argv)
{
    long host_us = argc > 1 ? atol(argv[1]) : 200;
    int iters = argc > 2 ? atoi(argv[2]) : 40;
    int calls = argc > 3 ? atoi(argv[3]) : 32;
    scenario_begin("slow_host");
    float *x = dev_floats(N), *y = dev_floats(N);
    int *flag_dev = NULL, *flag = mapped_flag(&flag_dev);
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    /* Set up in the first iteration's stretch: its first sync covers them. */
    k_fill_on(x, 0.001953125f, N, s);
    CK(cudaMemsetAsync(y, 0, N * sizeof *y, s));
    unsigned long flag_sum = 0;
    char *early = calloc((size_t)iters + 2, 1);
    bool marks = getenv("STANDIN_GRAPH_LOG") != NULL;
    for (int it = 0; it < iters; it++) {
        if (marks)
            fprintf(stderr, "slow_host: iteration %d\n", it);
        for (int j = 0; j < calls; j++) {
            if (j == calls - 1) {
                early[it] = __atomic_load_n(flag, __ATOMIC_ACQUIRE) == it ? 'y' : '.';
                if (marks)
                    fprintf(stderr, "slow_host: iteration %d: last launch\n", it);
            }
            launch(j, it, x, y, flag_dev, s);
            host_work(host_us);
        }
        CK(cudaStreamSynchronize(s));
        flag_sum += (unsigned long)__atomic_load_n(flag, __ATOMIC_ACQUIRE);
    }
    fprintf(stderr, "slow_host: flag before the last launch: %s\n", early);
    free(early);
    printf("flags after each sync: sum %lu\n", flag_sum);
    show("x", x, N);
    show("y", y, N);
    CK(cudaFreeHost(flag));
    return scenario_end();
}
