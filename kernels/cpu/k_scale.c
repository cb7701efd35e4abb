/* SPDX-License-Identifier: MIT */
/* k_scale: CPU twin of kernels/k_scale.cu. */
#include "cpu_kernel.h"

/* y[i] = y[i] * a */
void k_scale(float *y, float a, int n)
{
    CPU_BLOCK_BEGIN;
    standin_grid_dependency_sync();
    FOR_EACH_THREAD {
        int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
        if (i < n)
            y[i] = y[i] * a;
    }
}
CPU_KERNEL_3(k_scale, float *, float, int)
