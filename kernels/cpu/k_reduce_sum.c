/* SPDX-License-Identifier: MIT */
/*
 * k_reduce_sum: CPU twin of kernels/k_reduce_sum.cu. The three phases
 * between __syncthreads() are three passes over the threads, adding in the
 * GPU version's order, so the float sum is bit-identical.
 */
#include "cpu_kernel.h"

/* out[0] = sum of x[0..n), strided partial sums then a halving tree */
void k_reduce_sum(const float *x, float *out, int n)
{
    float part[1024];
    CPU_BLOCK_BEGIN;

    if (blockIdx.x != 0)
        return;
    unsigned nt = blockDim.x;
    FOR_EACH_THREAD {
        unsigned t = threadIdx.x;
        float acc = 0.0f;
        for (int i = (int)t; i < n; i += (int)nt)
            acc = acc + x[i];
        part[t] = acc;
    }
    for (unsigned s = nt / 2; s > 0; s >>= 1) {
        FOR_EACH_THREAD {
            unsigned t = threadIdx.x;
            if (t < s)
                part[t] = part[t] + part[t + s];
        }
    }
    FOR_EACH_THREAD {
        if (threadIdx.x == 0)
            out[0] = part[0];
    }
}
CPU_KERNEL_3(k_reduce_sum, const float *, float *, int)
