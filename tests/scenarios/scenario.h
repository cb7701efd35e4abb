/* SPDX-License-Identifier: MIT */
/*
 * tests/scenarios/scenario.h: helpers of the scenario programs.
 *
 * A scenario is a small C program against the CUDA runtime API, built twice:
 * against the CPU stand-in (make check) and with nvcc for a GPU (make
 * gpu-programs). It prints a checksum of every output buffer and every
 * failed call, so that runs compare byte for byte: GPU against stand-in,
 * seed against seed, with and without the reprise shim preloaded.
 */
#ifndef REPRISE_SCENARIO_H
#define REPRISE_SCENARIO_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "../../kernels/kernels.h"
#include "../report.h"

/* Updated from every thread of a scenario (two_threads): atomically, or counts get lost. */
static unsigned long scenario_calls, scenario_errors;

/* Counts a call and prints it when it failed. */
static inline cudaError_t scenario_check(cudaError_t e, const char *what, int line)
{
    __atomic_fetch_add(&scenario_calls, 1, __ATOMIC_RELAXED);
    if (e != cudaSuccess) {
        __atomic_fetch_add(&scenario_errors, 1, __ATOMIC_RELAXED);
        printf("error at line %d: %s: %s\n", line, what, cudaGetErrorName(e));
    }
    return e;
}

/* Checks one runtime call. */
#define CK(call) scenario_check((call), #call, __LINE__)

/* Prints the scenario's name and makes stdout line-buffered. */
static inline void scenario_begin(const char *name)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    require_device();
    printf("scenario %s\n", name);
}

/* Prints the call count and error count; the exit status of main. */
static inline int scenario_end(void)
{
    CK(cudaDeviceSynchronize());
    printf("calls %lu errors %lu last error %s\n", scenario_calls, scenario_errors,
           cudaGetErrorName(cudaGetLastError()));
    return 0;
}

/* cudaMalloc of n floats. */
static inline float *dev_floats(int n)
{
    float *p = NULL;
    CK(cudaMalloc((void **)&p, (size_t)n * sizeof(float)));
    return p;
}

/* Grid of 256-thread blocks covering n elements. */
static inline dim3 grid_for(int n)
{
    dim3 g = {(unsigned)((n + 255) / 256), 1, 1};
    return g;
}

static const dim3 block256 = {256, 1, 1};

/* y = v */
static inline void k_fill_on(float *y, float v, int n, cudaStream_t s)
{
    void *a[] = {&y, &v, &n};
    CK(cudaLaunchKernel((const void *)k_fill, grid_for(n), block256, a, 0, s));
}

/* y = a * x + y */
static inline void k_axpy_on(float alpha, const float *x, float *y, int n, cudaStream_t s)
{
    void *a[] = {&alpha, &x, &y, &n};
    CK(cudaLaunchKernel((const void *)k_axpy, grid_for(n), block256, a, 0, s));
}

/* y = y * f */
static inline void k_scale_on(float *y, float f, int n, cudaStream_t s)
{
    void *a[] = {&y, &f, &n};
    CK(cudaLaunchKernel((const void *)k_scale, grid_for(n), block256, a, 0, s));
}

/* y += f * (step + i % 3) */
static inline void k_add_step_on(float *y, float f, int step, int n, cudaStream_t s)
{
    void *a[] = {&y, &f, &step, &n};
    CK(cudaLaunchKernel((const void *)k_add_step, grid_for(n), block256, a, 0, s));
}

/* c = a * b + a */
static inline void k_combine_on(const float *x, const float *y, float *z, int n, cudaStream_t s)
{
    void *a[] = {&x, &y, &z, &n};
    CK(cudaLaunchKernel((const void *)k_combine, grid_for(n), block256, a, 0, s));
}

/* out[0] = sum of x (one block of REDUCE_THREADS) */
static inline void k_reduce_sum_on(const float *x, float *out, int n, cudaStream_t s)
{
    void *a[] = {&x, &out, &n};
    dim3 g = {1, 1, 1}, b = {REDUCE_THREADS, 1, 1};
    CK(cudaLaunchKernel((const void *)k_reduce_sum, g, b, a, 0, s));
}

/* does nothing */
static inline void k_empty_on(cudaStream_t s)
{
    dim3 g = {1, 1, 1}, b = {32, 1, 1};
    CK(cudaLaunchKernel((const void *)k_empty, g, b, NULL, 0, s));
}

/* *p = v (one thread) */
static inline void k_poke_on(int *p, int v, cudaStream_t s)
{
    void *a[] = {&p, &v};
    dim3 g = {1, 1, 1}, b = {32, 1, 1};
    CK(cudaLaunchKernel((const void *)k_poke, g, b, a, 0, s));
}

/* An int of mapped pinned memory holding -1, which kernels write through *dev and the host reads with no call. */
static inline int *mapped_flag(int **dev)
{
    int *flag = NULL;
    CK(cudaHostAlloc((void **)&flag, sizeof *flag, cudaHostAllocMapped));
    CK(cudaHostGetDevicePointer((void **)dev, flag, 0));
    *(volatile int *)flag = -1;
    return flag;
}

/* Prints the hash of n floats of device memory (and, built with
 * -DSCENARIO_SHOW_VALUES, the first and last value, to check by eye that
 * a scenario computes finite numbers). */
static inline void show(const char *name, const float *d, int n)
{
    report_device_hash(name, d, (size_t)n * sizeof(float));
#ifdef SCENARIO_SHOW_VALUES
    float first = 0, last = 0;
    cudaMemcpy(&first, d, sizeof first, cudaMemcpyDeviceToHost);
    cudaMemcpy(&last, d + n - 1, sizeof last, cudaMemcpyDeviceToHost);
    printf("  %s[0] = %g, %s[%d] = %g\n", name, first, name, n - 1, last);
#endif
}

#endif
