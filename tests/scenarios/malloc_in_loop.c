/* SPDX-License-Identifier: MIT */
/*
 * malloc_in_loop: every fourth iteration frees and allocates a new
 * temporary buffer, so a kernel argument points somewhere new.
 */
#include "scenario.h"

#define N 2048

/* 32 iterations; a new cudaMalloc every fourth. */
int main(void)
{
    scenario_begin("malloc_in_loop");
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float *acc = dev_floats(N), *tmp = NULL;
    k_fill_on(acc, 1.0f, N, s);
    for (int it = 0; it < 32; it++) {
        if (it % 4 == 0) {
            CK(cudaStreamSynchronize(s));
            if (tmp)
                CK(cudaFree(tmp));
            tmp = dev_floats(N);
        }
        k_fill_on(tmp, (float)(it % 4) + 1.0f, N, s);
        k_add_step_on(tmp, 0.5f, it, N, s);
        k_axpy_on(0.25f, tmp, acc, N, s);
        CK(cudaStreamSynchronize(s));
    }
    show("acc", acc, N);
    CK(cudaFree(tmp));
    return scenario_end();
}
