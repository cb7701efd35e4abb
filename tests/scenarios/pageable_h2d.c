/* SPDX-License-Identifier: MIT */
/*
 * pageable_h2d: each iteration copies new data from PAGEABLE host memory
 * with cudaMemcpyAsync and overwrites the host buffer right after the call,
 * which CUDA allows (the bytes are staged before it returns). A shim that
 * defers the copy must take the bytes at call time.
 */
#include "scenario.h"

#define N 4096

/* 30 iterations of copy-in, overwrite, accumulate. */
int main(void)
{
    scenario_begin("pageable_h2d");
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float *in = dev_floats(N), *acc = dev_floats(N);
    float *h = malloc(N * sizeof(float));
    k_fill_on(acc, 0.0f, N, s);
    for (int it = 0; it < 30; it++) {
        for (int i = 0; i < N; i++)
            h[i] = (float)((i * 7 + it * 13) % 101) * 0.25f;
        CK(cudaMemcpyAsync(in, h, N * sizeof(float), cudaMemcpyHostToDevice, s));
        memset(h, 0xff, N * sizeof(float));     /* reuse at once: legal */
        k_axpy_on(1.0f, in, acc, N, s);
        k_scale_on(acc, 0.75f, N, s);
        CK(cudaStreamSynchronize(s));
    }
    show("acc", acc, N);
    free(h);
    return scenario_end();
}
