/* SPDX-License-Identifier: MIT */
/* k_scale: y[i] = y[i] * a (GPU version). */
#include "kernels.h"

/* y[i] *= a, one thread per element */
KERNEL void k_scale(float *y, float a, int n)
{
    kernel_grid_dependency_sync();
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < n)
        y[i] = y[i] * a;
}
