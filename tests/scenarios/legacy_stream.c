/* SPDX-License-Identifier: MIT */
/*
 * legacy_stream: work on the legacy default stream (0) mixed with a
 * blocking stream, ordered only by the legacy stream's implicit barriers.
 * (Built with per-thread default streams this program would race: that
 * stream does not synchronise with other blocking streams; see per_thread.c.)
 */
#include "scenario.h"

#define N 2048

/* 30 iterations across stream 0 and a blocking stream. */
int main(void)
{
    scenario_begin("legacy_stream");
    cudaStream_t sb;
    CK(cudaStreamCreate(&sb));
    float *a = dev_floats(N), *b = dev_floats(N);
    float *h = malloc(N * sizeof(float));
    k_fill_on(b, 0.0f, N, 0);
    for (int it = 0; it < 30; it++) {
        k_fill_on(a, (float)it * 0.5f, N, 0);
        k_axpy_on(2.0f, a, b, N, sb);      /* after the fill: implicit barrier */
        k_scale_on(b, 0.5f, N, 0);         /* after the axpy: implicit barrier */
        CK(cudaMemsetAsync(a, 0, N * sizeof(float), 0));
        if (it % 5 == 4) {
            CK(cudaMemcpy(h, b, N * sizeof(float), cudaMemcpyDeviceToHost));
            report_hash("b", h, N * sizeof(float));
        }
    }
    CK(cudaDeviceSynchronize());
    show("a", a, N);
    show("b", b, N);
    free(h);
    return scenario_end();
}
