/* SPDX-License-Identifier: MIT */
/*
 * step_shapes: a training-step-like loop (issue 39, item 4) whose batches
 * come in three sizes in turn, as a GPT-2 training step's on cuBLASLt do
 * (grids of 508, 510 and 512 blocks).  Each step copies its batch's inputs
 * and targets from PAGEABLE host memory with cudaMemcpyAsync and overwrites
 * the host buffers right after each call (CUDA allows it: the bytes are
 * taken at the call), runs kernels whose grids follow the batch, updates
 * the weights (a fixed grid) and reads the loss back to the host at one
 * sync a step.  Only the grids and the copies' sizes change from step to
 * step: under auto, one region whose nodes are patched, its copies' staging
 * re-planned when a larger batch comes (region_graph.c's restage).
 * tests/step_shapes.sh compares its output with the run without the shim.
 */
#include "scenario.h"

#define BLOCK 64
#define STEPS 60
#define MAXN (512 * BLOCK)

/* The batch sizes in turn, in blocks of BLOCK: the first graph is built from a batch smaller than the largest. */
static const int shape_blocks[3] = {510, 508, 512};

/* y = a * x + y over n elements, in blocks of BLOCK (the grid follows n). */
static void axpy_blocks(float alpha, const float *x, float *y, int n, cudaStream_t s)
{
    void *a[] = {&alpha, &x, &y, &n};
    dim3 g = {(unsigned)((n + BLOCK - 1) / BLOCK), 1, 1}, b = {BLOCK, 1, 1};
    CK(cudaLaunchKernel((const void *)k_axpy, g, b, a, 0, s));
}

/* z = x * y + x over n elements, in blocks of BLOCK (the grid follows n). */
static void combine_blocks(const float *x, const float *y, float *z, int n, cudaStream_t s)
{
    void *a[] = {&x, &y, &z, &n};
    dim3 g = {(unsigned)((n + BLOCK - 1) / BLOCK), 1, 1}, b = {BLOCK, 1, 1};
    CK(cudaLaunchKernel((const void *)k_combine, g, b, a, 0, s));
}

/* STEPS steps, the batch's size cycling through shape_blocks. */
int main(void)
{
    scenario_begin("step_shapes");
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float *w = dev_floats(MAXN), *x = dev_floats(MAXN), *y = dev_floats(MAXN), *act = dev_floats(MAXN);
    float *grad = dev_floats(MAXN), *loss = dev_floats(1);
    float *hx = malloc(MAXN * sizeof(float)), *hy = malloc(MAXN * sizeof(float)); /* pageable */
    float *hloss = NULL;
    CK(cudaMallocHost((void **)&hloss, sizeof *hloss));
    k_fill_on(w, 0.5f, MAXN, s);
    CK(cudaStreamSynchronize(s));
    for (int t = 0; t < STEPS; t++) {
        int n = shape_blocks[t % 3] * BLOCK;
        size_t bytes = (size_t)n * sizeof(float);
        for (int i = 0; i < n; i++) {
            hx[i] = (float)((i * 7 + t * 13) % 101) * 0.0625f;
            hy[i] = (float)((i * 3 + t * 5) % 37) * 0.125f;
        }
        CK(cudaMemcpyAsync(x, hx, bytes, cudaMemcpyHostToDevice, s));
        memset(hx, 0xff, bytes); /* reuse at once: legal */
        CK(cudaMemcpyAsync(y, hy, bytes, cudaMemcpyHostToDevice, s));
        memset(hy, 0xff, bytes);
        combine_blocks(x, w, act, n, s);                                          /* "forward": grid follows n */
        CK(cudaMemcpyAsync(grad, y, bytes, cudaMemcpyDeviceToDevice, s));         /* grows and shrinks */
        axpy_blocks(-1.0f, act, grad, n, s);                                      /* grad = y - act */
        k_reduce_sum_on(grad, loss, n, s);
        axpy_blocks(0.0009765625f, grad, w, n, s);                                /* the update */
        k_scale_on(w, 0.999f, MAXN, s);                                           /* a fixed grid */
        CK(cudaMemcpyAsync(hloss, loss, sizeof *hloss, cudaMemcpyDeviceToHost, s));
        CK(cudaStreamSynchronize(s));
        if (t % 10 == 9)
            printf("step %d batch %d loss %.6g\n", t, n, (double)*hloss);
    }
    show("w", w, MAXN);
    show("act", act, MAXN);
    CK(cudaFreeHost(hloss));
    free(hx);
    free(hy);
    return scenario_end();
}
