/* SPDX-License-Identifier: MIT */
/*
 * driver_loop: an iterative loop written against the driver API only (as a
 * program built with the static CUDA runtime reaches the GPU): 20 launches
 * an iteration (cuLaunchKernel, kernelParams form, five kernels, scalar
 * arguments changing every iteration), a reduction, an asynchronous copy of
 * the sum into pinned memory (cuMemAllocHost) and cuStreamSynchronize, 50
 * iterations; once on a created stream and once on the legacy stream (NULL).
 * Prints the sum of every iteration and the buffers' hashes.
 */
#include "driver_scenario.h"

#define N 4096

static CUfunction f_fill, f_axpy, f_scale, f_add_step, f_combine, f_reduce;

/* 50 iterations on stream s. */
static void run(const char *label, CUstream s)
{
    CUdeviceptr x = dscen_floats(N), y = dscen_floats(N), z = dscen_floats(N), sum = dscen_floats(1);
    float *host = NULL;
    int n = N;
    CU(cuMemAllocHost((void **)&host, sizeof(float)));
    float one = 1.0f, zero = 0.0f;
    void *fx[] = {&x, &one, &n}, *fy[] = {&y, &zero, &n}, *fz[] = {&z, &zero, &n};
    dscen_launch(f_fill, N, fx, s);
    dscen_launch(f_fill, N, fy, s);
    dscen_launch(f_fill, N, fz, s);
    for (int it = 0; it < 50; it++) {
        for (int k = 0; k < 20; k++) {
            float a = 0.5f + 0.0625f * (float)((it + k) % 8), f = 0.875f, step_f = 0.125f;
            int step = it * 20 + k;
            void *axpy[] = {&a, &x, &y, &n}, *scale[] = {&y, &f, &n}, *add[] = {&x, &step_f, &step, &n},
                 *comb[] = {&x, &y, &z, &n};
            switch (k % 4) {
            case 0: dscen_launch(f_axpy, N, axpy, s); break;
            case 1: dscen_launch(f_scale, N, scale, s); break;
            case 2: dscen_launch(f_add_step, N, add, s); break;
            default: dscen_launch(f_combine, N, comb, s); break;
            }
        }
        void *red[] = {&z, &sum, &n};
        CU(cuLaunchKernel(f_reduce, 1, 1, 1, REDUCE_THREADS, 1, 1, 0, s, red, NULL));
        CU(cuMemcpyDtoHAsync(host, sum, sizeof(float), s));
        CU(cuStreamSynchronize(s));
        printf("%s %2d: sum %08x\n", label, it, dscen_bits(*host));
    }
    dscen_show("x", x, N);
    dscen_show("y", y, N);
    dscen_show("z", z, N);
    CU(cuMemFreeHost(host));
    CU(cuMemFree(x));
    CU(cuMemFree(y));
    CU(cuMemFree(z));
    CU(cuMemFree(sum));
}

/* The loop on a created (non-blocking) stream, then on the legacy stream. */
int main(void)
{
    dscen_begin("driver_loop");
    f_fill = dscen_fn("k_fill");
    f_axpy = dscen_fn("k_axpy");
    f_scale = dscen_fn("k_scale");
    f_add_step = dscen_fn("k_add_step");
    f_combine = dscen_fn("k_combine");
    f_reduce = dscen_fn("k_reduce_sum");
    CUstream s;
    CU(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    run("created", s);
    run("legacy", NULL);
    CU(cuStreamDestroy(s));
    return dscen_end();
}
