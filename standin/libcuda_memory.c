/* SPDX-License-Identifier: MIT */
/*
 * standin/libcuda_memory.c: the driver stand-in's allocations, each
 * the runtime stand-in's own (standin_driver.h): cuMemAlloc_v2 and
 * cuMemFree_v2 as cudaMalloc and cudaFree (size 0 is
 * CUDA_ERROR_INVALID_VALUE, as cuMemAlloc documents); cuMemAllocAsync and
 * cuMemFreeAsync (and _ptsz) stream-ordered as cudaMallocAsync and
 * cudaFreeAsync, which inside a capture become memory alloc and free nodes;
 * cuMemHostAlloc, cuMemFreeHost and cuMemHostGetDevicePointer_v2 as
 * cudaHostAlloc (CU_MEMHOSTALLOC_* are cudaHostAlloc*'s values: DEVICEMAP
 * is mapped memory and starts the stand-in's device thread), cudaFreeHost
 * and cudaHostGetDevicePointer.
 */
#include "libcuda.h"

/* cuMemAlloc (the 64-bit version every cuda.h since 3.2 names). */
CUresult CUDAAPI cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
    if (dptr == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    void *p = NULL;
    CUresult r = cu_result(standin_driver_malloc(&p, bytesize));
    if (r == CUDA_SUCCESS)
        *dptr = dev_addr(p);
    return r;
}

/* cuMemFree: waits for the device, then frees. */
CUresult CUDAAPI cuMemFree_v2(CUdeviceptr dptr)
{
    return cu_result(standin_driver_free(dev_ptr(dptr)));
}

/* Stream-ordered allocation on a stream (ptsz: NULL is the per-thread stream). */
static CUresult alloc_async(CUdeviceptr *dptr, size_t bytesize, CUstream h, bool ptsz)
{
    if (dptr == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    void *p = NULL;
    CUresult r = cu_result(standin_driver_malloc_async(&p, bytesize, (cudaStream_t)h, ptsz));
    if (r == CUDA_SUCCESS)
        *dptr = dev_addr(p);
    return r;
}

/* cuMemAllocAsync. */
CUresult CUDAAPI cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
    return alloc_async(dptr, bytesize, hStream, false);
}

/* cuMemAllocAsync, per-thread default stream flavour. */
CUresult CUDAAPI cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
    return alloc_async(dptr, bytesize, hStream, true);
}

/* cuMemFreeAsync. */
CUresult CUDAAPI cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream)
{
    return cu_result(standin_driver_free_async(dev_ptr(dptr), (cudaStream_t)hStream, false));
}

/* cuMemFreeAsync, per-thread default stream flavour. */
CUresult CUDAAPI cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream hStream)
{
    return cu_result(standin_driver_free_async(dev_ptr(dptr), (cudaStream_t)hStream, true));
}

/* cuMemHostAlloc: pinned host memory; CU_MEMHOSTALLOC_DEVICEMAP maps it. */
CUresult CUDAAPI cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags)
{
    return cu_result(standin_driver_host_alloc(pp, bytesize, Flags));
}

/* cuMemFreeHost. */
CUresult CUDAAPI cuMemFreeHost(void *p)
{
    return cu_result(standin_driver_free_host(p));
}

/* cuMemHostGetDevicePointer (64-bit version): the device address of pinned host memory. */
CUresult CUDAAPI cuMemHostGetDevicePointer_v2(CUdeviceptr *pdptr, void *p, unsigned int Flags)
{
    if (pdptr == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    void *dev = NULL;
    CUresult r = cu_result(standin_driver_host_device_pointer(&dev, p, Flags));
    if (r == CUDA_SUCCESS)
        *pdptr = dev_addr(dev);
    return r;
}
