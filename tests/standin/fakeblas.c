/* SPDX-License-Identifier: MIT */
/*
 * tests/standin/fakeblas.c: a fake math library that launches its own
 * kernel through the driver API, the way cuBLAS does (fakeblas.h).  Its
 * kernel is a CPU twin registered with the runtime stand-in, like the
 * kernels of kernels/cpu/.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>

#include "../../kernels/cpu/cpu_kernel.h"
#include "fakeblas.h"

/* y[i] = 0.5 * y[i] + x[i], after its primary (fakeblas_gemm_pdl launches it as a programmatic dependent launch) */
void fakeblas_blend_kernel(const float *x, float *y, int n)
{
    CPU_BLOCK_BEGIN;
    standin_grid_dependency_sync();
    FOR_EACH_THREAD {
        int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
        if (i < n)
            y[i] = 0.5f * y[i] + x[i];
    }
}
CPU_KERNEL_3(fakeblas_blend_kernel, const float *, float *, int)

/* y[i] = 0.5 * y[i] + y[i] * 0.25: an epilogue that reads what the main loop wrote, once it has completed */
void fakeblas_epilogue_kernel(float *y, int n)
{
    CPU_BLOCK_BEGIN;
    standin_grid_dependency_sync();
    FOR_EACH_THREAD {
        int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
        if (i < n)
            y[i] = 0.5f * y[i] + y[i] * 0.25f;
    }
}
CPU_KERNEL_2(fakeblas_epilogue_kernel, float *, int)

typedef CUresult (*get_proc_fn)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);
typedef CUresult (*launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                              CUstream, void **, void **);

typedef CUresult (*launch_ex_fn)(const CUlaunchConfig *, CUfunction, void **, void **);

static pthread_once_t once = PTHREAD_ONCE_INIT;
static launch_fn launch_kernel;
static launch_ex_fn launch_kernel_ex;

/* Finds cuLaunchKernel the way cuBLAS does. */
static void find_driver(void)
{
    void *libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (libcuda == NULL)
        return;
    const char *version = getenv("FAKEBLAS_CUDA_VERSION");
#ifndef FAKEBLAS_DRIVER_ONLY /* built for a program without a dynamic runtime: no runtime to ask */
    const char *route = getenv("FAKEBLAS_ROUTE");
    if (route && strcmp(route, "runtime") == 0) {
        enum cudaDriverEntryPointQueryResult found;
        void *fn = NULL;
        if (cudaGetDriverEntryPointByVersion("cuLaunchKernel", &fn, version ? (unsigned)atoi(version) : 13000,
                                             cudaEnableDefault, &found) == cudaSuccess)
            launch_kernel = (launch_fn)fn;
        return;
    }
#endif
    const char *unseen = getenv("FAKEBLAS_UNSEEN");
    get_proc_fn get_proc = (get_proc_fn)dlsym(
        libcuda, unseen && *unseen == '1' ? "standin_private_get_proc_address" : "cuGetProcAddress_v2");
    CUdriverProcAddressQueryResult status;
    void *fn = NULL;
    if (get_proc && get_proc("cuLaunchKernel", &fn, version ? atoi(version) : 13000, CU_GET_PROC_ADDRESS_DEFAULT,
                             &status) == CUDA_SUCCESS)
        launch_kernel = (launch_fn)fn;
    if (get_proc && get_proc("cuLaunchKernelEx", &fn, version ? atoi(version) : 13000, CU_GET_PROC_ADDRESS_DEFAULT,
                             &status) == CUDA_SUCCESS)
        launch_kernel_ex = (launch_ex_fn)fn;
}

/* y[i] = 0.5 * y[i] + x[i] on stream, through the driver; 0 on success, else the CUresult. */
int fakeblas_blend(cudaStream_t stream, const float *x, float *y, int n)
{
    pthread_once(&once, find_driver);
    if (launch_kernel == NULL)
        return CUDA_ERROR_NOT_FOUND;
    void *args[] = {&x, &y, &n};
    return launch_kernel((CUfunction)(void *)fakeblas_blend_kernel, (unsigned)(n + 255) / 256, 1, 1, 256, 1, 1, 0,
                         (CUstream)stream, args, NULL);
}

/* Launches f over n elements on stream as a programmatic dependent launch, through cuLaunchKernelEx. */
static int launch_pdl(CUfunction f, cudaStream_t stream, void **args, int n)
{
    CUlaunchAttribute attr;
    memset(&attr, 0, sizeof attr);
    attr.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attr.value.programmaticStreamSerializationAllowed = 1;
    CUlaunchConfig config = {(unsigned)(n + 255) / 256, 1, 1, 256, 1, 1, 0, (CUstream)stream, &attr, 1};
    return launch_kernel_ex(&config, f, args, NULL);
}

/* The main loop and the epilogue, each a programmatic dependent launch (fakeblas.h). */
int fakeblas_gemm_pdl(cudaStream_t stream, const float *x, float *y, int n)
{
    pthread_once(&once, find_driver);
    if (launch_kernel_ex == NULL)
        return CUDA_ERROR_NOT_FOUND;
    void *main_args[] = {&x, &y, &n}, *epilogue_args[] = {&y, &n};
    int r = launch_pdl((CUfunction)(void *)fakeblas_blend_kernel, stream, main_args, n);
    return r ? r : launch_pdl((CUfunction)(void *)fakeblas_epilogue_kernel, stream, epilogue_args, n);
}
