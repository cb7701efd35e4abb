/* SPDX-License-Identifier: MIT */
/*
 * kernels/kernels.h: the test kernels, declared once for both builds.
 *
 * Every kernel exists twice under one name: as a CUDA kernel in
 * kernels/<name>.cu (built by nvcc for the GPU build) and as a CPU twin in
 * kernels/cpu/<name>.c (built by gcc for the stand-in build). Scenario
 * programs are plain C and launch with
 *     cudaLaunchKernel((const void *)k_axpy, grid, block, args, 0, stream);
 * In the GPU build the address is nvcc's host stub; in the stand-in build it
 * is the CPU twin, which registers itself with the stand-in by address.
 *
 * Float results must be bit-identical on both: the .cu files are compiled
 * with -fmad=false and the CPU twins with -ffp-contract=off, so a*x+y is a
 * rounded multiply then a rounded add on both sides; no kernel divides or
 * calls a library function.
 */
#ifndef REPRISE_KERNELS_H
#define REPRISE_KERNELS_H

#ifdef __CUDACC__
#define KERNEL extern "C" __global__
#else
#define KERNEL extern
#endif

/*
 * k_fill, k_axpy and k_scale may be launched as programmatic dependent
 * launches (the fuzzers' and pdl_library's): they wait for their primary
 * first, cudaGridDependencySynchronize() on the GPU (a no-op for any other
 * launch), standin_grid_dependency_sync() in their CPU twins.  The others
 * do not, so that a programmatic edge where a full one was asked for shows
 * (docs/standin.md, "Programmatic dependent launch").
 */
#ifdef __CUDACC__
/* Waits until the kernels this launch depends on programmatically have completed (none before sm_90). */
static __device__ __forceinline__ void kernel_grid_dependency_sync(void)
{
#if __CUDA_ARCH__ >= 900
    cudaGridDependencySynchronize();
#endif
}
#endif

/* Threads per block of k_reduce_sum: a power of two, at most 1024. */
#define REDUCE_THREADS 256

/* y[i] = v (after its primary) */
KERNEL void k_fill(float *y, float v, int n);
/* y[i] = a * x[i] + y[i] (after its primary) */
KERNEL void k_axpy(float a, const float *x, float *y, int n);
/* y[i] = y[i] * a (after its primary) */
KERNEL void k_scale(float *y, float a, int n);
/* y[i] = y[i] + s * (float)(step + i % 3): a scalar that changes every step */
KERNEL void k_add_step(float *y, float s, int step, int n);
/* c[i] = a[i] * b[i] + a[i]: reads two buffers, writes a third */
KERNEL void k_combine(const float *a, const float *b, float *c, int n);
/* out[0] = sum of x[0..n) in a fixed order; launch <<<1, REDUCE_THREADS>>> */
KERNEL void k_reduce_sum(const float *x, float *out, int n);
/* does nothing */
KERNEL void k_empty(void);
/* y[i] = y[i] * k_coef[i % 4]: reads a __device__ symbol */
KERNEL void k_apply_coef(float *y, int n);
/* *p = v from thread 0: with a bad p, a device fault (sticky error) */
KERNEL void k_poke(int *p, int v);

/* Words in k_big_arg's by-value table: 4000 bytes, a parameter of several KB
   (the parameters total 4012 bytes, under the classic 4 KB limit). */
#define K_BIG_ARG_WORDS 1000
struct k_big_arg_table {
    float w[K_BIG_ARG_WORDS];
};
/* y[i] = y[i] * 0.5f + t.w[i % K_BIG_ARG_WORDS]: a by-value struct of several KB */
KERNEL void k_big_arg(float *y, struct k_big_arg_table t, int n);

/*
 * k_coef, four floats read by k_apply_coef, is a __device__ variable set with
 * cudaMemcpyToSymbol(k_coef_symbol(), ...). Without -rdc nvcc keeps its host
 * shadow file-local, so C code gets the symbol's address from this accessor
 * (host code in k_apply_coef.cu; in cpu/k_apply_coef.c for the stand-in).
 */
#ifdef __cplusplus
extern "C"
#endif
const void *k_coef_symbol(void);

#endif
