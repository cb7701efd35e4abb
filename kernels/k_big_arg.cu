/* SPDX-License-Identifier: MIT */
/* k_big_arg: y[i] = y[i] * 0.5f + t.w[i % K_BIG_ARG_WORDS], t a 4000-byte by-value argument (GPU version; -fmad=false). */
#include "kernels.h"

/* y[i] = y[i] * 0.5f + t.w[i % K_BIG_ARG_WORDS], one thread per element */
KERNEL void k_big_arg(float *y, struct k_big_arg_table t, int n)
{
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < n)
        y[i] = y[i] * 0.5f + t.w[i % K_BIG_ARG_WORDS];
}
