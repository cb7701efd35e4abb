/* SPDX-License-Identifier: MIT */
/*
 * tests/bench/held_back_loop.c: kernels/apps/bench_loop.cu on the CPU
 * stand-in, to count what a held-back call costs the shim (callgrind;
 * tools/dev/callgrind-auto runs it).
 *
 *     held_back_loop api|stub|driver [KERNELS [ITERS [HOST_US [FIRST_US]]]]
 *
 * Each iteration launches KERNELS small kernels on one non-blocking stream
 * and synchronises it: axpy with arguments that are the same every
 * iteration, and every tenth launch a step counter whose argument changes
 * every iteration (a node patched per replay).  api launches with
 * cudaLaunchKernel; stub launches as nvcc compiles <<<>>> since CUDA 12.8:
 * the launch expression pushes the call configuration, the kernel's host
 * stub pops it and calls __cudaLaunchKernel with the kernel's handle; driver
 * launches with cuLaunchKernel and synchronises with cuStreamSynchronize from
 * the program's own text, as a program built with the static runtime does
 * (the shim's driver front door).  HOST_US (default 0) makes the host
 * spend that long each iteration before the sync: work of its own between
 * syncs, which graphs cannot shorten (tests/ceiling.sh); FIRST_US (default
 * 0) that long more in the first iteration only, as a JIT's compiles or a
 * library's first-use set-up are (the ceiling leaves that span out).  The
 * stand-in spends it (standin_host_work): asleep, or on its virtual host
 * clock when that is preloaded.
 * Prints a checksum, which must not depend on the shim's mode.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "../../kernels/kernels.h"
#include "../report.h"

#define N 256

/* The stand-in's host work (standin/host_cost.c). */
extern void standin_host_work(long us);
extern unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem, cudaStream_t stream);
extern cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem, void *stream);
extern cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *func);
extern cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
                                      size_t sharedMem, cudaStream_t stream);

/* What nvcc generates as k_axpy's host stub: pop the configuration, launch with the kernel's handle. */
static void k_axpy_stub(float a, const float *x, float *y, int n)
{
    static cudaKernel_t handle;
    dim3 grid, block;
    size_t shared;
    cudaStream_t stream;
    if (__cudaPopCallConfiguration(&grid, &block, &shared, &stream) != cudaSuccess)
        return;
    if (handle == NULL)
        (void)__cudaGetKernel(&handle, (const void *)k_axpy);
    void *args[] = {&a, &x, &y, &n};
    (void)__cudaLaunchKernel(handle, grid, block, args, shared, stream);
}

/* What nvcc generates as k_add_step's host stub. */
static void k_add_step_stub(float *y, float s, int step, int n)
{
    static cudaKernel_t handle;
    dim3 grid, block;
    size_t shared;
    cudaStream_t stream;
    if (__cudaPopCallConfiguration(&grid, &block, &shared, &stream) != cudaSuccess)
        return;
    if (handle == NULL)
        (void)__cudaGetKernel(&handle, (const void *)k_add_step);
    void *args[] = {&y, &s, &step, &n};
    (void)__cudaLaunchKernel(handle, grid, block, args, shared, stream);
}

enum style { STYLE_API, STYLE_STUB, STYLE_DRIVER };

/* One launch of 1 block of N threads through the runtime (api) or the driver (a CUfunction is the twin's address). */
static void launch(enum style style, const void *func, void **args, cudaStream_t s)
{
    dim3 grid = {1, 1, 1}, block = {N, 1, 1};
    if (style == STYLE_DRIVER)
        (void)cuLaunchKernel((CUfunction)func, 1, 1, 1, N, 1, 1, 0, (CUstream)s, args, NULL);
    else
        (void)cudaLaunchKernel(func, grid, block, args, 0, s);
}

/* One iteration's launches, through cudaLaunchKernel, as <<<>>> compiles (stub), or through cuLaunchKernel. */
static void iteration(cudaStream_t s, int kernels, float *x, float *y, int it, enum style style)
{
    bool stub = style == STYLE_STUB;
    dim3 grid = {1, 1, 1}, block = {N, 1, 1};
    int n = N;
    for (int k = 0; k < kernels; k++) {
        if (k % 10 == 9) {
            float step = 0.125f;
            if (stub) {
                if (__cudaPushCallConfiguration(grid, block, 0, s) == 0)
                    k_add_step_stub(x, step, it, n);
            } else {
                void *args[] = {&x, &step, &it, &n};
                launch(style, (const void *)k_add_step, args, s);
            }
            continue;
        }
        float a = (k % 3 == 0) ? 0.5f : -0.25f;
        float *in = (k & 1) ? x : y, *out = (k & 1) ? y : x;
        if (stub) {
            if (__cudaPushCallConfiguration(grid, block, 0, s) == 0)
                k_axpy_stub(a, in, out, n);
        } else {
            void *args[] = {&a, &in, &out, &n};
            launch(style, (const void *)k_axpy, args, s);
        }
    }
}

int main(int argc, char **argv)
{
    const char *name = argc > 1 ? argv[1] : "api";
    enum style style = strcmp(name, "stub") == 0 ? STYLE_STUB : strcmp(name, "driver") == 0 ? STYLE_DRIVER : STYLE_API;
    int kernels = argc > 2 ? atoi(argv[2]) : 100;
    int iters = argc > 3 ? atoi(argv[3]) : 1000;
    long host_us = argc > 4 ? atol(argv[4]) : 0;
    long first_us = argc > 5 ? atol(argv[5]) : 0;
    require_device();
    float h[N];
    for (int i = 0; i < N; i++)
        h[i] = (float)(i % 17) * 0.125f;
    float *x = NULL, *y = NULL;
    cudaStream_t s;
    if (cudaMalloc((void **)&x, sizeof h) != cudaSuccess || cudaMalloc((void **)&y, sizeof h) != cudaSuccess ||
        cudaMemcpy(x, h, sizeof h, cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaMemcpy(y, h, sizeof h, cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) {
        fprintf(stderr, "held_back_loop: setting up failed\n");
        return 1;
    }
    for (int it = 0; it < iters; it++) {
        iteration(s, kernels, x, y, it, style);
        standin_host_work(host_us + (it == 0 ? first_us : 0));
        if (style == STYLE_DRIVER)
            (void)cuStreamSynchronize((CUstream)s);
        else
            (void)cudaStreamSynchronize(s);
    }
    cudaError_t last = cudaGetLastError();
    if (cudaMemcpy(h, y, sizeof h, cudaMemcpyDeviceToHost) != cudaSuccess)
        return 1;
    printf("mode %s kernels %d iters %d last error %s\n", name, kernels, iters,
           cudaGetErrorName(last));
    report_hash("y", h, sizeof h);
    return 0;
}
