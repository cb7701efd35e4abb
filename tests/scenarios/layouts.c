/* SPDX-License-Identifier: MIT */
/*
 * layouts: the second launch of each iteration is one of three kernels
 * whose parameters differ (k_scale: a pointer, a float, an int; k_add_step:
 * one int more; k_combine: three pointers and an int), chosen in an
 * irregular order, as PyTorch picks its vectorised or its unrolled
 * elementwise kernel by a tensor's alignment, token by token, in a decode
 * loop.  Under auto the iterations are one region whose node runs whichever
 * kernel came (kernel_node_takes: blocks within KERNEL_NODE_ARGS_ROOM), the
 * node's kernel and parameter block patched where they changed.  Recorded
 * on the stand-in without the shim (expected/layouts.out).
 */
#include "scenario.h"

#define N 2048
#define ITERS 60

/* ITERS iterations whose second launch is k_scale, k_add_step or k_combine. */
int main(void)
{
    scenario_begin("layouts");
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float *x = dev_floats(N), *y = dev_floats(N), *z = dev_floats(N);
    k_fill_on(x, 0.25f, N, s);
    k_fill_on(y, 0.0f, N, s);
    k_fill_on(z, 1.0f, N, s);
    CK(cudaStreamSynchronize(s));
    for (int it = 0; it < ITERS; it++) {
        k_add_step_on(x, 0.125f, it, N, s);
        switch ((it * 5 + it / 7) % 3) {
        case 0: k_scale_on(y, 0.75f, N, s); break;
        case 1: k_add_step_on(y, 0.5f, it, N, s); break;
        default: k_combine_on(x, y, z, N, s); break;
        }
        k_axpy_on(0.5f, z, y, N, s);
        k_scale_on(z, 0.5f, N, s);
        CK(cudaStreamSynchronize(s));
    }
    show("x", x, N);
    show("y", y, N);
    show("z", z, N);
    return scenario_end();
}
