/* SPDX-License-Identifier: MIT */
/*
 * tests/scenarios/driver_scenario.h: helpers of the driver-only scenarios
 * (driver_loop, driver_mixed), programs that use nothing but the driver API,
 * as a program built with nvcc's default static runtime reaches the GPU:
 * cuInit, a module and cuModuleGetFunction for the kernels by name,
 * cuLaunchKernel, cuMemcpy*, cuMemsetD*, events and streams. They print a
 * checksum of every result and every failed call (the driver's error name),
 * so that runs compare byte for byte across seeds and with and without the
 * reprise shim.
 *
 * On the stand-in the module is a dummy (standin/libcuda_module.c)
 * and cuModuleGetFunction finds the CPU twins by name; SCENARIO_MODULE=PATH
 * loads that file instead (a cubin of the kernels/NAME.cu files, for a GPU run).
 */
#ifndef REPRISE_DRIVER_SCENARIO_H
#define REPRISE_DRIVER_SCENARIO_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>

#include "../../kernels/kernels.h"

/* The twins live in a static (convenience) library: a program that never names them would not link them
 * in, and on a GPU the module carries the kernels. This anchors them; the program itself reaches them only
 * by name. */
static const void *const driver_scenario_twins[] __attribute__((used)) = {
    (const void *)k_fill, (const void *)k_axpy, (const void *)k_scale, (const void *)k_add_step,
    (const void *)k_combine, (const void *)k_reduce_sum, (const void *)k_empty};

static unsigned long dscen_calls, dscen_errors;
static CUmodule dscen_module;

/* Counts a call and prints it when it failed. */
static inline CUresult dscen_check(CUresult r, const char *what, int line)
{
    __atomic_fetch_add(&dscen_calls, 1, __ATOMIC_RELAXED);
    if (r != CUDA_SUCCESS) {
        const char *name = NULL;
        __atomic_fetch_add(&dscen_errors, 1, __ATOMIC_RELAXED);
        if (cuGetErrorName(r, &name) != CUDA_SUCCESS)
            name = "(unknown CUresult)";
        printf("error at line %d: %s: %s\n", line, what, name);
    }
    return r;
}

/* Checks one driver call. */
#define CU(call) dscen_check((call), #call, __LINE__)

/* Initialises the driver, makes the primary context current (one retain), loads the module; prints the name. */
static inline void dscen_open(const char *name)
{
    CUdevice dev = 0;
    CUcontext ctx = NULL;
    int count = 0;
    if (cuInit(0) != CUDA_SUCCESS || cuDeviceGetCount(&count) != CUDA_SUCCESS || count < 1) {
        fprintf(stderr, "no CUDA device\n");
        exit(77);
    }
    CU(cuDeviceGet(&dev, 0));
    CU(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU(cuCtxSetCurrent(ctx));
    const char *path = getenv("SCENARIO_MODULE");
    if (path)
        CU(cuModuleLoad(&dscen_module, path));
    else
        CU(cuModuleLoadData(&dscen_module, "stand-in module"));
    printf("scenario %s\n", name);
}

/* dscen_open with stdout line-buffered: a crash loses nothing printed. */
static inline void dscen_begin(const char *name)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    dscen_open(name);
}

/* A kernel of the module by name. */
static inline CUfunction dscen_fn(const char *name)
{
    CUfunction f = NULL;
    CU(cuModuleGetFunction(&f, dscen_module, name));
    return f;
}

/* Prints the call and error counts after a device-wide synchronisation; the exit status of main. */
static inline int dscen_end(void)
{
    CU(cuCtxSynchronize());
    CU(cuModuleUnload(dscen_module));
    printf("calls %lu errors %lu\n", dscen_calls, dscen_errors);
    return dscen_errors ? 1 : 0;
}

/* Device memory for n floats. */
static inline CUdeviceptr dscen_floats(int n)
{
    CUdeviceptr p = 0;
    CU(cuMemAlloc((CUdeviceptr *)&p, (size_t)n * sizeof(float)));
    return p;
}

/* FNV-1a 64-bit hash of n bytes. */
static inline uint64_t dscen_fnv1a(const void *p, size_t n)
{
    const unsigned char *b = (const unsigned char *)p;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 1099511628211ull;
    }
    return h;
}

/* Prints the hash of n floats of device memory (copied back synchronously). */
static inline void dscen_show(const char *name, CUdeviceptr d, int n)
{
    size_t bytes = (size_t)n * sizeof(float);
    void *h = malloc(bytes);
    CUresult r = CU(cuMemcpyDtoH(h, d, bytes));
    printf("%s: h=%016llx\n", name, (unsigned long long)(r == CUDA_SUCCESS ? dscen_fnv1a(h, bytes) : r));
    free(h);
}

/* The bits of a float, for exact printing. */
static inline unsigned dscen_bits(float f)
{
    unsigned u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* Blocks of 256 threads covering n elements. */
static inline unsigned dscen_blocks(int n)
{
    return (unsigned)((n + 255) / 256);
}

/* One launch of 1-D blocks of 256 threads covering n elements (kernelParams form). */
static inline void dscen_launch(CUfunction f, int n, void **args, CUstream s)
{
    CU(cuLaunchKernel(f, dscen_blocks(n), 1, 1, 256, 1, 1, 0, s, args, NULL));
}

#endif
