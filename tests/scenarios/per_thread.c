/* SPDX-License-Identifier: MIT */
/*
 * per_thread: built with CUDA_API_PER_THREAD_DEFAULT_STREAM, so stream 0
 * is the per-thread default stream and every call goes to its _ptsz/_ptds
 * entry point. Work alternates between stream 0 and cudaStreamLegacy,
 * ordered by the legacy stream's implicit barrier with the (blocking)
 * per-thread stream.
 */
#define CUDA_API_PER_THREAD_DEFAULT_STREAM 1
#include "scenario.h"

#define N 2048

/* 30 iterations across the per-thread and the legacy stream. */
int main(void)
{
    scenario_begin("per_thread");
    float *a = dev_floats(N), *b = dev_floats(N);
    float *h = malloc(N * sizeof(float));
    k_fill_on(b, 0.0f, N, 0);
    for (int it = 0; it < 30; it++) {
        k_fill_on(a, (float)it * 0.5f, N, 0);
        k_axpy_on(2.0f, a, b, N, cudaStreamLegacy);
        k_scale_on(b, 0.5f, N, 0);
        CK(cudaMemsetAsync(a, 0, N * sizeof(float), 0));
        if (it % 5 == 4) {
            CK(cudaMemcpy(h, b, N * sizeof(float), cudaMemcpyDeviceToHost));
            report_hash("b", h, N * sizeof(float));
        }
    }
    CK(cudaStreamSynchronize(0));
    show("a", a, N);
    show("b", b, N);
    free(h);
    return scenario_end();
}
