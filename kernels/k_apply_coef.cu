/* SPDX-License-Identifier: MIT */
/* k_apply_coef: y[i] = y[i] * k_coef[i % 4] (GPU version); defines k_coef. */
#include "kernels.h"

static __device__ float k_coef[4];

/* The host-side symbol address of k_coef, for cudaMemcpyToSymbol. */
extern "C" const void *k_coef_symbol(void)
{
    return (const void *)&k_coef;
}

/* y[i] *= k_coef[i % 4], one thread per element */
KERNEL void k_apply_coef(float *y, int n)
{
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < n)
        y[i] = y[i] * k_coef[i % 4];
}
