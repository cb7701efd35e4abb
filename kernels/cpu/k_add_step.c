/* SPDX-License-Identifier: MIT */
/* k_add_step: CPU twin of kernels/k_add_step.cu (-ffp-contract=off). */
#include "cpu_kernel.h"

/* y[i] = y[i] + s * (float)(step + i % 3) */
void k_add_step(float *y, float s, int step, int n)
{
    CPU_BLOCK_BEGIN;
    FOR_EACH_THREAD {
        int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
        if (i < n)
            y[i] = y[i] + s * (float)(step + i % 3);
    }
}
CPU_KERNEL_4(k_add_step, float *, float, int, int)
