/* SPDX-License-Identifier: MIT */
/*
 * growing: a decode-like loop.  Iteration t appends one row of ROW floats
 * to a "cache" and works over all t rows: kernels whose grid grows with t
 * (blocks of 64 threads over t * ROW elements), a memset and a
 * device-to-device copy whose sizes grow with t, a reduction read back to
 * the host at one sync an iteration, whose value feeds the next iteration
 * (the "next token").  Only the geometry and the sizes change (and the
 * arguments): the calls, kernels and streams are the same every iteration,
 * so under auto the loop is one region whose graph's nodes take the new
 * geometry (region_graph.c).  At iteration FAULT_AT the growing axpy is
 * launched with 2048 threads a block, which the driver refuses: the
 * program must get that error from the launch itself, as without the shim
 * (the shim lets a launch whose geometry the driver would refuse pass
 * through, kernel_params_launch_fits).  Recorded on the stand-in without
 * the shim (tests/standin/expected/growing.out); not yet compared on a GPU.
 */
#include "scenario.h"

#define ROW 64
#define STEPS 40
#define MAXN (ROW * (STEPS + 1))
#define FAULT_AT 25

/* y = a * x + y over n elements, in blocks of `threads` (the grid grows with n). */
static void axpy_blocks(float alpha, const float *x, float *y, int n, unsigned threads, cudaStream_t s)
{
    void *a[] = {&alpha, &x, &y, &n};
    dim3 g = {(n + 63) / 64, 1, 1}, b = {threads, 1, 1};
    CK(cudaLaunchKernel((const void *)k_axpy, g, b, a, 0, s));
}

/* z = x * y + x over n elements, in blocks of 32 (the grid grows with n). */
static void combine_blocks(const float *x, const float *y, float *z, int n, cudaStream_t s)
{
    void *a[] = {&x, &y, &z, &n};
    dim3 g = {(n + 31) / 32, 1, 1}, b = {32, 1, 1};
    CK(cudaLaunchKernel((const void *)k_combine, g, b, a, 0, s));
}

/* STEPS iterations, each one row longer than the one before. */
int main(void)
{
    scenario_begin("growing");
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float *cache = dev_floats(MAXN), *q = dev_floats(MAXN), *work = dev_floats(MAXN), *sum = dev_floats(1);
    float *next = NULL;
    CK(cudaMallocHost((void **)&next, sizeof *next));
    k_fill_on(cache, 0.0f, MAXN, s);
    k_fill_on(q, 0.25f, MAXN, s);
    CK(cudaStreamSynchronize(s));
    float token = 1.0f;
    for (int t = 1; t <= STEPS; t++) {
        int n = ROW * t;
        k_fill_on(cache + n - ROW, token * 0.125f, ROW, s);                 /* the new row */
        k_add_step_on(cache + n - ROW, 0.0625f, t, ROW, s);
        CK(cudaMemsetAsync(work, 0, (size_t)n * sizeof(float), s));         /* grows */
        axpy_blocks(0.5f, cache, work, n, t == FAULT_AT ? 2048 : 64, s);  /* grid grows; refused once */
        combine_blocks(work, q, work, n, s);                                /* grid grows */
        CK(cudaMemcpyAsync(q, work, (size_t)n * sizeof(float), cudaMemcpyDeviceToDevice, s)); /* grows */
        k_scale_on(q, 0.5f, n, s);
        k_reduce_sum_on(work, sum, n, s);
        CK(cudaMemcpyAsync(next, sum, sizeof *next, cudaMemcpyDeviceToHost, s));
        CK(cudaStreamSynchronize(s));
        token = 1.0f + (float)((int)(*next * 16.0f) % 7); /* the next "token" */
        if (t % 8 == 0)
            printf("t %d token %g\n", t, token);
    }
    show("cache", cache, MAXN);
    show("q", q, MAXN);
    CK(cudaFreeHost(next));
    return scenario_end();
}
