/* SPDX-License-Identifier: MIT */
/*
 * no_repeat: a loop whose sequence of calls is never the same twice, as a
 * decoder's whose every token launches other kernels.  Each iteration
 * launches a step counter, then 8 kernels, k_scale or k_axpy as the bits of
 * the iteration's number say, and syncs: 9 launches a sync, nothing to
 * graph.  Two neighbouring iterations first differ at their second call
 * (bit 0): k_scale, then k_axpy.  NO_REPEAT_PERIOD=P takes the iteration's
 * number modulo P: each sequence recurs every P iterations.
 */
#include "scenario.h"

#define N 1024

/* Runs 48 iterations (NO_REPEAT_ITERS if set, at most 256: each pattern once). */
int main(void)
{
    const char *iters_env = getenv("NO_REPEAT_ITERS");
    int iters = iters_env ? atoi(iters_env) : 48;
    if (iters > 256)
        iters = 256;
    const char *period_env = getenv("NO_REPEAT_PERIOD");
    int period = period_env && atoi(period_env) > 0 ? atoi(period_env) : 256;
    scenario_begin("no_repeat");
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float *x = dev_floats(N), *y = dev_floats(N);
    k_fill_on(x, 1.0f, N, s);
    k_fill_on(y, 0.0f, N, s);
    CK(cudaStreamSynchronize(s));
    for (int it = 0; it < iters; it++) {
        k_add_step_on(x, 0.125f, it, N, s);
        for (int bit = 0; bit < 8; bit++) {
            if ((it % period) >> bit & 1)
                k_axpy_on(0.5f, x, y, N, s);
            else
                k_scale_on(y, 0.875f, N, s);
        }
        CK(cudaStreamSynchronize(s));
    }
    show("x", x, N);
    show("y", y, N);
    return scenario_end();
}
