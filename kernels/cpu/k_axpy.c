/* SPDX-License-Identifier: MIT */
/* k_axpy: CPU twin of kernels/k_axpy.cu (built with -ffp-contract=off). */
#include "cpu_kernel.h"

/* y[i] = a * x[i] + y[i] */
void k_axpy(float a, const float *x, float *y, int n)
{
    CPU_BLOCK_BEGIN;
    standin_grid_dependency_sync();
    FOR_EACH_THREAD {
        int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
        if (i < n)
            y[i] = a * x[i] + y[i];
    }
}
CPU_KERNEL_4(k_axpy, float, const float *, float *, int)
