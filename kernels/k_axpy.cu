/* SPDX-License-Identifier: MIT */
/* k_axpy: y[i] = a * x[i] + y[i] (GPU version; built with -fmad=false). */
#include "kernels.h"

/* y[i] = a * x[i] + y[i], one thread per element */
KERNEL void k_axpy(float a, const float *x, float *y, int n)
{
    kernel_grid_dependency_sync();
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < n)
        y[i] = a * x[i] + y[i];
}
