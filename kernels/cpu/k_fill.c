/* SPDX-License-Identifier: MIT */
/* k_fill: CPU twin of kernels/k_fill.cu. */
#include "cpu_kernel.h"

/* y[i] = v */
void k_fill(float *y, float v, int n)
{
    CPU_BLOCK_BEGIN;
    standin_grid_dependency_sync();
    FOR_EACH_THREAD {
        int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
        if (i < n)
            y[i] = v;
    }
}
CPU_KERNEL_3(k_fill, float *, float, int)
