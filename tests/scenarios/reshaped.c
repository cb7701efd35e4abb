/* SPDX-License-Identifier: MIT */
/*
 * reshaped: a loop whose second launch changes its grid once, in an
 * iteration that also allocates (a boundary inside the region, so that
 * the occurrence holding the new grid falls back instead of replaying).
 * The iterations after it launch the new grid every time: the fast path
 * takes such a launch when it matches what its record slot holds, which
 * is the fallen-back occurrence's grid, not the one the graph's node
 * holds.  The shim must still patch the node (region_graph.c,
 * shape_varies), or the kernel covers a quarter of the array.
 * Recorded on the stand-in without the shim (expected/reshaped.out).
 */
#include "scenario.h"

#define N 4096
#define ITERS 40
#define RESHAPE_AT 20

/* y = a * x + y over n elements with `blocks` blocks of 256 threads (too few blocks leave the rest alone). */
static void axpy_grid(float alpha, const float *x, float *y, int n, unsigned blocks, cudaStream_t s)
{
    void *a[] = {&alpha, &x, &y, &n};
    dim3 g = {blocks, 1, 1};
    CK(cudaLaunchKernel((const void *)k_axpy, g, block256, a, 0, s));
}

/* ITERS iterations; from RESHAPE_AT on, the axpy covers the whole array. */
int main(void)
{
    scenario_begin("reshaped");
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float *x = dev_floats(N), *y = dev_floats(N);
    k_fill_on(x, 0.5f, N, s);
    k_fill_on(y, 0.0f, N, s);
    CK(cudaStreamSynchronize(s));
    for (int it = 0; it < ITERS; it++) {
        unsigned blocks = it < RESHAPE_AT ? N / 256 / 4 : N / 256;
        k_add_step_on(x, 0.125f, it, N, s);
        axpy_grid(0.25f, x, y, N, blocks, s);
        if (it == RESHAPE_AT) {
            float *scratch = dev_floats(16); /* a boundary: the occurrence falls back */
            CK(cudaFree(scratch));
        }
        k_scale_on(y, 0.5f, N, s);
        k_scale_on(x, 0.75f, N, s);
        CK(cudaStreamSynchronize(s));
    }
    show("x", x, N);
    show("y", y, N);
    return scenario_end();
}
