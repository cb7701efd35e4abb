/* SPDX-License-Identifier: MIT */
/* k_add_step: y[i] = y[i] + s * (float)(step + i % 3) (GPU version; -fmad=false). */
#include "kernels.h"

/* y[i] += s * (step + i % 3), one thread per element */
KERNEL void k_add_step(float *y, float s, int step, int n)
{
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < n)
        y[i] = y[i] + s * (float)(step + i % 3);
}
