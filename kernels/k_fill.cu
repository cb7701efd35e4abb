/* SPDX-License-Identifier: MIT */
/* k_fill: y[i] = v (GPU version; CPU twin in cpu/k_fill.c). */
#include "kernels.h"

/* y[i] = v, one thread per element */
KERNEL void k_fill(float *y, float v, int n)
{
    kernel_grid_dependency_sync();
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < n)
        y[i] = v;
}
