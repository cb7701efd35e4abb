/* SPDX-License-Identifier: MIT */
/* k_combine: c[i] = a[i] * b[i] + a[i] (GPU version; -fmad=false). */
#include "kernels.h"

/* c[i] = a[i] * b[i] + a[i], one thread per element */
KERNEL void k_combine(const float *a, const float *b, float *c, int n)
{
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < n)
        c[i] = a[i] * b[i] + a[i];
}
