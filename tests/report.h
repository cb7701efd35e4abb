/* SPDX-License-Identifier: MIT */
/*
 * tests/report.h: output helpers shared by the scenario programs and the
 * conformance program. Everything printed is a checksum, a count or an
 * error NAME, so two runs (GPU and stand-in, or two seeds) compare byte for
 * byte with diff.
 */
#ifndef REPRISE_TESTS_REPORT_H
#define REPRISE_TESTS_REPORT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>

/* FNV-1a 64-bit hash of n bytes. */
static inline uint64_t fnv1a(const void *p, size_t n)
{
    const unsigned char *b = (const unsigned char *)p;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 1099511628211ull;
    }
    return h;
}

/* FNV-1a hash of n bytes of device memory (copied back synchronously). */
static inline uint64_t fnv1a_device(const void *dev, size_t n)
{
    void *h = malloc(n ? n : 1);
    cudaError_t e = cudaMemcpy(h, dev, n, cudaMemcpyDeviceToHost);
    uint64_t r = e == cudaSuccess ? fnv1a(h, n) : (uint64_t)e;
    free(h);
    return r;
}

/* Prints "label: ErrorName" for one call's result. */
static inline cudaError_t report(const char *label, cudaError_t e)
{
    printf("%s: %s\n", label, cudaGetErrorName(e));
    return e;
}

/* Prints "label: h=<hash>" for n bytes of host memory. */
static inline void report_hash(const char *label, const void *p, size_t n)
{
    printf("%s: h=%016llx\n", label, (unsigned long long)fnv1a(p, n));
}

/* Prints "label: h=<hash>" for n bytes of device memory. */
static inline void report_device_hash(const char *label, const void *dev, size_t n)
{
    printf("%s: h=%016llx\n", label, (unsigned long long)fnv1a_device(dev, n));
}

/* Exits with 77 (skipped) when no CUDA device is present. */
static inline void require_device(void)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n < 1) {
        fprintf(stderr, "no CUDA device: %s\n", cudaGetErrorName(e));
        exit(77);
    }
}

/* Launches one kernel with a 1-D configuration; returns the launch result. */
static inline cudaError_t launch1d(const void *k, unsigned grid, unsigned block,
                                   void **args, cudaStream_t s)
{
    dim3 g = {grid, 1, 1}, b = {block, 1, 1};
    return cudaLaunchKernel(k, g, b, args, 0, s);
}

#endif
