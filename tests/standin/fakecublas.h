/* SPDX-License-Identifier: MIT */
/*
 * tests/standin/fakecublas.h: a fake level-1 BLAS that behaves as cuBLAS
 * does around stream capture (issue 12): on every call it asks the DRIVER
 * whether its stream is capturing (cuStreamGetCaptureInfo_v3, found with
 * dlopen("libcuda.so.1"), dlsym(h, "cuGetProcAddress_v2") and
 * cuGetProcAddress, as cuBLAS finds it), and
 * - not capturing, uses one workspace it allocated lazily with cuMemAlloc;
 * - capturing, allocates its workspace stream-ordered (cuMemAllocAsync on
 *   the stream), launches, frees it (cuMemFreeAsync), and at the end asks
 *   again: if the capture it saw is no longer active with the same id (it
 *   was ended under the library), the call fails with
 *   FAKECUBLAS_STATUS_INTERNAL_ERROR, as cuBLAS's does.
 * Results stay in device memory (cuBLAS's CUBLAS_POINTER_MODE_DEVICE:
 * scalars are read from, and dot products written to, device memory).
 * Its kernels (CPU twins) tag the workspace with the call they belong to
 * and check the tags they read: a workspace lost or not written counts a
 * fault, which fakecublas_destroy reports.
 *
 * Environment (for tests):
 *   FAKECUBLAS_QUERY     v3 (default), v2, v1 or is_capturing: which
 *                        capture query it asks the driver for
 *                        (cudaVersion 13000, 11030, 10010; cuStreamIsCapturing)
 *   FAKECUBLAS_PER_THREAD=1  asks cuGetProcAddress for the per-thread
 *                        flavours (the _ptsz functions)
 *   FAKECUBLAS_UNSEEN_QUERY=1  gets its capture query through the driver
 *                        stand-in's private entry point, a route no shim
 *                        sees (the negative control: it then sees a
 *                        shim's capture)
 *   FAKECUBLAS_CORRUPT=1 its dot products read a workspace tag they did
 *                        not write (the negative control of the self-check)
 */
#ifndef FAKECUBLAS_H
#define FAKECUBLAS_H

#include <cuda_runtime_api.h>

/* Status codes: cuBLAS's values. */
enum {
    FAKECUBLAS_STATUS_SUCCESS = 0,
    FAKECUBLAS_STATUS_NOT_INITIALIZED = 1,
    FAKECUBLAS_STATUS_ALLOC_FAILED = 3,
    FAKECUBLAS_STATUS_EXECUTION_FAILED = 13,
    FAKECUBLAS_STATUS_INTERNAL_ERROR = 14,
};

/* Finds the driver and allocates the library's fault counter (outside any capture, as cublasCreate). */
int fakecublas_create(void);

/* *result = x . y, result in device memory. */
int fakecublas_sdot(cudaStream_t stream, int n, const float *x, const float *y, float *result);

/* y += *alpha * x, alpha in device memory. */
int fakecublas_saxpy(cudaStream_t stream, int n, const float *alpha, const float *x, float *y);

/* x *= *alpha, alpha in device memory. */
int fakecublas_sscal(cudaStream_t stream, int n, const float *alpha, float *x);

/* How many calls saw their stream capturing and took the capture path. */
unsigned long fakecublas_captured_calls(void);

/* After the program synchronised: *faults gets the faults its kernels found; frees the library's memory. */
int fakecublas_destroy(unsigned *faults);

#endif
