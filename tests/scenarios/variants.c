/* SPDX-License-Identifier: MIT */
/*
 * variants: the second launch of each iteration is one of two kernels with
 * the same parameters (k_fill and k_scale: a float pointer, a float, an
 * int), as a library picks one instantiation of a template or another by
 * the data's alignment or size.  Iterations 0..SWITCH_AT-1 alternate
 * between them every other iteration; iteration SWITCH_AT launches k_scale
 * and allocates (a boundary inside the region: the occurrence falls back);
 * every later iteration launches k_scale, which the fast path then takes
 * from its record slot while the graph's node may hold k_fill: the node's
 * kernel must be patched all the same.  Under auto the iterations are one
 * region whose node takes either kernel (engine_call.c, launch_takes_node).
 * Recorded on the stand-in without the shim (expected/variants.out).
 */
#include "scenario.h"

#define N 2048
#define ITERS 48
#define SWITCH_AT 24

/* ITERS iterations whose second launch is k_fill or k_scale. */
int main(void)
{
    scenario_begin("variants");
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float *x = dev_floats(N), *y = dev_floats(N);
    k_fill_on(x, 0.25f, N, s);
    k_fill_on(y, 0.0f, N, s);
    CK(cudaStreamSynchronize(s));
    for (int it = 0; it < ITERS; it++) {
        k_add_step_on(x, 0.125f, it, N, s);
        if (it < SWITCH_AT && it % 2 == 0)
            k_fill_on(y, 0.5f + (float)it, N, s);
        else
            k_scale_on(y, 0.75f, N, s);
        if (it == SWITCH_AT) {
            float *scratch = dev_floats(16); /* a boundary: the occurrence falls back */
            CK(cudaFree(scratch));
        }
        k_axpy_on(0.5f, x, y, N, s);
        CK(cudaStreamSynchronize(s));
    }
    show("x", x, N);
    show("y", y, N);
    return scenario_end();
}
