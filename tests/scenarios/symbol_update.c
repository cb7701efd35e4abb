/* SPDX-License-Identifier: MIT */
/*
 * symbol_update: a __device__ array of coefficients is rewritten every
 * iteration with cudaMemcpyToSymbolAsync from pageable memory that is
 * reused at once, then read by a kernel.
 */
#include "scenario.h"

#define N 1024

/* 20 iterations of symbol update and apply. */
int main(void)
{
    scenario_begin("symbol_update");
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float *y = dev_floats(N);
    float coef[4];
    k_fill_on(y, 1.0f, N, s);
    for (int it = 0; it < 20; it++) {
        for (int i = 0; i < 4; i++)
            coef[i] = 1.0f + 0.0625f * (float)((it + i) % 5) - 0.125f * (float)(i == 2);
        CK(cudaMemcpyToSymbolAsync(k_coef_symbol(), coef, sizeof coef, 0,
                                   cudaMemcpyHostToDevice, s));
        memset(coef, 0, sizeof coef);
        void *args[] = {&y, &(int){N}};
        CK(cudaLaunchKernel((const void *)k_apply_coef, grid_for(N), block256, args, 0, s));
        k_add_step_on(y, 0.0078125f, it, N, s);
        CK(cudaStreamSynchronize(s));
    }
    float back[4];
    CK(cudaMemcpyFromSymbol(back, k_coef_symbol(), sizeof back, 0, cudaMemcpyDeviceToHost));
    report_hash("coef", back, sizeof back);
    show("y", y, N);
    return scenario_end();
}
