/*
 * tests/standin/libcuda.c: a CPU stand-in for the CUDA driver
 * (libcuda.so.1), for tests: the few driver functions they need, feeding
 * the runtime stand-in's queues (standin_driver.h), so that driver work is
 * ordered against runtime work on the same streams as on a GPU.
 *
 * A CUfunction is the address of a kernel twin (as cudaKernel_t is in the
 * runtime stand-in); CUstream handles are the runtime's.  cuGetProcAddress
 * answers for cuLaunchKernel, cuStreamSynchronize and itself, honouring the
 * per-thread-default-stream flag; asked with cudaVersion >= 99000 for
 * cuLaunchKernel it hands out cuLaunchKernel_v99, a version no shim knows
 * (the tests' "unknown version").  standin_private_get_proc_address is the
 * same function under a name the shim does not hook: a route to the driver
 * that it cannot see (the tests' negative control).
 */
#include <string.h>

#include <cuda.h>

#include "standin_driver.h"

#undef cuGetProcAddress

/* The driver's result for a runtime stand-in error. */
static CUresult to_cu(cudaError_t e)
{
    switch (e) {
    case cudaSuccess: return CUDA_SUCCESS;
    case cudaErrorInvalidValue: return CUDA_ERROR_INVALID_VALUE;
    case cudaErrorInvalidResourceHandle: return CUDA_ERROR_INVALID_HANDLE;
    case cudaErrorInvalidDeviceFunction: return CUDA_ERROR_INVALID_HANDLE;
    case cudaErrorNotPermitted: return CUDA_ERROR_NOT_PERMITTED;
    default: return CUDA_ERROR_UNKNOWN;
    }
}

/* A launch on hStream (ptsz: NULL is the per-thread stream); extra is not supported. */
static CUresult launch(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                       unsigned shmem, CUstream hStream, void **kernelParams, void **extra, bool ptsz)
{
    if (extra != NULL)
        return CUDA_ERROR_INVALID_VALUE;
    dim3 grid = {gx, gy, gz}, block = {bx, by, bz};
    return to_cu(standin_driver_launch((const void *)f, grid, block, kernelParams, shmem, (cudaStream_t)hStream,
                                       ptsz));
}

/* cuLaunchKernel. */
CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
                                unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
                                unsigned int sharedMemBytes, CUstream hStream, void **kernelParams, void **extra)
{
    return launch(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream,
                  kernelParams, extra, false);
}

/* cuLaunchKernel, per-thread default stream flavour. */
CUresult CUDAAPI cuLaunchKernel_ptsz(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                     unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                                     unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                                     void **kernelParams, void **extra)
{
    return launch(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream,
                  kernelParams, extra, true);
}

/* A cuLaunchKernel of a future version, which no shim has a wrapper for. */
CUresult CUDAAPI cuLaunchKernel_v99(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                    unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                                    unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                                    void **kernelParams, void **extra)
{
    return launch(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream,
                  kernelParams, extra, false);
}

/* cuStreamSynchronize. */
CUresult CUDAAPI cuStreamSynchronize(CUstream hStream)
{
    return to_cu(standin_driver_stream_sync((cudaStream_t)hStream, false));
}

/* cuStreamSynchronize, per-thread default stream flavour. */
CUresult CUDAAPI cuStreamSynchronize_ptsz(CUstream hStream)
{
    return to_cu(standin_driver_stream_sync((cudaStream_t)hStream, true));
}

CUresult CUDAAPI cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags);
CUresult CUDAAPI standin_private_get_proc_address(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                                                  CUdriverProcAddressQueryResult *symbolStatus);

/* cuGetProcAddress (CUDA 12+). */
CUresult CUDAAPI cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                                     CUdriverProcAddressQueryResult *symbolStatus)
{
    if (symbol == NULL || pfn == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    bool per_thread = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
    void *fn = NULL;
    if (strcmp(symbol, "cuLaunchKernel") == 0)
        fn = cudaVersion >= 99000 ? (void *)cuLaunchKernel_v99
             : per_thread         ? (void *)cuLaunchKernel_ptsz
                                  : (void *)cuLaunchKernel;
    else if (strcmp(symbol, "cuStreamSynchronize") == 0)
        fn = per_thread ? (void *)cuStreamSynchronize_ptsz : (void *)cuStreamSynchronize;
    else if (strcmp(symbol, "cuGetProcAddress") == 0)
        fn = cudaVersion >= 12000 ? (void *)cuGetProcAddress_v2 : (void *)cuGetProcAddress;
    *pfn = fn;
    if (symbolStatus)
        *symbolStatus = fn ? CU_GET_PROC_ADDRESS_SUCCESS : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return fn ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

/* cuGetProcAddress before CUDA 12. */
CUresult CUDAAPI cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags)
{
    return cuGetProcAddress_v2(symbol, pfn, cudaVersion, flags, NULL);
}

/* cuGetProcAddress under a name no shim hooks: a route to the driver it cannot see. */
CUresult CUDAAPI standin_private_get_proc_address(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                                                  CUdriverProcAddressQueryResult *symbolStatus)
{
    return cuGetProcAddress_v2(symbol, pfn, cudaVersion, flags, symbolStatus);
}
