/* SPDX-License-Identifier: MIT */
/*
 * tests/standin/static_check.c: the "static runtime" stand-in driver
 * (standin/static/libcuda.so.1, the runtime stand-in inside, none of
 * its cuda* names exported) is all a program linked against it sees: no
 * runtime function can be found, and the driver alone launches a kernel
 * twin (found by name through a module) and reads its result.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

#include <cuda.h>

#include "../../kernels/kernels.h"
#include "../check.h"

/* The twin lives in a convenience library: name it so that it is linked in. */
static const void *const anchor[] __attribute__((used)) = {(const void *)k_fill, (const void *)k_axpy};

int main(void)
{
    static const char *runtime_names[] = {"cudaLaunchKernel", "cudaMalloc", "cudaStreamSynchronize",
                                          "cudaGraphLaunch", "cudaEventRecord", "cudaGetErrorName",
                                          "__cudaLaunchKernel", "cudaGetDriverEntryPointByVersion"};
    for (size_t i = 0; i < sizeof runtime_names / sizeof runtime_names[0]; i++)
        CHECK(dlsym(RTLD_DEFAULT, runtime_names[i]) == NULL);
    CHECK(dlsym(RTLD_DEFAULT, "cuLaunchKernel") != NULL);
    CHECK(dlsym(RTLD_DEFAULT, "cuGraphLaunch") != NULL);
    CHECK(dlsym(RTLD_DEFAULT, "standin_register_kernel") != NULL);

    CUmodule m = NULL;
    CUfunction fill = NULL, axpy = NULL;
    CHECK(cuInit(0) == CUDA_SUCCESS);
    CHECK(cuModuleLoadData(&m, "image") == CUDA_SUCCESS);
    CHECK(cuModuleGetFunction(&fill, m, "k_fill") == CUDA_SUCCESS);
    CHECK(cuModuleGetFunction(&axpy, m, "k_axpy") == CUDA_SUCCESS);
    const char *name = NULL;
    CHECK(fill != (CUfunction)(void *)k_fill && cuFuncGetName(&name, fill) == CUDA_SUCCESS && strcmp(name, "k_fill") == 0);
    enum { N = 300 };
    CUdeviceptr x = 0, y = 0;
    CHECK(cuMemAlloc(&x, N * sizeof(float)) == CUDA_SUCCESS);
    CHECK(cuMemAlloc(&y, N * sizeof(float)) == CUDA_SUCCESS);
    float two = 2.0f, three = 3.0f, a = 0.5f;
    int n = N;
    void *fx[] = {&x, &two, &n}, *fy[] = {&y, &three, &n}, *ax[] = {&a, &x, &y, &n};
    CHECK(cuLaunchKernel(fill, 2, 1, 1, 256, 1, 1, 0, NULL, fx, NULL) == CUDA_SUCCESS);
    CHECK(cuLaunchKernel(fill, 2, 1, 1, 256, 1, 1, 0, NULL, fy, NULL) == CUDA_SUCCESS);
    CHECK(cuLaunchKernel(axpy, 2, 1, 1, 256, 1, 1, 0, NULL, ax, NULL) == CUDA_SUCCESS);
    float out[N];
    CHECK(cuMemcpyDtoH(out, y, sizeof out) == CUDA_SUCCESS);
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += out[i] != 4.0f;
    CHECK(bad == 0);
    CHECK(cuMemFree(x) == CUDA_SUCCESS && cuMemFree(y) == CUDA_SUCCESS);
    CHECK(cuModuleUnload(m) == CUDA_SUCCESS);
    return check_result("static_check");
}
