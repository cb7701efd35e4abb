/* SPDX-License-Identifier: MIT */
/* k_big_arg: CPU twin of kernels/k_big_arg.cu (-ffp-contract=off); the table comes by value, as on the GPU. */
#include "cpu_kernel.h"

/* y[i] = y[i] * 0.5f + t.w[i % K_BIG_ARG_WORDS] */
void k_big_arg(float *y, struct k_big_arg_table t, int n)
{
    CPU_BLOCK_BEGIN;
    FOR_EACH_THREAD {
        int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
        if (i < n)
            y[i] = y[i] * 0.5f + t.w[i % K_BIG_ARG_WORDS];
    }
}
CPU_KERNEL_3(k_big_arg, float *, struct k_big_arg_table, int)
