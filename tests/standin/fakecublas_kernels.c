/* SPDX-License-Identifier: MIT */
/*
 * tests/standin/fakecublas_kernels.c: the fake cuBLAS's kernels as CPU
 * twins (fakecublas_kernels.h), registered by address like those of
 * kernels/cpu/. The sums run in a fixed order (per thread, then the
 * block's threads in order, then the blocks in order).
 */
#include "../../kernels/cpu/cpu_kernel.h"
#include "fakecublas_kernels.h"

/* The tags after a workspace's FAKECUBLAS_MAX_BLOCKS floats. */
static unsigned *tags_of(const float *ws)
{
    return (unsigned *)(void *)((char *)ws + FAKECUBLAS_MAX_BLOCKS * sizeof(float));
}

/* *p = 0 (one thread) */
void fakecublas_zero(unsigned *p)
{
    CPU_BLOCK_BEGIN;
    if (blockIdx.x == 0)
        *p = 0;
}
CPU_KERNEL_1(fakecublas_zero, unsigned *)

/* ws[block] = the block's part of x . y, tagged */
void fakecublas_dot_partial(const float *x, const float *y, int n, float *ws, unsigned tag)
{
    CPU_BLOCK_BEGIN;
    float part[FAKECUBLAS_THREADS] = {0};
    unsigned stride = gridDim.x * blockDim.x;
    FOR_EACH_THREAD {
        float a = 0.0f;
        for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < (unsigned)n; i += stride)
            a += x[i] * y[i];
        part[threadIdx.x] = a;
    }
    float sum = 0.0f;
    for (unsigned t = 0; t < blockDim.x && t < FAKECUBLAS_THREADS; t++)
        sum += part[t];
    ws[blockIdx.x] = sum;
    tags_of(ws)[blockIdx.x] = tag;
}
CPU_KERNEL_5(fakecublas_dot_partial, const float *, const float *, int, float *, unsigned)

/* *result = sum of the tagged parts, or NaN and a fault when a part is not this call's */
void fakecublas_dot_final(const float *ws, int nblocks, unsigned tag, float *result, unsigned *faults)
{
    CPU_BLOCK_BEGIN;
    if (blockIdx.x != 0)
        return;
    float sum = 0.0f;
    for (int b = 0; b < nblocks; b++) {
        if (tags_of(ws)[b] != tag) {
            (*faults)++;
            *result = __builtin_nanf("");
            return;
        }
        sum += ws[b];
    }
    *result = sum;
}
CPU_KERNEL_5(fakecublas_dot_final, const float *, int, unsigned, float *, unsigned *)

/* ws[0] = *alpha, tagged */
void fakecublas_stage(const float *alpha, float *ws, unsigned tag)
{
    CPU_BLOCK_BEGIN;
    if (blockIdx.x != 0)
        return;
    ws[0] = *alpha;
    tags_of(ws)[0] = tag;
}
CPU_KERNEL_3(fakecublas_stage, const float *, float *, unsigned)

/* y += ws[0] * x, or a fault when ws[0] is not this call's */
void fakecublas_axpy_kernel(int n, const float *ws, unsigned tag, const float *x, float *y, unsigned *faults)
{
    CPU_BLOCK_BEGIN;
    if (tags_of(ws)[0] != tag) {
        if (blockIdx.x == 0)
            (*faults)++;
        return;
    }
    float a = ws[0];
    FOR_EACH_THREAD {
        unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < (unsigned)n)
            y[i] = a * x[i] + y[i];
    }
}
CPU_KERNEL_6(fakecublas_axpy_kernel, int, const float *, unsigned, const float *, float *, unsigned *)

/* x *= ws[0], or a fault when ws[0] is not this call's */
void fakecublas_scal_kernel(int n, const float *ws, unsigned tag, float *x, unsigned *faults)
{
    CPU_BLOCK_BEGIN;
    if (tags_of(ws)[0] != tag) {
        if (blockIdx.x == 0)
            (*faults)++;
        return;
    }
    float a = ws[0];
    FOR_EACH_THREAD {
        unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < (unsigned)n)
            x[i] = a * x[i];
    }
}
CPU_KERNEL_5(fakecublas_scal_kernel, int, const float *, unsigned, float *, unsigned *)
