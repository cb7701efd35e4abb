/* SPDX-License-Identifier: MIT */
/*
 * standin/libcuda_work.c: the driver stand-in's copies, memsets, host
 * functions, events, streams, device and context calls, each the runtime
 * stand-in's own body reached through standin_driver_* (standin_driver.h):
 * the same queues, the same streams and events (CUstream == cudaStream_t,
 * CUevent == cudaEvent_t; CU_STREAM_LEGACY and CU_STREAM_PER_THREAD are the
 * runtime's special handles), errors returned as CUresult.
 *
 * Copies: cuMemcpyHtoD/DtoH/DtoD (and their Async forms) check their sides
 * as cudaMemcpy's HostToDevice/DeviceToHost/DeviceToDevice kinds do (pinned
 * memory counts as device-accessible); cuMemcpy and cuMemcpyAsync infer the
 * direction (unified addressing: cudaMemcpyDefault). The synchronous ones
 * (legacy stream; _ptds: the per-thread stream) follow cudaMemcpy's rules,
 * the asynchronous ones cudaMemcpyAsync's (a pageable source is staged at
 * call time, a pageable destination makes the call wait). Memsets of 8, 16
 * and 32-bit elements: the synchronous ones follow cudaMemset's rule (wait
 * only for a pinned or managed target); the pointer must be aligned to the
 * element (CUDA_ERROR_INVALID_VALUE otherwise: guessed).
 *
 * One device (0) and one context: cuDevicePrimaryCtxRetain, cuCtxGetCurrent
 * and cuStreamGetCtx all give the same non-NULL CUcontext on every thread,
 * whether or not cuInit was called (the runtime stand-in needs no cuInit, so
 * neither does its driver: CUDA_ERROR_NOT_INITIALIZED is never returned).
 * cuDevicePrimaryCtxReset, cuCtxDestroy of that context and the
 * cuDevicePrimaryCtxRelease that releases the last retain destroy it
 * (context.c says what dies); the next call finds it made again, under the
 * same handle. The runtime's own use holds no retain here (simplified: a
 * driver program's last release resets a context the runtime uses too);
 * a release without a retain is CUDA_ERROR_INVALID_CONTEXT (guessed).
 */
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#include "libcuda.h"

/* The one context (its address is the handle). */
static char the_context;
#define CONTEXT ((CUcontext)(void *)&the_context)

/* cuDevicePrimaryCtxRetain's less cuDevicePrimaryCtxRelease's. */
static atomic_uint primary_retains;

/* ------------------------------------------------------------ copies */

/* A 1-D copy with the runtime's rules for its kind (sync: as cudaMemcpy on h). */
static CUresult copy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind, CUstream h, bool ptsz,
                     bool sync)
{
    return cu_result(standin_driver_memcpy(dst, src, n, kind, (cudaStream_t)h, ptsz, sync));
}

#define H2D cudaMemcpyHostToDevice
#define D2H cudaMemcpyDeviceToHost
#define D2D cudaMemcpyDeviceToDevice
#define ANY cudaMemcpyDefault

CUresult CUDAAPI cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount)
{
    return copy(dev_ptr(dstDevice), srcHost, ByteCount, H2D, NULL, false, true);
}

CUresult CUDAAPI cuMemcpyHtoD_v2_ptds(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount)
{
    return copy(dev_ptr(dstDevice), srcHost, ByteCount, H2D, NULL, true, true);
}

CUresult CUDAAPI cuMemcpyDtoH_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount)
{
    return copy(dstHost, dev_ptr(srcDevice), ByteCount, D2H, NULL, false, true);
}

CUresult CUDAAPI cuMemcpyDtoH_v2_ptds(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount)
{
    return copy(dstHost, dev_ptr(srcDevice), ByteCount, D2H, NULL, true, true);
}

CUresult CUDAAPI cuMemcpyDtoD_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount)
{
    return copy(dev_ptr(dstDevice), dev_ptr(srcDevice), ByteCount, D2D, NULL, false, true);
}

CUresult CUDAAPI cuMemcpyDtoD_v2_ptds(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount)
{
    return copy(dev_ptr(dstDevice), dev_ptr(srcDevice), ByteCount, D2D, NULL, true, true);
}

CUresult CUDAAPI cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount)
{
    return copy(dev_ptr(dst), dev_ptr(src), ByteCount, ANY, NULL, false, true);
}

CUresult CUDAAPI cuMemcpy_ptds(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount)
{
    return copy(dev_ptr(dst), dev_ptr(src), ByteCount, ANY, NULL, true, true);
}

CUresult CUDAAPI cuMemcpyHtoDAsync_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount, CUstream hStream)
{
    return copy(dev_ptr(dstDevice), srcHost, ByteCount, H2D, hStream, false, false);
}

CUresult CUDAAPI cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount,
                                           CUstream hStream)
{
    return copy(dev_ptr(dstDevice), srcHost, ByteCount, H2D, hStream, true, false);
}

CUresult CUDAAPI cuMemcpyDtoHAsync_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream)
{
    return copy(dstHost, dev_ptr(srcDevice), ByteCount, D2H, hStream, false, false);
}

CUresult CUDAAPI cuMemcpyDtoHAsync_v2_ptsz(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream)
{
    return copy(dstHost, dev_ptr(srcDevice), ByteCount, D2H, hStream, true, false);
}

CUresult CUDAAPI cuMemcpyDtoDAsync_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount,
                                      CUstream hStream)
{
    return copy(dev_ptr(dstDevice), dev_ptr(srcDevice), ByteCount, D2D, hStream, false, false);
}

CUresult CUDAAPI cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount,
                                           CUstream hStream)
{
    return copy(dev_ptr(dstDevice), dev_ptr(srcDevice), ByteCount, D2D, hStream, true, false);
}

CUresult CUDAAPI cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream)
{
    return copy(dev_ptr(dst), dev_ptr(src), ByteCount, ANY, hStream, false, false);
}

CUresult CUDAAPI cuMemcpyAsync_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream)
{
    return copy(dev_ptr(dst), dev_ptr(src), ByteCount, ANY, hStream, true, false);
}

/*
 * A batch of 1-D copies on hStream, in order, each direction inferred (the
 * attributes are not looked at).  Refused on a capturing stream, as CUDA
 * 13.0 refuses it (the H200, session 10: cudaMemcpyBatchAsync returned
 * cudaErrorStreamCaptureUnsupported, and the capture went on).
 */
static CUresult batch_copy(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count, size_t numAttrs,
                           CUstream hStream, bool ptsz)
{
    if (count == 0 || dsts == NULL || srcs == NULL || sizes == NULL || numAttrs == 0)
        return CUDA_ERROR_INVALID_VALUE;
    enum cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    unsigned long long id = 0;
    if (standin_driver_capture_info((cudaStream_t)hStream, ptsz, &status, &id, NULL, NULL, NULL, NULL) ==
            cudaSuccess &&
        status != cudaStreamCaptureStatusNone)
        return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    for (size_t i = 0; i < count; i++) {
        CUresult r = copy(dev_ptr(dsts[i]), dev_ptr(srcs[i]), sizes[i], ANY, hStream, ptsz, false);
        if (r != CUDA_SUCCESS)
            return r;
    }
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemcpyBatchAsync_v2(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count,
                                       CUmemcpyAttributes *attrs, size_t *attrsIdxs, size_t numAttrs, CUstream hStream)
{
    return batch_copy(dsts, srcs, sizes, count, numAttrs, hStream, false);
}

CUresult CUDAAPI cuMemcpyBatchAsync_v2_ptsz(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count,
                                            CUmemcpyAttributes *attrs, size_t *attrsIdxs, size_t numAttrs,
                                            CUstream hStream)
{
    return batch_copy(dsts, srcs, sizes, count, numAttrs, hStream, true);
}

/* ------------------------------------------------------------ memsets */

/* A memset of elem-byte elements (rows of width elements, pitch bytes apart). */
static CUresult set(CUdeviceptr dst, size_t pitch, unsigned value, unsigned elem, size_t width, size_t height,
                    CUstream h, bool ptsz, bool sync)
{
    return cu_result(standin_driver_memset(dev_ptr(dst), pitch, value, elem, width, height, (cudaStream_t)h, ptsz,
                                           sync));
}

CUresult CUDAAPI cuMemsetD8_v2(CUdeviceptr dstDevice, unsigned char uc, size_t N)
{
    return set(dstDevice, 0, uc, 1, N, 1, NULL, false, true);
}

CUresult CUDAAPI cuMemsetD8_v2_ptds(CUdeviceptr dstDevice, unsigned char uc, size_t N)
{
    return set(dstDevice, 0, uc, 1, N, 1, NULL, true, true);
}

CUresult CUDAAPI cuMemsetD16_v2(CUdeviceptr dstDevice, unsigned short us, size_t N)
{
    return set(dstDevice, 0, us, 2, N, 1, NULL, false, true);
}

CUresult CUDAAPI cuMemsetD16_v2_ptds(CUdeviceptr dstDevice, unsigned short us, size_t N)
{
    return set(dstDevice, 0, us, 2, N, 1, NULL, true, true);
}

CUresult CUDAAPI cuMemsetD32_v2(CUdeviceptr dstDevice, unsigned int ui, size_t N)
{
    return set(dstDevice, 0, ui, 4, N, 1, NULL, false, true);
}

CUresult CUDAAPI cuMemsetD32_v2_ptds(CUdeviceptr dstDevice, unsigned int ui, size_t N)
{
    return set(dstDevice, 0, ui, 4, N, 1, NULL, true, true);
}

CUresult CUDAAPI cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream)
{
    return set(dstDevice, 0, uc, 1, N, 1, hStream, false, false);
}

CUresult CUDAAPI cuMemsetD8Async_ptsz(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream)
{
    return set(dstDevice, 0, uc, 1, N, 1, hStream, true, false);
}

CUresult CUDAAPI cuMemsetD16Async(CUdeviceptr dstDevice, unsigned short us, size_t N, CUstream hStream)
{
    return set(dstDevice, 0, us, 2, N, 1, hStream, false, false);
}

CUresult CUDAAPI cuMemsetD16Async_ptsz(CUdeviceptr dstDevice, unsigned short us, size_t N, CUstream hStream)
{
    return set(dstDevice, 0, us, 2, N, 1, hStream, true, false);
}

CUresult CUDAAPI cuMemsetD32Async(CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream)
{
    return set(dstDevice, 0, ui, 4, N, 1, hStream, false, false);
}

CUresult CUDAAPI cuMemsetD32Async_ptsz(CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream)
{
    return set(dstDevice, 0, ui, 4, N, 1, hStream, true, false);
}

CUresult CUDAAPI cuMemsetD2D8Async(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc, size_t Width,
                                   size_t Height, CUstream hStream)
{
    return set(dstDevice, dstPitch, uc, 1, Width, Height, hStream, false, false);
}

CUresult CUDAAPI cuMemsetD2D8Async_ptsz(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc, size_t Width,
                                        size_t Height, CUstream hStream)
{
    return set(dstDevice, dstPitch, uc, 1, Width, Height, hStream, true, false);
}

CUresult CUDAAPI cuMemsetD2D16Async(CUdeviceptr dstDevice, size_t dstPitch, unsigned short us, size_t Width,
                                    size_t Height, CUstream hStream)
{
    return set(dstDevice, dstPitch, us, 2, Width, Height, hStream, false, false);
}

CUresult CUDAAPI cuMemsetD2D16Async_ptsz(CUdeviceptr dstDevice, size_t dstPitch, unsigned short us, size_t Width,
                                         size_t Height, CUstream hStream)
{
    return set(dstDevice, dstPitch, us, 2, Width, Height, hStream, true, false);
}

CUresult CUDAAPI cuMemsetD2D32Async(CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui, size_t Width,
                                    size_t Height, CUstream hStream)
{
    return set(dstDevice, dstPitch, ui, 4, Width, Height, hStream, false, false);
}

CUresult CUDAAPI cuMemsetD2D32Async_ptsz(CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui, size_t Width,
                                         size_t Height, CUstream hStream)
{
    return set(dstDevice, dstPitch, ui, 4, Width, Height, hStream, true, false);
}

/* ------------------------------------------------------------ host functions, events */

CUresult CUDAAPI cuLaunchHostFunc(CUstream hStream, CUhostFn fn, void *userData)
{
    return cu_result(standin_driver_host_func((cudaStream_t)hStream, fn, userData, false));
}

CUresult CUDAAPI cuLaunchHostFunc_ptsz(CUstream hStream, CUhostFn fn, void *userData)
{
    return cu_result(standin_driver_host_func((cudaStream_t)hStream, fn, userData, true));
}

CUresult CUDAAPI cuEventCreate(CUevent *phEvent, unsigned int Flags)
{
    return cu_result(standin_driver_event_create((cudaEvent_t *)phEvent, Flags));
}

CUresult CUDAAPI cuEventDestroy_v2(CUevent hEvent)
{
    return cu_result(standin_driver_event_destroy((cudaEvent_t)hEvent));
}

CUresult CUDAAPI cuEventRecord(CUevent hEvent, CUstream hStream)
{
    return cu_result(standin_driver_event_record((cudaEvent_t)hEvent, (cudaStream_t)hStream, 0, false));
}

CUresult CUDAAPI cuEventRecord_ptsz(CUevent hEvent, CUstream hStream)
{
    return cu_result(standin_driver_event_record((cudaEvent_t)hEvent, (cudaStream_t)hStream, 0, true));
}

CUresult CUDAAPI cuEventRecordWithFlags(CUevent hEvent, CUstream hStream, unsigned int flags)
{
    return cu_result(standin_driver_event_record((cudaEvent_t)hEvent, (cudaStream_t)hStream, flags, false));
}

CUresult CUDAAPI cuEventRecordWithFlags_ptsz(CUevent hEvent, CUstream hStream, unsigned int flags)
{
    return cu_result(standin_driver_event_record((cudaEvent_t)hEvent, (cudaStream_t)hStream, flags, true));
}

CUresult CUDAAPI cuEventSynchronize(CUevent hEvent)
{
    return cu_result(standin_driver_event_wait((cudaEvent_t)hEvent, false));
}

CUresult CUDAAPI cuEventQuery(CUevent hEvent)
{
    return cu_result(standin_driver_event_wait((cudaEvent_t)hEvent, true));
}

CUresult CUDAAPI cuEventElapsedTime_v2(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
    return cu_result(standin_driver_event_elapsed(pMilliseconds, (cudaEvent_t)hStart, (cudaEvent_t)hEnd));
}

/* ------------------------------------------------------------ streams */

CUresult CUDAAPI cuStreamCreate(CUstream *phStream, unsigned int Flags)
{
    return cu_result(standin_driver_stream_create((cudaStream_t *)phStream, Flags, 0));
}

CUresult CUDAAPI cuStreamCreateWithPriority(CUstream *phStream, unsigned int flags, int priority)
{
    return cu_result(standin_driver_stream_create((cudaStream_t *)phStream, flags, priority));
}

CUresult CUDAAPI cuStreamDestroy_v2(CUstream hStream)
{
    return cu_result(standin_driver_stream_destroy((cudaStream_t)hStream));
}

CUresult CUDAAPI cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags)
{
    return cu_result(standin_driver_stream_wait_event((cudaStream_t)hStream, (cudaEvent_t)hEvent, Flags, false));
}

CUresult CUDAAPI cuStreamWaitEvent_ptsz(CUstream hStream, CUevent hEvent, unsigned int Flags)
{
    return cu_result(standin_driver_stream_wait_event((cudaStream_t)hStream, (cudaEvent_t)hEvent, Flags, true));
}

CUresult CUDAAPI cuStreamQuery(CUstream hStream)
{
    return cu_result(standin_driver_stream_query((cudaStream_t)hStream, false));
}

CUresult CUDAAPI cuStreamQuery_ptsz(CUstream hStream)
{
    return cu_result(standin_driver_stream_query((cudaStream_t)hStream, true));
}

CUresult CUDAAPI cuStreamGetFlags(CUstream hStream, unsigned int *flags)
{
    return flags ? cu_result(standin_driver_stream_facts((cudaStream_t)hStream, false, flags, NULL, NULL))
                 : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuStreamGetFlags_ptsz(CUstream hStream, unsigned int *flags)
{
    return flags ? cu_result(standin_driver_stream_facts((cudaStream_t)hStream, true, flags, NULL, NULL))
                 : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuStreamGetPriority(CUstream hStream, int *priority)
{
    return priority ? cu_result(standin_driver_stream_facts((cudaStream_t)hStream, false, NULL, priority, NULL))
                    : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuStreamGetPriority_ptsz(CUstream hStream, int *priority)
{
    return priority ? cu_result(standin_driver_stream_facts((cudaStream_t)hStream, true, NULL, priority, NULL))
                    : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuStreamGetId(CUstream hStream, unsigned long long *streamId)
{
    return streamId ? cu_result(standin_driver_stream_facts((cudaStream_t)hStream, false, NULL, NULL, streamId))
                    : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuStreamGetId_ptsz(CUstream hStream, unsigned long long *streamId)
{
    return streamId ? cu_result(standin_driver_stream_facts((cudaStream_t)hStream, true, NULL, NULL, streamId))
                    : CUDA_ERROR_INVALID_VALUE;
}

/* The stream's context: the one context (the stream must exist). */
static CUresult stream_ctx(CUstream h, CUcontext *pctx, bool ptsz)
{
    unsigned flags = 0;
    if (pctx == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = cu_result(standin_driver_stream_facts((cudaStream_t)h, ptsz, &flags, NULL, NULL));
    if (r == CUDA_SUCCESS)
        *pctx = CONTEXT;
    return r;
}

CUresult CUDAAPI cuStreamGetCtx(CUstream hStream, CUcontext *pctx)
{
    return stream_ctx(hStream, pctx, false);
}

CUresult CUDAAPI cuStreamGetCtx_ptsz(CUstream hStream, CUcontext *pctx)
{
    return stream_ctx(hStream, pctx, true);
}

/* ------------------------------------------------------------ device, context, versions */

CUresult CUDAAPI cuCtxSynchronize(void)
{
    return cu_result(standin_driver_device_sync());
}

CUresult CUDAAPI cuInit(unsigned int Flags)
{
    return Flags == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuDriverGetVersion(int *driverVersion)
{
    if (driverVersion == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *driverVersion = 13000;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGet(CUdevice *device, int ordinal)
{
    if (device == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (ordinal != 0)
        return CUDA_ERROR_INVALID_DEVICE;
    *device = 0;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetCount(int *count)
{
    if (count == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *count = 1;
    return CUDA_SUCCESS;
}

/* The H200's answers (cudaDeviceProp on CUDA 13.0); other attributes are CUDA_ERROR_INVALID_VALUE here. */
CUresult CUDAAPI cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)
{
    if (pi == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (dev != 0)
        return CUDA_ERROR_INVALID_DEVICE;
    switch (attrib) {
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *pi = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: *pi = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: *pi = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: *pi = 64; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: *pi = 2147483647; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: *pi = 65535; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: *pi = 65535; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: *pi = 49152; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *pi = 232448; break;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *pi = 32; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *pi = 132; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *pi = 9; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *pi = 0; break;
    case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: *pi = 1; break;
    case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY: *pi = 1; break;
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS: *pi = 1; break;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

/* cuCtxGetCurrent: the one context on every thread, cuInit or not (see the top comment). */
CUresult CUDAAPI cuCtxGetCurrent(CUcontext *pctx)
{
    if (pctx == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *pctx = CONTEXT;
    return CUDA_SUCCESS;
}

/* cuCtxSetCurrent: the one context (or NULL, which changes nothing here). */
CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx)
{
    return ctx == NULL || ctx == CONTEXT ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

CUresult CUDAAPI cuCtxGetDevice(CUdevice *device)
{
    if (device == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *device = 0;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
    if (pctx == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (dev != 0)
        return CUDA_ERROR_INVALID_DEVICE;
    atomic_fetch_add(&primary_retains, 1);
    *pctx = CONTEXT;
    return CUDA_SUCCESS;
}

/* cuDevicePrimaryCtxRelease: the last release destroys the context (see the top comment). */
CUresult CUDAAPI cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
    if (dev != 0)
        return CUDA_ERROR_INVALID_DEVICE;
    unsigned held = atomic_load(&primary_retains);
    do {
        if (held == 0)
            return CUDA_ERROR_INVALID_CONTEXT;
    } while (!atomic_compare_exchange_weak(&primary_retains, &held, held - 1));
    return held == 1 ? cu_result(standin_driver_context_reset()) : CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice dev)
{
    return cuDevicePrimaryCtxRelease_v2(dev);
}

/* cuDevicePrimaryCtxGetState: no flags; active from the first call that needs the context until a reset. */
CUresult CUDAAPI cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active)
{
    if (flags == NULL || active == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (dev != 0)
        return CUDA_ERROR_INVALID_DEVICE;
    *flags = 0;
    return cu_result(standin_driver_context_state(active));
}

/* cuDevicePrimaryCtxReset: the context is destroyed, whoever retains it (see the top comment). */
CUresult CUDAAPI cuDevicePrimaryCtxReset_v2(CUdevice dev)
{
    return dev == 0 ? cu_result(standin_driver_context_reset()) : CUDA_ERROR_INVALID_DEVICE;
}

CUresult CUDAAPI cuDevicePrimaryCtxReset(CUdevice dev)
{
    return cuDevicePrimaryCtxReset_v2(dev);
}

/* cuCtxDestroy of the one context: a reset of it (guessed for a primary context); another handle is refused. */
CUresult CUDAAPI cuCtxDestroy_v2(CUcontext ctx)
{
    return ctx == CONTEXT ? cu_result(standin_driver_context_reset()) : CUDA_ERROR_INVALID_CONTEXT;
}

CUresult CUDAAPI cuCtxDestroy(CUcontext ctx)
{
    return cuCtxDestroy_v2(ctx);
}

/* cuMemAllocHost: pinned memory, as cudaMallocHost (not mapped: no device thread). */
CUresult CUDAAPI cuMemAllocHost_v2(void **pp, size_t bytesize)
{
    return cu_result(standin_driver_host_alloc(pp, bytesize, 0));
}

/* ------------------------------------------------------------ error strings */

/* The driver's names of the codes the stand-in returns, and CUDA's strings for them. */
static const struct {
    CUresult code;
    const char *name, *string;
} cu_errors[] = {
#define E(code, string) {code, #code, string}
    E(CUDA_SUCCESS, "no error"),
    E(CUDA_ERROR_INVALID_VALUE, "invalid argument"),
    E(CUDA_ERROR_OUT_OF_MEMORY, "out of memory"),
    E(CUDA_ERROR_NOT_INITIALIZED, "initialization error"),
    E(CUDA_ERROR_DEINITIALIZED, "driver shutting down"),
    E(CUDA_ERROR_NO_DEVICE, "no CUDA-capable device is detected"),
    E(CUDA_ERROR_INVALID_DEVICE, "invalid device ordinal"),
    E(CUDA_ERROR_INVALID_IMAGE, "device kernel image is invalid"),
    E(CUDA_ERROR_INVALID_CONTEXT, "invalid device context"),
    E(CUDA_ERROR_CONTEXT_IS_DESTROYED, "context is destroyed"),
    E(CUDA_ERROR_FILE_NOT_FOUND, "file not found"),
    E(CUDA_ERROR_INVALID_HANDLE, "invalid resource handle"),
    E(CUDA_ERROR_ILLEGAL_STATE, "the operation cannot be performed in the present state"),
    E(CUDA_ERROR_NOT_FOUND, "named symbol not found"),
    E(CUDA_ERROR_NOT_READY, "device not ready"),
    E(CUDA_ERROR_ILLEGAL_ADDRESS, "an illegal memory access was encountered"),
    E(CUDA_ERROR_LAUNCH_FAILED, "unspecified launch failure"),
    E(CUDA_ERROR_NOT_PERMITTED, "operation not permitted"),
    E(CUDA_ERROR_NOT_SUPPORTED, "operation not supported"),
    E(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "operation not permitted when stream is capturing"),
    E(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "operation failed due to a previous error during capture"),
    E(CUDA_ERROR_STREAM_CAPTURE_MERGE, "operation would result in a merge of separate capture sequences"),
    E(CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, "capture was not ended in the same stream as it began"),
    E(CUDA_ERROR_STREAM_CAPTURE_UNJOINED, "capturing stream has unjoined work"),
    E(CUDA_ERROR_STREAM_CAPTURE_ISOLATION, "dependency created on uncaptured work in another stream"),
    E(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, "operation would make the legacy stream depend on a capturing blocking stream"),
    E(CUDA_ERROR_CAPTURED_EVENT, "operation not permitted on an event last recorded in a capturing stream"),
    E(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD, "attempt to terminate a thread-local capture sequence from another thread"),
    E(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, "the graph update was not performed because it included changes which violated constraints specific to instantiated graph update"),
    E(CUDA_ERROR_UNKNOWN, "unknown error"),
#undef E
};

/* The entry of a code, or NULL. */
static int cu_error_index(CUresult e)
{
    for (size_t i = 0; i < sizeof cu_errors / sizeof cu_errors[0]; i++)
        if (cu_errors[i].code == e)
            return (int)i;
    return -1;
}

/* cuGetErrorName: CUDA_ERROR_INVALID_VALUE (and NULL) for a code it does not know. */
CUresult CUDAAPI cuGetErrorName(CUresult error, const char **pStr)
{
    if (pStr == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    int i = cu_error_index(error);
    *pStr = i >= 0 ? cu_errors[i].name : NULL;
    return i >= 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* cuGetErrorString: as cuGetErrorName. */
CUresult CUDAAPI cuGetErrorString(CUresult error, const char **pStr)
{
    if (pStr == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    int i = cu_error_index(error);
    *pStr = i >= 0 ? cu_errors[i].string : NULL;
    return i >= 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
