/* SPDX-License-Identifier: MIT */
/* d2h_each: every iteration ends with a synchronous device-to-host copy. */
#include "scenario.h"

#define N 1024

/* 20 iterations; prints the copied-back bytes of each. */
int main(void)
{
    scenario_begin("d2h_each");
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    float *x = dev_floats(N), *y = dev_floats(N), *z = dev_floats(N);
    float *h = malloc(N * sizeof(float));
    k_fill_on(x, 1.5f, N, s);
    k_fill_on(y, 0.25f, N, s);
    for (int it = 0; it < 20; it++) {
        k_add_step_on(y, 0.5f, it, N, s);
        k_combine_on(x, y, z, N, s);
        k_scale_on(x, 0.9375f, N, s);
        /* cudaMemcpy runs on the legacy stream, which waits for s (blocking). */
        CK(cudaMemcpy(h, z, N * sizeof(float), cudaMemcpyDeviceToHost));
        char label[32];
        snprintf(label, sizeof label, "z[%d]", it);
        report_hash(label, h, N * sizeof(float));
    }
    free(h);
    return scenario_end();
}
