/* SPDX-License-Identifier: MIT */
/*
 * two_shapes: two different iteration shapes alternate (sizes, kernels and
 * launch configurations), like prefill and decode steps.
 */
#include "scenario.h"

#define NA 1024
#define NB 4096

/* 40 iterations alternating shape A and shape B. */
int main(void)
{
    scenario_begin("two_shapes");
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float *a = dev_floats(NA), *b = dev_floats(NB), *c = dev_floats(NB), *sum = dev_floats(1);
    float *half = dev_floats(NB);
    k_fill_on(a, 1.0f, NA, s);
    k_fill_on(b, 0.5f, NB, s);
    k_fill_on(half, 0.5f, NB, s);
    k_fill_on(c, 0.0f, NB, s);
    for (int it = 0; it < 40; it++) {
        if (it % 2 == 0) {
            k_axpy_on(0.5f, a, a, NA, s);
            k_scale_on(a, 0.625f, NA, s);
        } else {
            k_combine_on(b, half, c, NB, s);
            k_add_step_on(c, 0.125f, it, NB, s);
            k_scale_on(b, 0.5f, NB, s);
            k_axpy_on(0.25f, c, b, NB, s);
            k_reduce_sum_on(c, sum, NB, s);
        }
        CK(cudaStreamSynchronize(s));
    }
    show("a", a, NA);
    show("b", b, NB);
    show("c", c, NB);
    show("sum", sum, 1);
    return scenario_end();
}
