/*
 * tests/standin/libcuda.c: a CPU stand-in for the CUDA driver
 * (libcuda.so.1), for tests: the driver functions they need, feeding the
 * runtime stand-in's queues (standin_driver.h), so that driver work is
 * ordered against runtime work on the same streams as on a GPU. Here:
 * launches, stream synchronisation and cuGetProcAddress; the capture
 * queries are in libcuda_capture.c, allocations in libcuda_memory.c.
 *
 * A CUfunction is the address of a kernel twin (as cudaKernel_t is in the
 * runtime stand-in); CUstream handles are the runtime's. Every function is
 * exported under its own versioned name (as libcuda exports them), and
 * cuGetProcAddress hands out the version a cudaVersion asks for, honouring
 * the per-thread-default-stream flag (the table below). Asked with
 * cudaVersion >= 99000 for cuLaunchKernel it hands out cuLaunchKernel_v99,
 * a version no shim knows (the tests' "unknown version").
 * standin_private_get_proc_address is the same function under a name the
 * shim does not hook: a route to the driver that it cannot see (the tests'
 * negative control).
 */
#include <string.h>

#include "libcuda.h"

CUresult CUDAAPI cuLaunchKernel_v99(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                    unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                                    unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                                    void **kernelParams, void **extra);
CUresult CUDAAPI standin_private_get_proc_address(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                                                  CUdriverProcAddressQueryResult *symbolStatus);

/* A launch on hStream (ptsz: NULL is the per-thread stream); extra is not supported. */
static CUresult launch(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                       unsigned shmem, CUstream hStream, void **kernelParams, void **extra, bool ptsz)
{
    if (extra != NULL)
        return CUDA_ERROR_INVALID_VALUE;
    dim3 grid = {gx, gy, gz}, block = {bx, by, bz};
    return cu_result(standin_driver_launch((const void *)f, grid, block, kernelParams, shmem, (cudaStream_t)hStream,
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
    return cu_result(standin_driver_stream_sync((cudaStream_t)hStream, false));
}

/* cuStreamSynchronize, per-thread default stream flavour. */
CUresult CUDAAPI cuStreamSynchronize_ptsz(CUstream hStream)
{
    return cu_result(standin_driver_stream_sync((cudaStream_t)hStream, true));
}

/* One version of a driver function that cuGetProcAddress hands out. */
struct proc {
    const char *symbol;     /* the name asked for, without version */
    int since;              /* the first cudaVersion it is handed out for */
    void *plain, *ptsz;     /* the legacy-stream and per-thread-stream flavours */
};

/* Newest version first, for each symbol. */
static const struct proc procs[] = {
    {"cuLaunchKernel", 99000, (void *)cuLaunchKernel_v99, (void *)cuLaunchKernel_v99},
    {"cuLaunchKernel", 0, (void *)cuLaunchKernel, (void *)cuLaunchKernel_ptsz},
    {"cuStreamSynchronize", 0, (void *)cuStreamSynchronize, (void *)cuStreamSynchronize_ptsz},
    {"cuStreamIsCapturing", 0, (void *)cuStreamIsCapturing, (void *)cuStreamIsCapturing_ptsz},
    {"cuStreamGetCaptureInfo", 12030, (void *)cuStreamGetCaptureInfo_v3, (void *)cuStreamGetCaptureInfo_v3_ptsz},
    {"cuStreamGetCaptureInfo", 11030, (void *)cuStreamGetCaptureInfo_v2, (void *)cuStreamGetCaptureInfo_v2_ptsz},
    {"cuStreamGetCaptureInfo", 0, (void *)cuStreamGetCaptureInfo, (void *)cuStreamGetCaptureInfo_ptsz},
    {"cuMemAlloc", 0, (void *)cuMemAlloc_v2, (void *)cuMemAlloc_v2},
    {"cuMemFree", 0, (void *)cuMemFree_v2, (void *)cuMemFree_v2},
    {"cuMemAllocAsync", 0, (void *)cuMemAllocAsync, (void *)cuMemAllocAsync_ptsz},
    {"cuMemFreeAsync", 0, (void *)cuMemFreeAsync, (void *)cuMemFreeAsync_ptsz},
    {"cuMemHostAlloc", 0, (void *)cuMemHostAlloc, (void *)cuMemHostAlloc},
    {"cuMemFreeHost", 0, (void *)cuMemFreeHost, (void *)cuMemFreeHost},
    {"cuMemHostGetDevicePointer", 0, (void *)cuMemHostGetDevicePointer_v2, (void *)cuMemHostGetDevicePointer_v2},
    {"cuGetProcAddress", 12000, (void *)cuGetProcAddress_v2, (void *)cuGetProcAddress_v2},
    {"cuGetProcAddress", 0, (void *)cuGetProcAddress, (void *)cuGetProcAddress},
};

/* The version of symbol that cudaVersion asks for, in the flavour flags ask for; NULL if none. */
static void *proc_find(const char *symbol, int cudaVersion, cuuint64_t flags)
{
    bool per_thread = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
    for (size_t i = 0; i < sizeof procs / sizeof procs[0]; i++)
        if (strcmp(procs[i].symbol, symbol) == 0 && cudaVersion >= procs[i].since)
            return per_thread ? procs[i].ptsz : procs[i].plain;
    return NULL;
}

/* cuGetProcAddress (CUDA 12+). */
CUresult CUDAAPI cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                                     CUdriverProcAddressQueryResult *symbolStatus)
{
    if (symbol == NULL || pfn == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    void *fn = proc_find(symbol, cudaVersion, flags);
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
