/* SPDX-License-Identifier: MIT */
/*
 * alternating_args: pointer arguments swap between two buffers every
 * iteration and a scalar changes every iteration, so a graph replayed
 * without patching its arguments computes something else.
 */
#include "scenario.h"

#define N 2048

/* Ping-pongs between a and b for 40 iterations. */
int main(void)
{
    scenario_begin("alternating_args");
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    float *a = dev_floats(N), *b = dev_floats(N);
    k_fill_on(a, 1.0f, N, s);
    k_fill_on(b, 2.0f, N, s);
    for (int it = 0; it < 40; it++) {
        float *src = (it & 1) ? a : b, *dst = (it & 1) ? b : a;
        k_add_step_on(src, 0.0625f * (float)(it + 1), it, N, s);
        k_axpy_on(1.5f, src, dst, N, s);
        k_scale_on(dst, 0.5f, N, s);
        CK(cudaStreamSynchronize(s));
    }
    show("a", a, N);
    show("b", b, N);
    return scenario_end();
}
