/* SPDX-License-Identifier: MIT */
/*
 * device_reset: a program that calls cudaDeviceReset (issue 24, case 2), as
 * CUDA's samples and many tests do before returning from main.
 *
 * A loop a shim replays as a graph: 12 iterations of axpy, scale and a step
 * kernel on a created stream, a reduction, an async copy of the sum into
 * pinned memory and cudaStreamSynchronize, the sum printed each iteration.
 * Then, by default, the buffers' hashes, the call count and cudaDeviceReset()
 * just before returning from main: whatever a shim does at exit with what
 * it made before the reset (its graphs, its events) is done on a destroyed
 * context. With the argument `middle`, the reset comes between two such
 * loops: the second makes its stream and buffers again (the old ones died
 * with the context) and runs the same kernels.
 *
 * stdout is left fully buffered when redirected, as a program's is: a crash
 * at exit loses what it printed (the way the reported programs lost it),
 * so the tests compare it. On stderr, a line as the reset is made
 * (tests/standin/lifetimes.sh checks that a graph was replayed before it).
 */
#include <stdbool.h>

#include "scenario.h"

#define N 4096
#define ITERATIONS 12

/* Device memory and the pinned word that one loop uses. */
struct loop_state {
    cudaStream_t s;
    float *x, *y, *sum, *host;
};

/* A stream, x = 1, y = 0, a sum and its pinned copy (made again after a reset). */
static void loop_make(struct loop_state *st)
{
    CK(cudaStreamCreateWithFlags(&st->s, cudaStreamNonBlocking));
    st->x = dev_floats(N);
    st->y = dev_floats(N);
    st->sum = dev_floats(1);
    CK(cudaMallocHost((void **)&st->host, sizeof(float)));
    k_fill_on(st->x, 1.0f, N, st->s);
    k_fill_on(st->y, 0.0f, N, st->s);
}

/* ITERATIONS iterations of axpy by a, each ended by a sync and its sum printed; then the buffers' hashes. */
static void loop_run(const char *label, float a, struct loop_state *st)
{
    for (int it = 0; it < ITERATIONS; it++) {
        k_axpy_on(a, st->x, st->y, N, st->s);
        k_scale_on(st->y, 0.875f, N, st->s);
        k_add_step_on(st->x, 0.125f, it, N, st->s);
        k_reduce_sum_on(st->y, st->sum, N, st->s);
        CK(cudaMemcpyAsync(st->host, st->sum, sizeof(float), cudaMemcpyDeviceToHost, st->s));
        CK(cudaStreamSynchronize(st->s));
        unsigned bits;
        memcpy(&bits, st->host, sizeof bits);
        printf("%s %2d: sum %08x\n", label, it, bits);
    }
    show("x", st->x, N);
    show("y", st->y, N);
}

/* The reset, said on stderr first. */
static void reset(const char *when)
{
    fprintf(stderr, "device_reset: cudaDeviceReset %s\n", when);
    CK(cudaDeviceReset());
}

/* The loop, then the reset before returning; `middle`: loop, reset, loop. */
int main(int argc, char **argv)
{
    bool middle = argc > 1 && strcmp(argv[1], "middle") == 0;
    require_device();
    printf("scenario device_reset%s\n", middle ? " middle" : "");
    struct loop_state st;
    loop_make(&st);
    loop_run("before", 0.5f, &st);
    if (middle) {
        reset("in the middle");
        loop_make(&st);
        loop_run("after", 0.625f, &st);
    }
    scenario_end();
    if (!middle)
        reset("before returning from main");
    return 0;
}
