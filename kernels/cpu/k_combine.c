/* SPDX-License-Identifier: MIT */
/* k_combine: CPU twin of kernels/k_combine.cu (-ffp-contract=off). */
#include "cpu_kernel.h"

/* c[i] = a[i] * b[i] + a[i] */
void k_combine(const float *a, const float *b, float *c, int n)
{
    CPU_BLOCK_BEGIN;
    FOR_EACH_THREAD {
        int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
        if (i < n)
            c[i] = a[i] * b[i] + a[i];
    }
}
CPU_KERNEL_4(k_combine, const float *, const float *, float *, int)
