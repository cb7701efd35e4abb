/* SPDX-License-Identifier: MIT */
/*
 * k_reduce_sum: out[0] = sum of x[0..n), in a fixed order (GPU version).
 * Block 0 only: thread t adds x[t], x[t + nt], ... left to right, then a
 * shared-memory tree halves the partial sums. No atomics, so the order of
 * the float additions is the same on every run and in the CPU twin.
 */
#include "kernels.h"

/* out[0] = sum of x[0..n), block 0 only */
KERNEL void k_reduce_sum(const float *x, float *out, int n)
{
    __shared__ float part[1024];
    unsigned t = threadIdx.x, nt = blockDim.x;

    if (blockIdx.x != 0)
        return;
    float acc = 0.0f;
    for (int i = (int)t; i < n; i += (int)nt)
        acc = acc + x[i];
    part[t] = acc;
    __syncthreads();
    for (unsigned s = nt / 2; s > 0; s >>= 1) {
        if (t < s)
            part[t] = part[t] + part[t + s];
        __syncthreads();
    }
    if (t == 0)
        out[0] = part[0];
}
