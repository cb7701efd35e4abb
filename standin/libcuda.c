/* SPDX-License-Identifier: MIT */
/*
 * standin/libcuda.c: a CPU stand-in for the CUDA driver
 * (libcuda.so.1), for tests: the driver functions they need, feeding the
 * runtime stand-in's queues (standin_driver.h), so that driver work is
 * ordered against runtime work on the same streams as on a GPU. Here:
 * launches, stream synchronisation and cuGetProcAddress; the capture
 * queries are in libcuda_capture.c, allocations in libcuda_memory.c, copies,
 * memsets, events, streams and the device in libcuda_work.c, kernels,
 * modules and pointers in libcuda_module.c, graphs in libcuda_graph.c.
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

/* The kernelParams form of `extra` (libcuda.h). */
CUresult drv_extra_args(CUfunction f, void **extra, void **args)
{
    void *buf = NULL;
    size_t *size = NULL;
    for (size_t i = 0; extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
        if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
            buf = extra[i + 1];
        else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE)
            size = (size_t *)extra[i + 1];
        else
            return CUDA_ERROR_INVALID_VALUE;
    }
    unsigned n = 0;
    size_t end = 0;
    for (; n < STANDIN_MAX_PARAMS; n++) {
        size_t off = 0, sz = 0;
        cudaError_t e = standin_driver_param_info((const void *)f, n, &off, &sz);
        if (e == cudaErrorInvalidValue)
            break;
        if (e != cudaSuccess)
            return cu_result(e);
        args[n] = buf ? (char *)buf + off : NULL;
        end = off + sz;
    }
    if (n > 0 && (buf == NULL || size == NULL || *size < end))
        return CUDA_ERROR_INVALID_VALUE;
    return CUDA_SUCCESS;
}

/* A launch's arguments from kernelParams or extra (libcuda.h). */
CUresult drv_launch_args(CUfunction f, void **kernelParams, void **extra, void **args, void ***out)
{
    *out = kernelParams;
    if (extra == NULL)
        return CUDA_SUCCESS;
    if (kernelParams != NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = drv_extra_args(f, extra, args);
    *out = args;
    return r;
}

/* A launch on hStream (ptsz: NULL is the per-thread stream), arguments as kernelParams or extra, at *priority
 * (NULL: the stream's); programmatic: a programmatic dependent launch. */
static CUresult launch(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                       unsigned shmem, CUstream hStream, void **kernelParams, void **extra, bool ptsz,
                       const int *priority, bool programmatic)
{
    void *args[STANDIN_MAX_PARAMS], **argv = NULL;
    dim3 grid = {gx, gy, gz}, block = {bx, by, bz};
    CUresult r = drv_launch_args(f, kernelParams, extra, args, &argv);
    if (r != CUDA_SUCCESS)
        return r;
    return cu_result(standin_driver_launch((const void *)f, grid, block, argv, shmem, (cudaStream_t)hStream,
                                           ptsz, priority, programmatic));
}

/* Whether the stand-in models launch attribute id: the others are CUDA_ERROR_INVALID_VALUE. */
static bool launch_attr_modelled(CUlaunchAttributeID id)
{
    switch (id) {
    case CU_LAUNCH_ATTRIBUTE_PRIORITY:          /* the launch's priority (STANDIN_PRIORITY_LOG says it) */
    case CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION: /* accepted and ignored: no clusters */
    case CU_LAUNCH_ATTRIBUTE_COOPERATIVE:       /* every block runs on one thread anyway: grid sync holds */
    /* A programmatic dependent launch: it may start before the stream's previous kernel, its grid-dependency
       wait returns once that kernel has completed (scheduler.c). */
    case CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION:
        return true;
    default:
        return false;
    }
}

/* cuLaunchKernelEx: the attributes launch_attr_modelled accepts, any other is CUDA_ERROR_INVALID_VALUE. */
static CUresult launch_ex(const CUlaunchConfig *c, CUfunction f, void **kernelParams, void **extra, bool ptsz)
{
    if (c == NULL || (c->numAttrs > 0 && c->attrs == NULL))
        return CUDA_ERROR_INVALID_VALUE;
    const int *priority = NULL;
    bool programmatic = false;
    for (unsigned i = 0; i < c->numAttrs; i++) {
        if (!launch_attr_modelled(c->attrs[i].id))
            return CUDA_ERROR_INVALID_VALUE;
        if (c->attrs[i].id == CU_LAUNCH_ATTRIBUTE_PRIORITY)
            priority = &c->attrs[i].value.priority;
        programmatic |= c->attrs[i].id == CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION &&
                        c->attrs[i].value.programmaticStreamSerializationAllowed != 0;
    }
    return launch(f, c->gridDimX, c->gridDimY, c->gridDimZ, c->blockDimX, c->blockDimY, c->blockDimZ,
                  c->sharedMemBytes, c->hStream, kernelParams, extra, ptsz, priority, programmatic);
}

/* cuLaunchKernelEx. */
CUresult CUDAAPI cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f, void **kernelParams, void **extra)
{
    return launch_ex(config, f, kernelParams, extra, false);
}

/* cuLaunchKernelEx, per-thread default stream flavour. */
CUresult CUDAAPI cuLaunchKernelEx_ptsz(const CUlaunchConfig *config, CUfunction f, void **kernelParams,
                                       void **extra)
{
    return launch_ex(config, f, kernelParams, extra, true);
}

/* cuLaunchKernel. */
CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
                                unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
                                unsigned int sharedMemBytes, CUstream hStream, void **kernelParams, void **extra)
{
    return launch(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream,
                  kernelParams, extra, false, NULL, false);
}

/* cuLaunchKernel, per-thread default stream flavour. */
CUresult CUDAAPI cuLaunchKernel_ptsz(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                     unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                                     unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                                     void **kernelParams, void **extra)
{
    return launch(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream,
                  kernelParams, extra, true, NULL, false);
}

/* A cuLaunchKernel of a future version, which no shim has a wrapper for. */
CUresult CUDAAPI cuLaunchKernel_v99(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                    unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                                    unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                                    void **kernelParams, void **extra)
{
    return launch(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream,
                  kernelParams, extra, false, NULL, false);
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
    {"cuLaunchKernelEx", 0, (void *)cuLaunchKernelEx, (void *)cuLaunchKernelEx_ptsz},
    {"cuMemcpyHtoDAsync", 0, (void *)cuMemcpyHtoDAsync_v2, (void *)cuMemcpyHtoDAsync_v2_ptsz},
    {"cuMemcpyHtoD", 0, (void *)cuMemcpyHtoD_v2, (void *)cuMemcpyHtoD_v2_ptds},
    {"cuMemcpyDtoHAsync", 0, (void *)cuMemcpyDtoHAsync_v2, (void *)cuMemcpyDtoHAsync_v2_ptsz},
    {"cuMemcpyDtoH", 0, (void *)cuMemcpyDtoH_v2, (void *)cuMemcpyDtoH_v2_ptds},
    {"cuMemcpyDtoDAsync", 0, (void *)cuMemcpyDtoDAsync_v2, (void *)cuMemcpyDtoDAsync_v2_ptsz},
    {"cuMemcpyDtoD", 0, (void *)cuMemcpyDtoD_v2, (void *)cuMemcpyDtoD_v2_ptds},
    {"cuMemcpyAsync", 0, (void *)cuMemcpyAsync, (void *)cuMemcpyAsync_ptsz},
    {"cuMemcpy", 0, (void *)cuMemcpy, (void *)cuMemcpy_ptds},
    {"cuMemsetD8Async", 0, (void *)cuMemsetD8Async, (void *)cuMemsetD8Async_ptsz},
    {"cuMemsetD8", 0, (void *)cuMemsetD8_v2, (void *)cuMemsetD8_v2_ptds},
    {"cuMemsetD2D8Async", 0, (void *)cuMemsetD2D8Async, (void *)cuMemsetD2D8Async_ptsz},
    {"cuMemsetD16Async", 0, (void *)cuMemsetD16Async, (void *)cuMemsetD16Async_ptsz},
    {"cuMemsetD16", 0, (void *)cuMemsetD16_v2, (void *)cuMemsetD16_v2_ptds},
    {"cuMemsetD2D16Async", 0, (void *)cuMemsetD2D16Async, (void *)cuMemsetD2D16Async_ptsz},
    {"cuMemsetD32Async", 0, (void *)cuMemsetD32Async, (void *)cuMemsetD32Async_ptsz},
    {"cuMemsetD32", 0, (void *)cuMemsetD32_v2, (void *)cuMemsetD32_v2_ptds},
    {"cuMemsetD2D32Async", 0, (void *)cuMemsetD2D32Async, (void *)cuMemsetD2D32Async_ptsz},
    {"cuLaunchHostFunc", 0, (void *)cuLaunchHostFunc, (void *)cuLaunchHostFunc_ptsz},
    {"cuEventRecord", 0, (void *)cuEventRecord, (void *)cuEventRecord_ptsz},
    {"cuEventRecordWithFlags", 0, (void *)cuEventRecordWithFlags, (void *)cuEventRecordWithFlags_ptsz},
    {"cuStreamWaitEvent", 0, (void *)cuStreamWaitEvent, (void *)cuStreamWaitEvent_ptsz},
    {"cuEventSynchronize", 0, (void *)cuEventSynchronize, (void *)cuEventSynchronize},
    {"cuEventQuery", 0, (void *)cuEventQuery, (void *)cuEventQuery},
    {"cuEventElapsedTime", 12080, (void *)cuEventElapsedTime_v2, (void *)cuEventElapsedTime_v2},
    {"cuStreamQuery", 0, (void *)cuStreamQuery, (void *)cuStreamQuery_ptsz},
    {"cuCtxSynchronize", 0, (void *)cuCtxSynchronize, (void *)cuCtxSynchronize},
    {"cuStreamCreate", 0, (void *)cuStreamCreate, (void *)cuStreamCreate},
    {"cuStreamCreateWithPriority", 0, (void *)cuStreamCreateWithPriority, (void *)cuStreamCreateWithPriority},
    {"cuStreamDestroy", 0, (void *)cuStreamDestroy_v2, (void *)cuStreamDestroy_v2},
    {"cuStreamGetFlags", 0, (void *)cuStreamGetFlags, (void *)cuStreamGetFlags_ptsz},
    {"cuStreamGetPriority", 0, (void *)cuStreamGetPriority, (void *)cuStreamGetPriority_ptsz},
    {"cuStreamGetId", 0, (void *)cuStreamGetId, (void *)cuStreamGetId_ptsz},
    {"cuStreamGetCtx", 0, (void *)cuStreamGetCtx, (void *)cuStreamGetCtx_ptsz},
    {"cuEventCreate", 0, (void *)cuEventCreate, (void *)cuEventCreate},
    {"cuEventDestroy", 0, (void *)cuEventDestroy_v2, (void *)cuEventDestroy_v2},
    {"cuMemAllocHost", 0, (void *)cuMemAllocHost_v2, (void *)cuMemAllocHost_v2},
    {"cuInit", 0, (void *)cuInit, (void *)cuInit},
    {"cuDriverGetVersion", 0, (void *)cuDriverGetVersion, (void *)cuDriverGetVersion},
    {"cuDeviceGet", 0, (void *)cuDeviceGet, (void *)cuDeviceGet},
    {"cuDeviceGetCount", 0, (void *)cuDeviceGetCount, (void *)cuDeviceGetCount},
    {"cuDeviceGetAttribute", 0, (void *)cuDeviceGetAttribute, (void *)cuDeviceGetAttribute},
    {"cuCtxGetCurrent", 0, (void *)cuCtxGetCurrent, (void *)cuCtxGetCurrent},
    {"cuCtxSetCurrent", 0, (void *)cuCtxSetCurrent, (void *)cuCtxSetCurrent},
    {"cuCtxGetDevice", 0, (void *)cuCtxGetDevice, (void *)cuCtxGetDevice},
    {"cuDevicePrimaryCtxRetain", 0, (void *)cuDevicePrimaryCtxRetain, (void *)cuDevicePrimaryCtxRetain},
    {"cuDevicePrimaryCtxRelease", 11000, (void *)cuDevicePrimaryCtxRelease_v2, (void *)cuDevicePrimaryCtxRelease_v2},
    {"cuDevicePrimaryCtxRelease", 0, (void *)cuDevicePrimaryCtxRelease, (void *)cuDevicePrimaryCtxRelease},
    {"cuDevicePrimaryCtxReset", 11000, (void *)cuDevicePrimaryCtxReset_v2, (void *)cuDevicePrimaryCtxReset_v2},
    {"cuDevicePrimaryCtxReset", 0, (void *)cuDevicePrimaryCtxReset, (void *)cuDevicePrimaryCtxReset},
    {"cuDevicePrimaryCtxGetState", 0, (void *)cuDevicePrimaryCtxGetState, (void *)cuDevicePrimaryCtxGetState},
    {"cuCtxDestroy", 4000, (void *)cuCtxDestroy_v2, (void *)cuCtxDestroy_v2},
    {"cuCtxDestroy", 0, (void *)cuCtxDestroy, (void *)cuCtxDestroy},
    {"cuGetErrorName", 0, (void *)cuGetErrorName, (void *)cuGetErrorName},
    {"cuGetErrorString", 0, (void *)cuGetErrorString, (void *)cuGetErrorString},
    {"cuFuncGetParamInfo", 0, (void *)cuFuncGetParamInfo, (void *)cuFuncGetParamInfo},
    {"cuKernelGetFunction", 0, (void *)cuKernelGetFunction, (void *)cuKernelGetFunction},
    {"cuKernelGetParamInfo", 0, (void *)cuKernelGetParamInfo, (void *)cuKernelGetParamInfo},
    {"cuFuncGetName", 0, (void *)cuFuncGetName, (void *)cuFuncGetName},
    {"cuFuncGetAttribute", 0, (void *)cuFuncGetAttribute, (void *)cuFuncGetAttribute},
    {"cuModuleLoad", 0, (void *)cuModuleLoad, (void *)cuModuleLoad},
    {"cuModuleLoadData", 0, (void *)cuModuleLoadData, (void *)cuModuleLoadData},
    {"cuModuleGetFunction", 0, (void *)cuModuleGetFunction, (void *)cuModuleGetFunction},
    {"cuModuleUnload", 0, (void *)cuModuleUnload, (void *)cuModuleUnload},
    {"cuFuncGetModule", 0, (void *)cuFuncGetModule, (void *)cuFuncGetModule},
    {"cuLibraryLoadData", 0, (void *)cuLibraryLoadData, (void *)cuLibraryLoadData},
    {"cuLibraryLoadFromFile", 0, (void *)cuLibraryLoadFromFile, (void *)cuLibraryLoadFromFile},
    {"cuLibraryUnload", 0, (void *)cuLibraryUnload, (void *)cuLibraryUnload},
    {"cuLibraryGetKernel", 0, (void *)cuLibraryGetKernel, (void *)cuLibraryGetKernel},
    {"cuLibraryGetModule", 0, (void *)cuLibraryGetModule, (void *)cuLibraryGetModule},
    {"cuKernelGetLibrary", 0, (void *)cuKernelGetLibrary, (void *)cuKernelGetLibrary},
    {"cuPointerGetAttribute", 0, (void *)cuPointerGetAttribute, (void *)cuPointerGetAttribute},
    {"cuPointerGetAttributes", 0, (void *)cuPointerGetAttributes, (void *)cuPointerGetAttributes},
    {"cuStreamBeginCapture", 10010, (void *)cuStreamBeginCapture_v2, (void *)cuStreamBeginCapture_v2_ptsz},
    {"cuStreamEndCapture", 0, (void *)cuStreamEndCapture, (void *)cuStreamEndCapture_ptsz},
    {"cuGraphExecUpdate", 12000, (void *)cuGraphExecUpdate_v2, (void *)cuGraphExecUpdate_v2},
    {"cuGraphCreate", 0, (void *)cuGraphCreate, (void *)cuGraphCreate},
    {"cuGraphDestroy", 0, (void *)cuGraphDestroy, (void *)cuGraphDestroy},
    {"cuGraphAddKernelNode", 0, (void *)cuGraphAddKernelNode_v2, (void *)cuGraphAddKernelNode_v2},
    {"cuGraphAddMemcpyNode", 0, (void *)cuGraphAddMemcpyNode, (void *)cuGraphAddMemcpyNode},
    {"cuGraphAddMemsetNode", 0, (void *)cuGraphAddMemsetNode, (void *)cuGraphAddMemsetNode},
    {"cuGraphAddHostNode", 0, (void *)cuGraphAddHostNode, (void *)cuGraphAddHostNode},
    {"cuGraphAddEventRecordNode", 0, (void *)cuGraphAddEventRecordNode, (void *)cuGraphAddEventRecordNode},
    {"cuGraphAddEventWaitNode", 0, (void *)cuGraphAddEventWaitNode, (void *)cuGraphAddEventWaitNode},
    {"cuGraphAddEmptyNode", 0, (void *)cuGraphAddEmptyNode, (void *)cuGraphAddEmptyNode},
    {"cuGraphInstantiateWithFlags", 0, (void *)cuGraphInstantiateWithFlags, (void *)cuGraphInstantiateWithFlags},
    {"cuGraphExecDestroy", 0, (void *)cuGraphExecDestroy, (void *)cuGraphExecDestroy},
    {"cuGraphInstantiate", 0, (void *)cuGraphInstantiateWithFlags, (void *)cuGraphInstantiateWithFlags},
    {"cuGraphLaunch", 0, (void *)cuGraphLaunch, (void *)cuGraphLaunch_ptsz},
    {"cuGraphExecKernelNodeSetParams", 0, (void *)cuGraphExecKernelNodeSetParams_v2, (void *)cuGraphExecKernelNodeSetParams_v2},
    {"cuGraphExecMemcpyNodeSetParams", 0, (void *)cuGraphExecMemcpyNodeSetParams, (void *)cuGraphExecMemcpyNodeSetParams},
    {"cuGraphExecMemsetNodeSetParams", 0, (void *)cuGraphExecMemsetNodeSetParams, (void *)cuGraphExecMemsetNodeSetParams},
    {"cuGraphExecHostNodeSetParams", 0, (void *)cuGraphExecHostNodeSetParams, (void *)cuGraphExecHostNodeSetParams},
    {"cuGraphExecEventRecordNodeSetEvent", 0, (void *)cuGraphExecEventRecordNodeSetEvent, (void *)cuGraphExecEventRecordNodeSetEvent},
    {"cuGraphExecEventWaitNodeSetEvent", 0, (void *)cuGraphExecEventWaitNodeSetEvent, (void *)cuGraphExecEventWaitNodeSetEvent},
    {"cuGraphKernelNodeSetAttribute", 0, (void *)cuGraphKernelNodeSetAttribute, (void *)cuGraphKernelNodeSetAttribute},
    {"cuGraphKernelNodeGetAttribute", 0, (void *)cuGraphKernelNodeGetAttribute, (void *)cuGraphKernelNodeGetAttribute},
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
