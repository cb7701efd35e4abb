/* SPDX-License-Identifier: MIT */
/*
 * rotating_args: the pointers of a region rotate among two buffers
 * (ping-pong) and then, in a second region, among three (triple
 * buffering), every other argument the same each time: after warm-up a
 * graph with one instance per argument set replays with nothing to patch
 * (tests/standin/arg_sets.sh).  Kernels, a device-to-device copy and a
 * memset, each with rotating pointers.
 */
#include "scenario.h"

#define N 1024

/* Two buffers for 40 iterations, then three for 45. */
int main(void)
{
    scenario_begin("rotating_args");
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    size_t bytes = (size_t)N * sizeof(float);
    float *x[3], *copy[3], *out = dev_floats(N);
    for (int k = 0; k < 3; k++) {
        x[k] = dev_floats(N);
        copy[k] = dev_floats(N);
        k_fill_on(x[k], 1.0f + (float)k, N, s);
        k_fill_on(copy[k], 0.0f, N, s);
    }
    k_fill_on(out, 0.0f, N, s);
    CK(cudaStreamSynchronize(s));
    for (int it = 0; it < 40; it++) {
        float *src = x[it & 1], *dst = x[!(it & 1)];
        k_axpy_on(0.5f, src, dst, N, s);
        k_scale_on(dst, 0.75f, N, s);
        CK(cudaMemcpyAsync(copy[it & 1], dst, bytes, cudaMemcpyDeviceToDevice, s));
        k_add_step_on(src, 0.25f, 3, N, s);
        CK(cudaStreamSynchronize(s));
    }
    for (int it = 0; it < 45; it++) {
        float *a = x[it % 3], *b = x[(it + 1) % 3], *c = x[(it + 2) % 3];
        k_axpy_on(0.25f, a, b, N, s);
        k_scale_on(b, 0.5f, N, s);
        CK(cudaMemsetAsync(copy[it % 3], 0, bytes / 2, s));
        k_axpy_on(1.0f, b, copy[it % 3], N, s);
        k_add_step_on(c, 0.125f, 1, N, s);
        CK(cudaStreamSynchronize(s));
    }
    k_axpy_on(1.0f, x[0], out, N, s);
    for (int k = 0; k < 3; k++) {
        char name[16];
        snprintf(name, sizeof name, "x%d", k);
        show(name, x[k], N);
        snprintf(name, sizeof name, "copy%d", k);
        show(name, copy[k], N);
    }
    show("out", out, N);
    return scenario_end();
}
