/* SPDX-License-Identifier: MIT */
/* launch_loop: the same kernels every iteration, one stream, a sync per iteration. */
#include "scenario.h"

#define N 4096

/* Runs 50 iterations (LAUNCH_LOOP_ITERS if set) of axpy, scale and a step-counter kernel. */
int main(void)
{
    const char *iters_env = getenv("LAUNCH_LOOP_ITERS");
    int iters = iters_env ? atoi(iters_env) : 50;
    scenario_begin("launch_loop");
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float *x = dev_floats(N), *y = dev_floats(N);
    k_fill_on(x, 1.0f, N, s);
    k_fill_on(y, 0.0f, N, s);
    for (int it = 0; it < iters; it++) {
        k_axpy_on(0.5f, x, y, N, s);
        k_scale_on(y, 0.875f, N, s);
        k_add_step_on(x, 0.125f, it, N, s);
        CK(cudaStreamSynchronize(s));
    }
    show("x", x, N);
    show("y", y, N);
    return scenario_end();
}
