/* SPDX-License-Identifier: MIT */
/*
 * mixed_door: a program's runtime launches (cudaLaunchKernel) and a
 * library's driver launches (a cuLaunchKernel obtained with
 * cuGetProcAddress_v2, as cuBLAS, Triton or CuPy obtain theirs; the library's
 * CUfunction from cudaGetFuncBySymbol) interleaved on one created stream:
 * each iteration the runtime's axpy, the driver's scale, the runtime's step
 * counter and the driver's combine, which must run in that order. A
 * cudaStreamSynchronize every 10 iterations and at the end; prints a
 * reduction each time and the buffers' hashes.
 */
#include <cuda.h>

#include "scenario.h"

#define N 4096

typedef CUresult (*launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                              CUstream, void **, void **);

/* The "library": its own cuLaunchKernel and its kernels' handles. */
static launch_fn lib_launch;
static CUfunction lib_scale, lib_combine;

/* Prints a failed driver call. */
static void lib_check(CUresult r, const char *what)
{
    if (r != CUDA_SUCCESS)
        printf("library: %s failed: %d\n", what, (int)r);
}

/* The library's set-up, as libraries do it: the driver entry point by version, kernels by symbol. */
static void lib_init(void)
{
    CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    void *fn = NULL;
    lib_check(cuGetProcAddress_v2("cuLaunchKernel", &fn, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &st),
              "cuGetProcAddress_v2");
    lib_launch = (launch_fn)fn;
    cudaFunction_t f = NULL;
    CK(cudaGetFuncBySymbol(&f, (const void *)k_scale));
    lib_scale = (CUfunction)f;
    CK(cudaGetFuncBySymbol(&f, (const void *)k_combine));
    lib_combine = (CUfunction)f;
}

/* y = y * f, launched by the library through the driver. */
static void lib_scale_on(float *y, float f, int n, cudaStream_t s)
{
    void *a[] = {&y, &f, &n};
    lib_check(lib_launch(lib_scale, (unsigned)(n + 255) / 256, 1, 1, 256, 1, 1, 0, (CUstream)s, a, NULL),
              "cuLaunchKernel");
}

/* z = x * y + x, launched by the library through the driver. */
static void lib_combine_on(const float *x, const float *y, float *z, int n, cudaStream_t s)
{
    void *a[] = {&x, &y, &z, &n};
    lib_check(lib_launch(lib_combine, (unsigned)(n + 255) / 256, 1, 1, 256, 1, 1, 0, (CUstream)s, a, NULL),
              "cuLaunchKernel");
}

int main(void)
{
    scenario_begin("mixed_door");
    lib_init();
    if (lib_launch == NULL)
        return 1;
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float *x = dev_floats(N), *y = dev_floats(N), *z = dev_floats(N), *sum = dev_floats(1);
    float host = 0;
    k_fill_on(x, 1.0f, N, s);
    k_fill_on(y, 0.5f, N, s);
    for (int it = 0; it < 80; it++) {
        k_axpy_on(0.25f + 0.125f * (float)(it % 3), x, y, N, s);
        lib_scale_on(y, 0.8125f, N, s);
        k_add_step_on(x, 0.0625f, it, N, s);
        lib_combine_on(x, y, z, N, s);
        if (it % 10 == 9) {
            k_reduce_sum_on(z, sum, N, s);
            CK(cudaMemcpyAsync(&host, sum, sizeof host, cudaMemcpyDeviceToHost, s));
            CK(cudaStreamSynchronize(s));
            unsigned bits;
            memcpy(&bits, &host, sizeof bits);
            printf("%2d: sum %08x\n", it, bits);
        }
    }
    CK(cudaStreamSynchronize(s));
    show("x", x, N);
    show("y", y, N);
    show("z", z, N);
    return scenario_end();
}
