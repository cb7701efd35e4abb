/* SPDX-License-Identifier: MIT */
/*
 * standin/libcuda.h: internal header of the CPU stand-in for the CUDA
 * driver (libcuda.c, libcuda_capture.c, libcuda_memory.c).
 *
 * cuda.h is included the way NVIDIA builds libcuda, with
 * __CUDA_API_VERSION_INTERNAL: it then declares every exported version
 * (cuStreamGetCaptureInfo with 3 parameters, _v2, _v3, the _ptsz twins, the
 * old cuGetProcAddress) under its own name, so the compiler checks each
 * definition against CUDA 13's prototype.
 */
#ifndef STANDIN_LIBCUDA_H
#define STANDIN_LIBCUDA_H

#define __CUDA_API_VERSION_INTERNAL 1
#include <stdint.h>

#include <cuda.h>

#include "standin_driver.h"
#include "standin_kernel.h"

/* The driver's result for a runtime stand-in error (the codes CUDA shares keep their values). */
static inline CUresult cu_result(cudaError_t e)
{
    switch (e) {
    case cudaSuccess: return CUDA_SUCCESS;
    case cudaErrorInvalidValue: return CUDA_ERROR_INVALID_VALUE;
    case cudaErrorMemoryAllocation: return CUDA_ERROR_OUT_OF_MEMORY;
    case cudaErrorInvalidResourceHandle: return CUDA_ERROR_INVALID_HANDLE;
    case cudaErrorInvalidDeviceFunction: return CUDA_ERROR_INVALID_HANDLE;
    case cudaErrorNotPermitted: return CUDA_ERROR_NOT_PERMITTED;
    case cudaErrorIllegalState: return CUDA_ERROR_ILLEGAL_STATE;
    case cudaErrorIllegalAddress: return CUDA_ERROR_ILLEGAL_ADDRESS;
    case cudaErrorLaunchFailure: return CUDA_ERROR_LAUNCH_FAILED;
    case cudaErrorStreamCaptureUnsupported: return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    case cudaErrorStreamCaptureInvalidated: return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    case cudaErrorStreamCaptureImplicit: return CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
    case cudaErrorCapturedEvent: return CUDA_ERROR_CAPTURED_EVENT;
    case cudaErrorStreamCaptureMerge: return CUDA_ERROR_STREAM_CAPTURE_MERGE;
    case cudaErrorStreamCaptureUnmatched: return CUDA_ERROR_STREAM_CAPTURE_UNMATCHED;
    case cudaErrorStreamCaptureUnjoined: return CUDA_ERROR_STREAM_CAPTURE_UNJOINED;
    case cudaErrorStreamCaptureIsolation: return CUDA_ERROR_STREAM_CAPTURE_ISOLATION;
    case cudaErrorStreamCaptureWrongThread: return CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD;
    case cudaErrorGraphExecUpdateFailure: return CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
    case cudaErrorNotReady: return CUDA_ERROR_NOT_READY;
    case cudaErrorNotSupported: return CUDA_ERROR_NOT_SUPPORTED;
    case cudaErrorSymbolNotFound: return CUDA_ERROR_NOT_FOUND;
    case cudaErrorInvalidDevice: return CUDA_ERROR_INVALID_DEVICE;
    case cudaErrorContextIsDestroyed: return CUDA_ERROR_CONTEXT_IS_DESTROYED;
    /* The driver has no direction or pitch codes: its copies say "invalid argument". */
    case cudaErrorInvalidMemcpyDirection: return CUDA_ERROR_INVALID_VALUE;
    case cudaErrorInvalidPitchValue: return CUDA_ERROR_INVALID_VALUE;
    default: return CUDA_ERROR_UNKNOWN;
    }
}

/* The pointer a CUdeviceptr holds (the stand-in's device memory is host memory). */
static inline void *dev_ptr(CUdeviceptr p)
{
    return (void *)(uintptr_t)p;
}

/* A CUdeviceptr for a pointer. */
static inline CUdeviceptr dev_addr(const void *p)
{
    return (CUdeviceptr)(uintptr_t)p;
}

/* The kernelParams form of a launch's `extra` (CU_LAUNCH_PARAM_BUFFER_POINTER, CU_LAUNCH_PARAM_BUFFER_SIZE,
 * CU_LAUNCH_PARAM_END; the buffer laid out as the kernel's parameters, cuFuncGetParamInfo's offsets): args
 * (STANDIN_MAX_PARAMS entries) point into the buffer. CUDA_ERROR_INVALID_VALUE for another key, a missing
 * pointer or size, or a size below the end of the last parameter (guessed: the real driver's check). */
CUresult drv_extra_args(CUfunction f, void **extra, void **args);

/* The arguments of a launch given kernelParams or extra (not both: CUDA_ERROR_INVALID_VALUE); *out is
 * kernelParams itself, or args filled from extra. */
CUresult drv_launch_args(CUfunction f, void **kernelParams, void **extra, void **args, void ***out);

#endif
