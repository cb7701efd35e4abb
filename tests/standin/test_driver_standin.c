/* SPDX-License-Identifier: MIT */
/*
 * tests/standin/test_driver_standin.c: the driver stand-in
 * (standin/libcuda*.c) answers as the runtime stand-in does: every
 * capture query (cuStreamIsCapturing, cuStreamGetCaptureInfo in its three
 * versions, the _ptsz twins) gives the runtime's status and id;
 * cuMemAllocAsync / cuMemFreeAsync become memory alloc and free nodes in a
 * capture and allocate device memory outside one; cuMemAlloc refuses size
 * 0; cuMemHostAlloc's mapped memory has its own address as device address;
 * cuGetProcAddress hands out the version a cudaVersion asks for.
 * Captures begun and ended through the driver (cuStreamBeginCapture_v2,
 * cuStreamEndCapture, as the shim's robust path makes them) keep their mode
 * and give the runtime's graph, and cuGraphExecUpdate_v2 fills its result
 * info as cudaGraphExecUpdate does.
 *
 * The driver front door: a graph built through the driver (kernel, memcpy,
 * memset, host, event record nodes) gives what the same calls made eagerly
 * give, launched through the driver or the runtime; exec SetParams changes
 * the next launch; the `extra` form equals the kernelParams form; memsets of
 * 8, 16 and 32-bit elements; pointer attributes; module lookup by name;
 * a driver launch after a runtime launch on one stream runs after it.
 *
 * Lifetimes: a module's functions and a library's kernels and functions are
 * handles of their own (cuFuncGetModule, cuKernelGetLibrary), dead once
 * unloaded; a context reset (cuDevicePrimaryCtxReset, cuCtxDestroy, the last
 * release, cudaDeviceReset) kills the streams, events, graphs and modules
 * made before and the context comes back; what the real driver crashes in
 * aborts (each such case run as a process of its own: `test_driver_standin
 * CASE`); with STANDIN_REUSE_HANDLES=1 dead handles are handed out again.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "../../kernels/kernels.h"
#include "../check.h"

CUresult CUDAAPI cuStreamIsCapturing_ptsz(CUstream hStream, CUstreamCaptureStatus *captureStatus);
CUresult CUDAAPI cuStreamGetCaptureInfo_ptsz(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
                                             cuuint64_t *id_out);
CUresult CUDAAPI cuStreamGetCaptureInfo_v2(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
                                           cuuint64_t *id_out, CUgraph *graph_out,
                                           const CUgraphNode **dependencies_out, size_t *numDependencies_out);
CUresult CUDAAPI cuStreamGetCaptureInfo_v3_ptsz(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
                                                cuuint64_t *id_out, CUgraph *graph_out,
                                                const CUgraphNode **dependencies_out,
                                                const CUgraphEdgeData **edgeData_out, size_t *numDependencies_out);
CUresult CUDAAPI cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUstream hStream);
CUresult CUDAAPI cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream hStream);
CUresult CUDAAPI cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount,
                                           CUstream hStream);
CUresult CUDAAPI cuMemsetD8_v2_ptds(CUdeviceptr dstDevice, unsigned char uc, size_t N);
CUresult CUDAAPI cuGraphLaunch_ptsz(CUgraphExec hGraphExec, CUstream hStream);
CUresult CUDAAPI cuLaunchKernel_ptsz(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                     unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                                     unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                                     void **kernelParams, void **extra);
CUresult CUDAAPI cuStreamBeginCapture_v2_ptsz(CUstream hStream, CUstreamCaptureMode mode);
CUresult CUDAAPI cuStreamEndCapture_ptsz(CUstream hStream, CUgraph *phGraph);
#undef cuStreamGetCaptureInfo
CUresult CUDAAPI cuStreamGetCaptureInfo(CUstream hStream, CUstreamCaptureStatus *captureStatus_out, cuuint64_t *id_out);

/* Every driver query agrees with the runtime's on s: status st (and, while active, id and graph). */
static void check_queries(cudaStream_t s, CUstreamCaptureStatus st, unsigned long long id, cudaGraph_t graph)
{
    CUstream h = (CUstream)s;
    CUstreamCaptureStatus got[6];
    cuuint64_t ids[5] = {0, 0, 0, 0, 0};
    CUgraph g2 = NULL, g3 = NULL;
    CHECK(cuStreamIsCapturing(h, &got[0]) == CUDA_SUCCESS);
    CHECK(cuStreamIsCapturing_ptsz(h, &got[1]) == CUDA_SUCCESS);
    CHECK(cuStreamGetCaptureInfo(h, &got[2], &ids[0]) == CUDA_SUCCESS);
    CHECK(cuStreamGetCaptureInfo_ptsz(h, &got[3], &ids[1]) == CUDA_SUCCESS);
    CHECK(cuStreamGetCaptureInfo_v2(h, &got[4], &ids[2], &g2, NULL, NULL) == CUDA_SUCCESS);
    CHECK(cuStreamGetCaptureInfo_v3_ptsz(h, &got[5], &ids[3], &g3, NULL, NULL, NULL) == CUDA_SUCCESS);
    for (int i = 0; i < 6; i++)
        CHECK(got[i] == st);
    if (st != CU_STREAM_CAPTURE_STATUS_ACTIVE)
        return;
    for (int i = 0; i < 4; i++)
        CHECK(ids[i] == id);
    CHECK(g2 == (CUgraph)graph && g3 == (CUgraph)graph);
}

/* Capture queries and stream-ordered allocations inside and outside a capture. */
static void test_capture(void)
{
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    check_queries(s, CU_STREAM_CAPTURE_STATUS_NONE, 0, NULL);
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed) == cudaSuccess);
    enum cudaStreamCaptureStatus st;
    unsigned long long id = 0;
    cudaGraph_t graph = NULL;
    CHECK(cudaStreamGetCaptureInfo(s, &st, &id, &graph, NULL, NULL, NULL) == cudaSuccess);
    CHECK(st == cudaStreamCaptureStatusActive && id != 0);
    check_queries(s, CU_STREAM_CAPTURE_STATUS_ACTIVE, id, graph);
    CUdeviceptr p = 0;
    CHECK(cuMemAllocAsync(&p, 256, (CUstream)s) == CUDA_SUCCESS && p != 0);
    CHECK(cuMemFreeAsync(p, (CUstream)s) == CUDA_SUCCESS);
    CHECK(cudaStreamEndCapture(s, &graph) == cudaSuccess);
    check_queries(s, CU_STREAM_CAPTURE_STATUS_NONE, 0, NULL);
    cudaGraphNode_t nodes[2];
    size_t n = 2;
    enum cudaGraphNodeType t0 = cudaGraphNodeTypeCount, t1 = cudaGraphNodeTypeCount;
    CHECK(cudaGraphGetNodes(graph, nodes, &n) == cudaSuccess && n == 2);
    cudaGraphNodeGetType(nodes[0], &t0);
    cudaGraphNodeGetType(nodes[1], &t1);
    CHECK(t0 == cudaGraphNodeTypeMemAlloc && t1 == cudaGraphNodeTypeMemFree);
    cudaGraphDestroy(graph);

    /* Outside capture: device memory at once, freed in stream order. */
    CHECK(cuMemAllocAsync_ptsz(&p, 256, (CUstream)s) == CUDA_SUCCESS);
    struct cudaPointerAttributes a;
    CHECK(cudaPointerGetAttributes(&a, (void *)(uintptr_t)p) == cudaSuccess && a.type == cudaMemoryTypeDevice);
    CHECK(cuMemFreeAsync_ptsz(p, (CUstream)s) == CUDA_SUCCESS);
    CHECK(cudaStreamSynchronize(s) == cudaSuccess);
    CHECK(cudaPointerGetAttributes(&a, (void *)(uintptr_t)p) == cudaSuccess && a.type == cudaMemoryTypeUnregistered);
    cudaStreamDestroy(s);
}

/* cuMemAlloc, cuMemFree, cuMemHostAlloc and its device pointer. */
static void test_memory(void)
{
    CUdeviceptr p = 0;
    CHECK(cuMemAlloc(&p, 0) == CUDA_ERROR_INVALID_VALUE);
    CHECK(cuMemAlloc(&p, 64) == CUDA_SUCCESS && p != 0);
    CHECK(cuMemFree(p) == CUDA_SUCCESS);
    CHECK(cuMemFree(p) == CUDA_ERROR_INVALID_VALUE);
    CHECK(cudaGetLastError() == cudaSuccess); /* driver errors are not the runtime's */
    void *h = NULL;
    CHECK(cuMemHostAlloc(&h, 64, CU_MEMHOSTALLOC_DEVICEMAP) == CUDA_SUCCESS);
    CHECK(cuMemHostGetDevicePointer(&p, h, 0) == CUDA_SUCCESS && (void *)(uintptr_t)p == h);
    CHECK(cuMemFreeHost(h) == CUDA_SUCCESS);
}

typedef CUresult (*get_proc_fn)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);

/* What cuGetProcAddress hands out for symbol, version and flags. */
static void *proc(const char *symbol, int version, cuuint64_t flags)
{
    void *fn = NULL;
    CUdriverProcAddressQueryResult status;
    return cuGetProcAddress_v2(symbol, &fn, version, flags, &status) == CUDA_SUCCESS ? fn : NULL;
}

/* The version each cudaVersion asks for, in each flavour. */
static void test_get_proc_address(void)
{
    const cuuint64_t pt = CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
    CHECK(proc("cuStreamGetCaptureInfo", 13000, 0) == (void *)cuStreamGetCaptureInfo_v3);
    CHECK(proc("cuStreamGetCaptureInfo", 13000, pt) == (void *)cuStreamGetCaptureInfo_v3_ptsz);
    CHECK(proc("cuStreamGetCaptureInfo", 11030, 0) == (void *)cuStreamGetCaptureInfo_v2);
    CHECK(proc("cuStreamGetCaptureInfo", 10010, pt) == (void *)cuStreamGetCaptureInfo_ptsz);
    CHECK(proc("cuStreamIsCapturing", 13000, pt) == (void *)cuStreamIsCapturing_ptsz);
    CHECK(proc("cuMemAlloc", 13000, 0) == (void *)cuMemAlloc_v2);
    CHECK(proc("cuMemAllocAsync", 13000, pt) == (void *)cuMemAllocAsync_ptsz);
    CHECK(proc("cuMemHostGetDevicePointer", 13000, 0) == (void *)cuMemHostGetDevicePointer_v2);
    CHECK(proc("cuNoSuchFunction", 13000, 0) == NULL);
    CHECK(proc("cuMemcpyHtoDAsync", 13000, pt) == (void *)cuMemcpyHtoDAsync_v2_ptsz);
    CHECK(proc("cuMemcpyHtoDAsync", 13000, 0) == (void *)cuMemcpyHtoDAsync_v2);
    CHECK(proc("cuMemsetD8", 13000, pt) == (void *)cuMemsetD8_v2_ptds);
    CHECK(proc("cuGraphLaunch", 13000, pt) == (void *)cuGraphLaunch_ptsz);
    CHECK(proc("cuGraphAddKernelNode", 13000, 0) == (void *)cuGraphAddKernelNode_v2);
    CHECK(proc("cuStreamDestroy", 13000, 0) == (void *)cuStreamDestroy_v2);
    CHECK(proc("cuModuleGetFunction", 13000, 0) == (void *)cuModuleGetFunction);
    CHECK(proc("cuLaunchKernelEx", 13000, 0) == (void *)cuLaunchKernelEx);
    CHECK(proc("cuStreamBeginCapture", 13000, 0) == (void *)cuStreamBeginCapture_v2);
    CHECK(proc("cuStreamBeginCapture", 13000, pt) == (void *)cuStreamBeginCapture_v2_ptsz);
    CHECK(proc("cuStreamEndCapture", 13000, pt) == (void *)cuStreamEndCapture_ptsz);
    CHECK(proc("cuGraphExecUpdate", 13000, 0) == (void *)cuGraphExecUpdate_v2);
}

enum { N = 512 };

/* Copies n floats of device memory back (synchronously, through the driver). */
static void read_back(float *out, CUdeviceptr d, int n)
{
    CHECK(cuMemcpyDtoH(out, d, (size_t)n * sizeof(float)) == CUDA_SUCCESS);
}

/* True when n floats of device memory all equal v. */
static bool all_equal(CUdeviceptr d, int n, float v)
{
    float h[N];
    read_back(h, d, n);
    for (int i = 0; i < n; i++)
        if (h[i] != v)
            return false;
    return true;
}

/* One 1-D launch of blocks of 256 threads through the driver (kernelParams form). */
static CUresult drv_launch(const void *k, int n, void **args, CUstream s)
{
    return cuLaunchKernel((CUfunction)(void *)k, (unsigned)(n + 255) / 256, 1, 1, 256, 1, 1, 0, s, args, NULL);
}

/* Captures k_fill(x, v) (twice if twice) on s through the driver in mode; the graph, or NULL. */
static CUgraph capture_fill(CUstream s, CUstreamCaptureMode mode, CUdeviceptr x, float v, bool twice)
{
    int n = N;
    void *args[] = {&x, &v, &n};
    CUgraph g = NULL;
    CHECK(cuStreamBeginCapture_v2(s, mode) == CUDA_SUCCESS);
    CHECK(drv_launch((const void *)k_fill, N, args, s) == CUDA_SUCCESS);
    if (twice)
        CHECK(drv_launch((const void *)k_fill, N, args, s) == CUDA_SUCCESS);
    return cuStreamEndCapture(s, &g) == CUDA_SUCCESS ? g : NULL;
}

/* Captures through the driver: their mode, their graph, and the executable graph updated from the next. */
static void test_driver_capture(void)
{
    CUstream s, other;
    CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS);
    CHECK(cuStreamCreate(&other, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS);
    CUdeviceptr x = 0;
    CHECK(cuMemAlloc(&x, N * sizeof(float)) == CUDA_SUCCESS);
    CUgraph g = NULL;
    CHECK(cuStreamEndCapture(s, &g) == CUDA_ERROR_ILLEGAL_STATE && g == NULL);

    /* Relaxed: another stream's synchronisation stays legal; the launch is captured, not run. */
    CHECK(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_RELAXED) == CUDA_SUCCESS);
    CHECK(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_RELAXED) == CUDA_ERROR_ILLEGAL_STATE);
    enum cudaStreamCaptureStatus st;
    unsigned long long id = 0;
    cudaGraph_t graph = NULL;
    CHECK(cudaStreamGetCaptureInfo((cudaStream_t)s, &st, &id, &graph, NULL, NULL, NULL) == cudaSuccess);
    CHECK(st == cudaStreamCaptureStatusActive && id != 0 && graph != NULL);
    check_queries((cudaStream_t)s, CU_STREAM_CAPTURE_STATUS_ACTIVE, id, graph);
    CHECK(cudaStreamSynchronize((cudaStream_t)other) == cudaSuccess);
    CHECK(cuStreamEndCapture(s, &g) == CUDA_SUCCESS && g != NULL);
    check_queries((cudaStream_t)s, CU_STREAM_CAPTURE_STATUS_NONE, 0, NULL);
    CHECK(cuGraphDestroy(g) == CUDA_SUCCESS);
    CHECK(cuMemsetD32(x, 0, N) == CUDA_SUCCESS);
    g = capture_fill(s, CU_STREAM_CAPTURE_MODE_RELAXED, x, 1.0f, false);
    CHECK(g != NULL && all_equal(x, N, 0.0f));
    size_t count = 0;
    CHECK(cudaGraphGetNodes((cudaGraph_t)g, NULL, &count) == cudaSuccess && count == 1);
    CUgraphExec e = NULL;
    CHECK(cuGraphInstantiateWithFlags(&e, g, 0) == CUDA_SUCCESS);
    CHECK(cuGraphLaunch(e, s) == CUDA_SUCCESS && cuStreamSynchronize(s) == CUDA_SUCCESS);
    CHECK(all_equal(x, N, 1.0f));
    CHECK(cuGraphDestroy(g) == CUDA_SUCCESS);

    /* The same topology with another argument: updated in place, and the next launch fills 2.0. */
    CUgraph g2 = capture_fill(s, CU_STREAM_CAPTURE_MODE_RELAXED, x, 2.0f, false);
    CUgraphExecUpdateResultInfo info;
    memset(&info, 0xff, sizeof info);
    CHECK(cuGraphExecUpdate_v2(e, g2, &info) == CUDA_SUCCESS);
    CHECK(info.result == CU_GRAPH_EXEC_UPDATE_SUCCESS && info.errorNode == NULL);
    CHECK(cuGraphLaunch(e, s) == CUDA_SUCCESS && cuStreamSynchronize(s) == CUDA_SUCCESS);
    CHECK(all_equal(x, N, 2.0f));
    /* Another node count: refused, saying why, and the executable graph is unchanged. */
    CUgraph g3 = capture_fill(s, CU_STREAM_CAPTURE_MODE_RELAXED, x, 3.0f, true);
    CHECK(cuGraphExecUpdate_v2(e, g3, &info) == CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE);
    CHECK(info.result == CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED);
    CHECK(cuGraphExecUpdate_v2(e, g3, NULL) == CUDA_ERROR_INVALID_VALUE);
    CHECK(cuGraphLaunch(e, s) == CUDA_SUCCESS && cuStreamSynchronize(s) == CUDA_SUCCESS);
    CHECK(all_equal(x, N, 2.0f));
    CHECK(cudaGetLastError() == cudaSuccess); /* the driver's errors are not the runtime's */

    /* Global: the other stream's synchronisation is refused and invalidates the capture, which ends so. */
    CHECK(cuStreamBeginCapture_v2_ptsz(s, CU_STREAM_CAPTURE_MODE_GLOBAL) == CUDA_SUCCESS);
    CHECK(cudaStreamSynchronize((cudaStream_t)other) == cudaErrorStreamCaptureUnsupported);
    CHECK(cudaGetLastError() == cudaErrorStreamCaptureUnsupported);
    g = NULL;
    CHECK(cuStreamEndCapture_ptsz(s, &g) == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED && g == NULL);
    CHECK(cudaGetLastError() == cudaSuccess);

    CHECK(cuGraphExecDestroy(e) == CUDA_SUCCESS);
    CHECK(cuGraphDestroy(g2) == CUDA_SUCCESS && cuGraphDestroy(g3) == CUDA_SUCCESS);
    CHECK(cuMemFree(x) == CUDA_SUCCESS);
    CHECK(cuStreamDestroy(s) == CUDA_SUCCESS && cuStreamDestroy(other) == CUDA_SUCCESS);
}

/* Versions, device, context, streams, events, errors. */
static void test_basics(void)
{
    int v = 0, count = 0, attr = 0;
    CUdevice dev = -1;
    CUcontext ctx = NULL, cur = NULL, sctx = NULL;
    CHECK(cuInit(0) == CUDA_SUCCESS);
    CHECK(cuDriverGetVersion(&v) == CUDA_SUCCESS && v == 13000);
    CHECK(cuDeviceGetCount(&count) == CUDA_SUCCESS && count == 1);
    CHECK(cuDeviceGet(&dev, 0) == CUDA_SUCCESS && dev == 0);
    CHECK(cuDeviceGet(&dev, 1) == CUDA_ERROR_INVALID_DEVICE);
    CHECK(cuDeviceGetAttribute(&attr, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 0) == CUDA_SUCCESS && attr == 1024);
    CHECK(cuDeviceGetAttribute(&attr, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, 0) == CUDA_SUCCESS && attr == 64);
    CHECK(cuDeviceGetAttribute(&attr, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, 0) == CUDA_SUCCESS && attr == 2147483647);
    CHECK(cuDeviceGetAttribute(&attr, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, 0) == CUDA_SUCCESS && attr == 65535);
    CHECK(cuDeviceGetAttribute(&attr, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, 0) == CUDA_SUCCESS &&
          attr == 49152);
    CHECK(cuDeviceGetAttribute(&attr, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 0) == CUDA_SUCCESS &&
          attr == 232448);
    CHECK(cuDevicePrimaryCtxRetain(&ctx, 0) == CUDA_SUCCESS && ctx != NULL);
    CHECK(cuCtxSetCurrent(ctx) == CUDA_SUCCESS);
    CHECK(cuCtxGetCurrent(&cur) == CUDA_SUCCESS && cur == ctx);
    CHECK(cuCtxGetDevice(&dev) == CUDA_SUCCESS && dev == 0);

    CUstream s = NULL;
    unsigned flags = 9;
    int prio = 9;
    unsigned long long id = 0, rid = 1;
    CHECK(cuStreamCreateWithPriority(&s, CU_STREAM_NON_BLOCKING, -3) == CUDA_SUCCESS);
    CHECK(cuStreamGetFlags(s, &flags) == CUDA_SUCCESS && flags == CU_STREAM_NON_BLOCKING);
    CHECK(cuStreamGetPriority(s, &prio) == CUDA_SUCCESS && prio == -3);
    CHECK(cuStreamGetId(s, &id) == CUDA_SUCCESS && cudaStreamGetId((cudaStream_t)s, &rid) == cudaSuccess &&
          id == rid);
    CHECK(cuStreamGetCtx(s, &sctx) == CUDA_SUCCESS && sctx == ctx);
    CHECK(cuStreamGetFlags(CU_STREAM_LEGACY, &flags) == CUDA_SUCCESS && flags == 0);

    /* An event recorded behind a launch: the query rule, then done. */
    CUevent ev = NULL;
    CUdeviceptr y = 0;
    float one = 1.0f;
    int n = N;
    CHECK(cuMemAlloc(&y, N * sizeof(float)) == CUDA_SUCCESS);
    void *fill[] = {&y, &one, &n};
    CHECK(cuEventCreate(&ev, CU_EVENT_DEFAULT) == CUDA_SUCCESS);
    CHECK(drv_launch((const void *)k_fill, N, fill, s) == CUDA_SUCCESS);
    CHECK(cuEventRecord(ev, s) == CUDA_SUCCESS);
    /* (test_memory's mapped memory started the device thread: the query rule's counts no longer hold.) */
    CUresult q = cuStreamQuery(s);
    CHECK(q == CUDA_ERROR_NOT_READY || q == CUDA_SUCCESS);
    q = cuEventQuery(ev);
    CHECK(q == CUDA_ERROR_NOT_READY || q == CUDA_SUCCESS);
    CHECK(cuEventSynchronize(ev) == CUDA_SUCCESS && cuStreamQuery(s) == CUDA_SUCCESS);
    CHECK(cuEventRecordWithFlags(ev, s, CU_EVENT_RECORD_EXTERNAL) == CUDA_ERROR_ILLEGAL_STATE);
    CHECK(cuEventDestroy(ev) == CUDA_SUCCESS);
    CHECK(cuEventDestroy(ev) == CUDA_ERROR_INVALID_HANDLE);
    CHECK(cuStreamDestroy(s) == CUDA_SUCCESS);
    CHECK(cuStreamGetFlags(s, &flags) == CUDA_ERROR_INVALID_HANDLE);
    CHECK(cuCtxSynchronize() == CUDA_SUCCESS);
    CHECK(cuMemFree(y) == CUDA_SUCCESS);

    /* cuLaunchKernelEx: priority, cluster, cooperative and programmatic attributes accepted, others refused. */
    CUlaunchAttribute attrs[2];
    memset(attrs, 0, sizeof attrs);
    attrs[0].id = CU_LAUNCH_ATTRIBUTE_PRIORITY;
    attrs[1].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attrs[1].value.clusterDim.x = attrs[1].value.clusterDim.y = attrs[1].value.clusterDim.z = 1;
    CUlaunchConfig cfg = {1, 1, 1, 32, 1, 1, 0, NULL, attrs, 2};
    CHECK(cuLaunchKernelEx(&cfg, (CUfunction)(void *)k_empty, NULL, NULL) == CUDA_SUCCESS);
    attrs[1].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
    CHECK(cuLaunchKernelEx(&cfg, (CUfunction)(void *)k_empty, NULL, NULL) == CUDA_SUCCESS);
    attrs[1].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attrs[1].value.programmaticStreamSerializationAllowed = 1;
    CHECK(cuLaunchKernelEx(&cfg, (CUfunction)(void *)k_empty, NULL, NULL) == CUDA_SUCCESS);
    attrs[1].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT;
    CHECK(cuLaunchKernelEx(&cfg, (CUfunction)(void *)k_empty, NULL, NULL) == CUDA_ERROR_INVALID_VALUE);
    cfg.blockDimX = 2048;
    cfg.numAttrs = 0;
    CHECK(cuLaunchKernelEx(&cfg, (CUfunction)(void *)k_empty, NULL, NULL) == CUDA_ERROR_INVALID_VALUE);

    const char *str = NULL;
    CHECK(cuGetErrorName(CUDA_ERROR_INVALID_VALUE, &str) == CUDA_SUCCESS);
    CHECK_STR_EQ(str, "CUDA_ERROR_INVALID_VALUE");
    CHECK(cuGetErrorString(CUDA_ERROR_NOT_READY, &str) == CUDA_SUCCESS);
    CHECK_STR_EQ(str, "device not ready");
    CHECK(cuGetErrorName((CUresult)12345, &str) == CUDA_ERROR_INVALID_VALUE && str == NULL);
}

/* Parameter layouts, names, kernel handles, module lookups by name, cudaGetFuncBySymbol. */
static void test_kernels_and_modules(void)
{
    size_t doff = 0, dsize = 0, roff = 1, rsize = 1;
    CUfunction axpy = (CUfunction)(void *)k_axpy;
    for (size_t i = 0; i < 4; i++) {
        CHECK(cuFuncGetParamInfo(axpy, i, &doff, &dsize) == CUDA_SUCCESS);
        CHECK(cudaFuncGetParamInfo((const void *)k_axpy, i, &roff, &rsize) == cudaSuccess);
        CHECK(doff == roff && dsize == rsize);
        CHECK(cuKernelGetParamInfo((CUkernel)(void *)k_axpy, i, &roff, &rsize) == CUDA_SUCCESS);
        CHECK(doff == roff && dsize == rsize);
    }
    CHECK(cuFuncGetParamInfo(axpy, 1, &doff, &dsize) == CUDA_SUCCESS && doff == 8 && dsize == 8);
    CHECK(cuFuncGetParamInfo(axpy, 4, &doff, &dsize) == CUDA_ERROR_INVALID_VALUE);
    CUfunction f = NULL;
    CHECK(cuKernelGetFunction(&f, (CUkernel)(void *)k_axpy) == CUDA_SUCCESS && f == axpy);
    const char *name = NULL;
    CHECK(cuFuncGetName(&name, axpy) == CUDA_SUCCESS && name && strcmp(name, "k_axpy") == 0);
    cudaFunction_t rf = NULL;
    CHECK(cudaGetFuncBySymbol(&rf, (const void *)k_scale) == cudaSuccess && (void *)rf == (void *)k_scale);
    CHECK(cudaGetFuncBySymbol(&rf, (const void *)test_basics) == cudaErrorInvalidDeviceFunction);
    CHECK(cudaGetLastError() == cudaErrorInvalidDeviceFunction);

    CUmodule m = NULL, m2 = NULL;
    CHECK(cuModuleLoadData(&m, "any image") == CUDA_SUCCESS && m != NULL);
    CHECK(cuModuleLoad(&m2, "/nonexistent/kernels.cubin") == CUDA_SUCCESS && m2 != NULL && m2 != m);
    /* A module's function is a handle of its own that names the twin. */
    CHECK(cuModuleGetFunction(&f, m, "k_axpy") == CUDA_SUCCESS && f != NULL && f != axpy);
    CHECK(cuFuncGetName(&name, f) == CUDA_SUCCESS && name && strcmp(name, "k_axpy") == 0);
    CHECK(cuModuleGetFunction(&f, m2, "k_reduce_sum") == CUDA_SUCCESS && f != (CUfunction)(void *)k_reduce_sum);
    CHECK(cuFuncGetName(&name, f) == CUDA_SUCCESS && name && strcmp(name, "k_reduce_sum") == 0);
    CHECK(cuModuleGetFunction(&f, m, "k_no_such_kernel") == CUDA_ERROR_NOT_FOUND);
    CHECK(cuModuleUnload(m2) == CUDA_SUCCESS);
    CHECK(cuModuleGetFunction(&f, NULL, "k_axpy") == CUDA_ERROR_INVALID_HANDLE);

    /* A function found by name launches the twin. */
    CUdeviceptr x = 0;
    float three = 3.0f;
    int n = N;
    CHECK(cuModuleGetFunction(&f, m, "k_fill") == CUDA_SUCCESS);
    CHECK(cuMemAlloc(&x, N * sizeof(float)) == CUDA_SUCCESS);
    void *args[] = {&x, &three, &n};
    CHECK(cuLaunchKernel(f, 2, 1, 1, 256, 1, 1, 0, NULL, args, NULL) == CUDA_SUCCESS);
    CHECK(all_equal(x, N, 3.0f));
    CHECK(cuModuleUnload(m) == CUDA_SUCCESS);
    CHECK(cuMemFree(x) == CUDA_SUCCESS);
}

/* Packs args at the kernel's parameter offsets; returns the size used. */
static size_t pack(CUfunction f, void **args, unsigned nargs, unsigned char *buf)
{
    size_t end = 0;
    for (unsigned i = 0; i < nargs; i++) {
        size_t off = 0, size = 0;
        CHECK(cuFuncGetParamInfo(f, i, &off, &size) == CUDA_SUCCESS);
        memcpy(buf + off, args[i], size);
        end = off + size;
    }
    return end;
}

/* cuLaunchKernel's extra form gives what the kernelParams form gives; malformed forms are refused. */
static void test_extra_form(void)
{
    CUdeviceptr a = 0, b = 0;
    float h1[N], h2[N];
    int n = N, step = 7;
    float zero = 0.0f, s = 0.375f;
    CUfunction add = (CUfunction)(void *)k_add_step;
    CHECK(cuMemAlloc(&a, N * sizeof(float)) == CUDA_SUCCESS && cuMemAlloc(&b, N * sizeof(float)) == CUDA_SUCCESS);
    void *fa[] = {&a, &zero, &n}, *fb[] = {&b, &zero, &n};
    CHECK(drv_launch((const void *)k_fill, N, fa, NULL) == CUDA_SUCCESS);
    CHECK(drv_launch((const void *)k_fill, N, fb, NULL) == CUDA_SUCCESS);
    void *pa[] = {&a, &s, &step, &n}, *pb[] = {&b, &s, &step, &n};
    CHECK(cuLaunchKernel(add, 2, 1, 1, 256, 1, 1, 0, NULL, pa, NULL) == CUDA_SUCCESS);
    unsigned char buf[64];
    memset(buf, 0xee, sizeof buf);
    size_t size = pack(add, pb, 4, buf);
    CHECK(size == 20);
    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
    CHECK(cuLaunchKernel(add, 2, 1, 1, 256, 1, 1, 0, NULL, NULL, extra) == CUDA_SUCCESS);
    memset(buf, 0, sizeof buf); /* the arguments were copied at the call */
    read_back(h1, a, N);
    read_back(h2, b, N);
    CHECK(memcmp(h1, h2, sizeof h1) == 0);
    CHECK(h1[1] == 0.375f * 8.0f);
    /* Refused: both forms, a short buffer, an unknown key. */
    size = pack(add, pb, 4, buf);
    CHECK(cuLaunchKernel(add, 2, 1, 1, 256, 1, 1, 0, NULL, pb, extra) == CUDA_ERROR_INVALID_VALUE);
    size = 16;
    CHECK(cuLaunchKernel(add, 2, 1, 1, 256, 1, 1, 0, NULL, NULL, extra) == CUDA_ERROR_INVALID_VALUE);
    size = 20;
    void *bad[] = {(void *)(uintptr_t)0x7, buf, CU_LAUNCH_PARAM_END};
    CHECK(cuLaunchKernel(add, 2, 1, 1, 256, 1, 1, 0, NULL, NULL, bad) == CUDA_ERROR_INVALID_VALUE);
    CHECK(cuMemFree(a) == CUDA_SUCCESS && cuMemFree(b) == CUDA_SUCCESS);
}

/* cuMemsetD8/D16/D32, their async and 2-D forms: element sizes, values, alignment. */
static void test_memsets(void)
{
    CUdeviceptr d = 0;
    unsigned char h[64];
    CHECK(cuMemAlloc(&d, 64) == CUDA_SUCCESS);
    CHECK(cuMemsetD8(d, 0x5a, 64) == CUDA_SUCCESS);
    CHECK(cuMemsetD16(d, 0x1234, 8) == CUDA_SUCCESS);
    CHECK(cuMemsetD32Async(d + 32, 0xdeadbeefu, 4, NULL) == CUDA_SUCCESS);
    CHECK(cuMemcpyDtoH(h, d, 64) == CUDA_SUCCESS);
    uint16_t w16;
    uint32_t w32;
    memcpy(&w16, h + 14, 2);
    memcpy(&w32, h + 44, 4);
    CHECK(w16 == 0x1234 && h[16] == 0x5a && h[31] == 0x5a && w32 == 0xdeadbeefu && h[48] == 0x5a);
    CHECK(cuMemsetD32(d + 2, 1, 1) == CUDA_ERROR_INVALID_VALUE);      /* misaligned */
    CHECK(cuMemsetD16Async(d + 1, 1, 1, NULL) == CUDA_ERROR_INVALID_VALUE);
    CHECK(cuMemsetD32(d, 1, 17) == CUDA_ERROR_INVALID_VALUE);         /* past the allocation */
    /* 2-D: two rows of 3 16-bit elements, 16 bytes apart. */
    CHECK(cuMemsetD8(d, 0, 64) == CUDA_SUCCESS);
    CHECK(cuMemsetD2D16Async(d, 16, 0xabcd, 3, 2, NULL) == CUDA_SUCCESS);
    CHECK(cuMemcpyDtoH(h, d, 64) == CUDA_SUCCESS);
    memcpy(&w16, h + 20, 2);
    CHECK(w16 == 0xabcd && h[6] == 0 && h[22] == 0 && h[15] == 0);
    /* Pageable memory cannot be set. */
    static unsigned char pageable[16];
    CHECK(cuMemsetD8((CUdeviceptr)(uintptr_t)pageable, 1, 16) == CUDA_ERROR_INVALID_VALUE);
    CHECK(cuMemFree(d) == CUDA_SUCCESS);
}

/* cuPointerGetAttribute(s): memory type and managed flag of device, pinned, managed and pageable memory. */
static void test_pointers(void)
{
    CUdeviceptr d = 0;
    void *pinned = NULL, *managed = NULL;
    static char pageable[16];
    unsigned type = 0;
    bool is_managed = true;
    CHECK(cuMemAlloc(&d, 64) == CUDA_SUCCESS);
    CHECK(cuMemAllocHost(&pinned, 64) == CUDA_SUCCESS);
    CHECK(cudaMallocManaged(&managed, 64, cudaMemAttachGlobal) == cudaSuccess);
    CHECK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, d + 8) == CUDA_SUCCESS &&
          type == CU_MEMORYTYPE_DEVICE);
    CHECK(cuPointerGetAttribute(&is_managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, d) == CUDA_SUCCESS && !is_managed);
    CHECK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)pinned) ==
              CUDA_SUCCESS &&
          type == CU_MEMORYTYPE_HOST);
    CHECK(cuPointerGetAttribute(&is_managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, (CUdeviceptr)(uintptr_t)managed) ==
              CUDA_SUCCESS &&
          is_managed);
    CHECK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)pageable) ==
          CUDA_ERROR_INVALID_VALUE);
    CHECK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_CONTEXT, d) == CUDA_ERROR_INVALID_VALUE);
    CUpointer_attribute which[2] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_IS_MANAGED};
    type = 7;
    is_managed = true;
    void *data[2] = {&type, &is_managed};
    CHECK(cuPointerGetAttributes(2, which, data, (CUdeviceptr)(uintptr_t)pageable) == CUDA_SUCCESS);
    CHECK(type == 0 && !is_managed);
    CHECK(cuPointerGetAttributes(2, which, data, d) == CUDA_SUCCESS && type == CU_MEMORYTYPE_DEVICE && !is_managed);
    CHECK(cuMemFree(d) == CUDA_SUCCESS && cuMemFreeHost(pinned) == CUDA_SUCCESS);
    CHECK(cudaFree(managed) == cudaSuccess);
}

/* Driver work and runtime work on one stream run in the order they were submitted (for every seed). */
static void test_ordering(void)
{
    cudaStream_t s;
    float *y = NULL, *x = NULL;
    float two = 2.0f, three = 3.0f, half = 0.5f, out[N];
    int n = N;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);
    CHECK(cudaMalloc((void **)&y, N * sizeof(float)) == cudaSuccess);
    CHECK(cudaMalloc((void **)&x, N * sizeof(float)) == cudaSuccess);
    for (int round = 0; round < 20; round++) {
        void *fill[] = {&y, &two, &n}, *scale[] = {&y, &three, &n}, *fillx[] = {&x, &half, &n};
        dim3 g = {2, 1, 1}, b = {256, 1, 1};
        /* runtime fill, driver scale (the ptsz flavour: an explicit stream is the same stream), runtime scale */
        CHECK(cudaLaunchKernel((const void *)k_fill, g, b, fill, 0, s) == cudaSuccess);
        CHECK(cuLaunchKernel_ptsz((CUfunction)(void *)k_scale, 2, 1, 1, 256, 1, 1, 0, (CUstream)s, scale, NULL) ==
              CUDA_SUCCESS);
        CHECK(cudaLaunchKernel((const void *)k_scale, g, b, scale, 0, s) == cudaSuccess);
        /* legacy stream: a driver launch on NULL waits for the blocking streams (none here) and orders
           after the runtime's legacy work */
        CHECK(cudaLaunchKernel((const void *)k_fill, g, b, fillx, 0, NULL) == cudaSuccess);
        void *axpy[] = {&two, &x, &x, &n};
        CHECK(drv_launch((const void *)k_axpy, N, axpy, NULL) == CUDA_SUCCESS);
        CHECK(cuMemcpyDtoHAsync(out, (CUdeviceptr)(uintptr_t)y, sizeof out, (CUstream)s) == CUDA_SUCCESS);
        CHECK(cudaStreamSynchronize(s) == cudaSuccess);
        CHECK(out[0] == 18.0f && out[N - 1] == 18.0f);
        CHECK(cuMemcpyDtoH(out, (CUdeviceptr)(uintptr_t)x, sizeof out) == CUDA_SUCCESS);
        CHECK(out[0] == 1.5f && out[N - 1] == 1.5f);
    }
    CHECK(cudaFree(y) == cudaSuccess && cudaFree(x) == cudaSuccess);
    CHECK(cudaStreamDestroy(s) == cudaSuccess);
}

/* Host node / host function: adds the step its user data names. */
struct counter {
    int total;
    int step;
};

/* Runs in stream order on the stand-in's queue. */
static void count_host(void *user)
{
    struct counter *c = user;
    c->total += c->step;
}

/* A host node after a wait: counts the times the host function it waits for (before) had reached want. */
struct order_check {
    const struct counter *before;
    int want;
    int in_order;
};

/* Runs when the graph's host node does. */
static void check_order(void *user)
{
    struct order_check *o = user;
    o->in_order += o->before->total >= o->want;
}

/* A CUDA_MEMCPY3D for a 1-D copy of n bytes. */
static CUDA_MEMCPY3D copy_1d(CUmemorytype dt, void *dst, CUmemorytype st, const void *src, size_t n)
{
    CUDA_MEMCPY3D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = st;
    c.dstMemoryType = dt;
    if (st == CU_MEMORYTYPE_HOST)
        c.srcHost = src;
    else
        c.srcDevice = (CUdeviceptr)(uintptr_t)src;
    if (dt == CU_MEMORYTYPE_HOST)
        c.dstHost = dst;
    else
        c.dstDevice = (CUdeviceptr)(uintptr_t)dst;
    c.WidthInBytes = n;
    c.Height = c.Depth = 1;
    return c;
}

/*
 * Programmatic edges (cuGraphAddDependencies_v2 with edge data): only from a
 * kernel node to a kernel node, from its programmatic port; reported by
 * cuGraphGetEdges_v2; the dependent kernel (k_scale waits for its primary)
 * reads what its primary wrote.  The programmatic launch attribute is no
 * node attribute.
 */
static void test_programmatic_edges(void)
{
    const int n = N;
    CUstream s = NULL;
    CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS);
    CUdeviceptr y = 0;
    float *out = NULL, v = 3.0f, f = 2.0f;
    CHECK(cuMemAlloc(&y, N * sizeof(float)) == CUDA_SUCCESS);
    CHECK(cuMemAllocHost((void **)&out, N * sizeof(float)) == CUDA_SUCCESS);
    void *fill[] = {&y, &v, (void *)&n}, *scale[] = {&y, &f, (void *)&n};
    CUgraph g = NULL;
    CUgraphNode nfill, nscale, nset, nlast;
    CHECK(cuGraphCreate(&g, 0) == CUDA_SUCCESS);
    CUDA_KERNEL_NODE_PARAMS kp;
    memset(&kp, 0, sizeof kp);
    kp.func = (CUfunction)(void *)k_fill;
    kp.gridDimX = (N + 255) / 256, kp.gridDimY = kp.gridDimZ = 1;
    kp.blockDimX = 256, kp.blockDimY = kp.blockDimZ = 1;
    kp.kernelParams = fill;
    CHECK(cuGraphAddKernelNode(&nfill, g, NULL, 0, &kp) == CUDA_SUCCESS);
    kp.func = (CUfunction)(void *)k_scale;
    kp.kernelParams = scale;
    CHECK(cuGraphAddKernelNode(&nscale, g, NULL, 0, &kp) == CUDA_SUCCESS);
    CUDA_MEMSET_NODE_PARAMS ms = {y, 0, 0, 4, N, 1};
    CHECK(cuGraphAddMemsetNode(&nset, g, NULL, 0, &ms, NULL) == CUDA_SUCCESS);
    CHECK(cuGraphAddKernelNode(&nlast, g, NULL, 0, &kp) == CUDA_SUCCESS);
    CUkernelNodeAttrValue av;
    memset(&av, 0, sizeof av);
    av.programmaticStreamSerializationAllowed = 1;
    CHECK(cuGraphKernelNodeSetAttribute(nscale, CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION, &av) ==
          CUDA_ERROR_INVALID_VALUE);
    CUgraphEdgeData edge;
    memset(&edge, 0, sizeof edge);
    edge.type = CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC;
    /* The default port with the programmatic type, or the programmatic port with the default type: refused. */
    CHECK(cuGraphAddDependencies_v2(g, &nfill, &nscale, &edge, 1) == CUDA_ERROR_INVALID_VALUE);
    edge.from_port = CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC;
    edge.type = CU_GRAPH_DEPENDENCY_TYPE_DEFAULT;
    CHECK(cuGraphAddDependencies_v2(g, &nfill, &nscale, &edge, 1) == CUDA_ERROR_INVALID_VALUE);
    edge.type = CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC;
    CHECK(cuGraphAddDependencies_v2(g, &nfill, &nscale, &edge, 1) == CUDA_SUCCESS);
    CHECK(cuGraphAddDependencies_v2(g, &nfill, &nscale, &edge, 1) == CUDA_ERROR_INVALID_VALUE); /* there already */
    /* From a memset node, or to one: not between kernel nodes. */
    CHECK(cuGraphAddDependencies_v2(g, &nset, &nlast, &edge, 1) == CUDA_ERROR_INVALID_VALUE);
    CHECK(cuGraphAddDependencies_v2(g, &nscale, &nset, &edge, 1) == CUDA_ERROR_INVALID_VALUE);
    CHECK(cuGraphAddDependencies_v2(g, &nscale, &nset, NULL, 1) == CUDA_SUCCESS); /* a full edge */
    CHECK(cuGraphAddDependencies_v2(g, &nset, &nlast, NULL, 1) == CUDA_SUCCESS);
    size_t count = 0;
    CHECK(cuGraphGetEdges_v2(g, NULL, NULL, NULL, &count) == CUDA_SUCCESS && count == 3);
    CUgraphNode from[3], to[3];
    CUgraphEdgeData data[3];
    CHECK(cuGraphGetEdges_v2(g, from, to, data, &count) == CUDA_SUCCESS && count == 3);
    int programmatic = 0;
    for (size_t i = 0; i < count; i++)
        if (data[i].type == CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC) {
            programmatic++;
            CHECK(from[i] == nfill && to[i] == nscale && data[i].from_port == CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC);
        }
    CHECK(programmatic == 1);
    /* y = 3, y *= 2 after it (the programmatic edge), y = 0, y *= 2: the scale read what the fill wrote. */
    CUgraphExec e = NULL;
    CHECK(cuGraphInstantiateWithFlags(&e, g, 0) == CUDA_SUCCESS);
    CUDA_MEMSET_NODE_PARAMS ms2 = {y, 0, 0x3f800000u, 4, N, 1}; /* the memset writes 1.0f */
    CHECK(cuGraphExecMemsetNodeSetParams(e, nset, &ms2, NULL) == CUDA_SUCCESS);
    CHECK(cuGraphLaunch(e, s) == CUDA_SUCCESS);
    CHECK(cuMemcpyDtoHAsync(out, y, N * sizeof(float), s) == CUDA_SUCCESS);
    CHECK(cuStreamSynchronize(s) == CUDA_SUCCESS);
    CHECK(out[0] == 2.0f && out[N - 1] == 2.0f);
    /* Without the memset: fill then scale, 6 everywhere. */
    CUgraph g2 = NULL;
    CUgraphNode a, b;
    CHECK(cuGraphCreate(&g2, 0) == CUDA_SUCCESS);
    kp.func = (CUfunction)(void *)k_fill;
    kp.kernelParams = fill;
    CHECK(cuGraphAddKernelNode(&a, g2, NULL, 0, &kp) == CUDA_SUCCESS);
    kp.func = (CUfunction)(void *)k_scale;
    kp.kernelParams = scale;
    CHECK(cuGraphAddKernelNode(&b, g2, NULL, 0, &kp) == CUDA_SUCCESS);
    CHECK(cuGraphAddDependencies_v2(g2, &b, &a, &edge, 1) == CUDA_ERROR_INVALID_VALUE); /* newer to older */
    CHECK(cuGraphAddDependencies_v2(g2, &a, &b, &edge, 1) == CUDA_SUCCESS);
    CUgraphExec e2 = NULL;
    CHECK(cuGraphInstantiateWithFlags(&e2, g2, 0) == CUDA_SUCCESS);
    for (int round = 0; round < 20; round++) {
        CHECK(cuGraphLaunch(e2, s) == CUDA_SUCCESS);
        CHECK(cuMemcpyDtoHAsync(out, y, N * sizeof(float), s) == CUDA_SUCCESS);
        CHECK(cuStreamSynchronize(s) == CUDA_SUCCESS);
        CHECK(out[0] == 6.0f && out[N - 1] == 6.0f);
    }
    CHECK(cuGraphExecDestroy(e) == CUDA_SUCCESS && cuGraphExecDestroy(e2) == CUDA_SUCCESS);
    CHECK(cuGraphDestroy(g) == CUDA_SUCCESS && cuGraphDestroy(g2) == CUDA_SUCCESS);
    CHECK(cuMemFree(y) == CUDA_SUCCESS && cuMemFreeHost(out) == CUDA_SUCCESS);
    CHECK(cuStreamDestroy(s) == CUDA_SUCCESS);
}

/* Graphs built through the driver: the same results as the eager calls, through cuGraphLaunch and
 * cudaGraphLaunch alike; exec SetParams change the next launch. */
static void test_graphs(void)
{
    const int n = N;
    CUstream s = NULL;
    CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS);
    CUdeviceptr x = 0, y = 0;
    float *in = NULL, *out = NULL, eager[N];
    CHECK(cuMemAlloc(&x, N * sizeof(float)) == CUDA_SUCCESS && cuMemAlloc(&y, N * sizeof(float)) == CUDA_SUCCESS);
    CHECK(cuMemAllocHost((void **)&in, N * sizeof(float)) == CUDA_SUCCESS);
    CHECK(cuMemAllocHost((void **)&out, N * sizeof(float)) == CUDA_SUCCESS);
    for (int i = 0; i < N; i++)
        in[i] = (float)(i % 17) * 0.25f;
    float a = 1.5f, f = 0.5f;
    struct counter cnt = {0, 1};
    CUevent ev = NULL;
    CHECK(cuEventCreate(&ev, CU_EVENT_DEFAULT) == CUDA_SUCCESS);
    unsigned char buf[32];
    size_t size = 0;
    void *axpy[] = {&a, &x, &y, (void *)&n}, *scale[] = {&y, &f, (void *)&n};

    /* Eagerly: y = 1.0f (D32), x = in (H2D), y = a*x + y, y *= f (extra form), host function, y -> out. */
    CHECK(cuMemsetD32Async(y, 0x3f800000u, N, s) == CUDA_SUCCESS);
    CHECK(cuMemcpyHtoDAsync(x, in, N * sizeof(float), s) == CUDA_SUCCESS);
    CHECK(drv_launch((const void *)k_axpy, N, axpy, s) == CUDA_SUCCESS);
    size = pack((CUfunction)(void *)k_scale, scale, 3, buf);
    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
    CHECK(cuLaunchKernel((CUfunction)(void *)k_scale, 2, 1, 1, 256, 1, 1, 0, s, NULL, extra) == CUDA_SUCCESS);
    CHECK(cuLaunchHostFunc(s, count_host, &cnt) == CUDA_SUCCESS);
    CHECK(cuMemcpyDtoHAsync(out, y, N * sizeof(float), s) == CUDA_SUCCESS);
    CHECK(cuStreamSynchronize(s) == CUDA_SUCCESS);
    memcpy(eager, out, sizeof eager);
    CHECK(cnt.total == 1 && eager[3] == (0.75f * 1.5f + 1.0f) * 0.5f);

    /* The same as a graph: memset and H2D copy are roots, the kernels after both, host and record nodes after
       the scale, the D2H copy after the host node. */
    CUgraph g = NULL;
    CUgraphNode nset, ncopy, naxpy, nscale, nhost, nrec, nback, nempty;
    CHECK(cuGraphCreate(&g, 0) == CUDA_SUCCESS);
    CUDA_MEMSET_NODE_PARAMS ms = {y, 0, 0x3f800000u, 4, N, 1};
    CHECK(cuGraphAddMemsetNode(&nset, g, NULL, 0, &ms, NULL) == CUDA_SUCCESS);
    CUDA_MEMCPY3D cin = copy_1d(CU_MEMORYTYPE_DEVICE, (void *)(uintptr_t)x, CU_MEMORYTYPE_HOST, in, N * sizeof(float));
    CHECK(cuGraphAddMemcpyNode(&ncopy, g, NULL, 0, &cin, NULL) == CUDA_SUCCESS);
    CUgraphNode roots[2] = {nset, ncopy};
    CUDA_KERNEL_NODE_PARAMS kp;
    memset(&kp, 0, sizeof kp);
    kp.func = (CUfunction)(void *)k_axpy;
    kp.gridDimX = 2, kp.gridDimY = kp.gridDimZ = 1;
    kp.blockDimX = 256, kp.blockDimY = kp.blockDimZ = 1;
    kp.kernelParams = axpy;
    CHECK(cuGraphAddKernelNode(&naxpy, g, roots, 2, &kp) == CUDA_SUCCESS);
    CUDA_KERNEL_NODE_PARAMS kp2 = kp;
    kp2.func = NULL;
    kp2.kern = (CUkernel)(void *)k_scale;     /* kern when func is NULL */
    kp2.kernelParams = NULL;
    kp2.extra = extra;
    CHECK(cuGraphAddKernelNode(&nscale, g, &naxpy, 1, &kp2) == CUDA_SUCCESS);
    CUkernelNodeAttrValue av;
    memset(&av, 0, sizeof av);
    CHECK(cuGraphKernelNodeSetAttribute(nscale, CU_LAUNCH_ATTRIBUTE_PRIORITY, &av) == CUDA_SUCCESS);
    CHECK(cuGraphKernelNodeSetAttribute(nscale, CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW, &av) ==
          CUDA_ERROR_INVALID_VALUE);
    CHECK(cuGraphKernelNodeSetAttribute(nset, CU_LAUNCH_ATTRIBUTE_PRIORITY, &av) == CUDA_ERROR_INVALID_VALUE);
    /* A node's priority is kept, clamped as a stream's ([-5, 0]); a node added by hand has 0. */
    CUkernelNodeAttrValue got;
    CHECK(cuGraphKernelNodeGetAttribute(naxpy, CU_LAUNCH_ATTRIBUTE_PRIORITY, &got) == CUDA_SUCCESS &&
          got.priority == 0);
    av.priority = -2;
    CHECK(cuGraphKernelNodeSetAttribute(nscale, CU_LAUNCH_ATTRIBUTE_PRIORITY, &av) == CUDA_SUCCESS);
    CHECK(cuGraphKernelNodeGetAttribute(nscale, CU_LAUNCH_ATTRIBUTE_PRIORITY, &got) == CUDA_SUCCESS &&
          got.priority == -2);
    av.priority = -9;
    CHECK(cuGraphKernelNodeSetAttribute(nscale, CU_LAUNCH_ATTRIBUTE_PRIORITY, &av) == CUDA_SUCCESS);
    CHECK(cuGraphKernelNodeGetAttribute(nscale, CU_LAUNCH_ATTRIBUTE_PRIORITY, &got) == CUDA_SUCCESS &&
          got.priority == -5);
    CHECK(cuGraphKernelNodeGetAttribute(nset, CU_LAUNCH_ATTRIBUTE_PRIORITY, &got) == CUDA_ERROR_INVALID_VALUE);
    av.priority = 0;
    CUDA_HOST_NODE_PARAMS hp = {count_host, &cnt};
    CHECK(cuGraphAddHostNode(&nhost, g, &nscale, 1, &hp) == CUDA_SUCCESS);
    CHECK(cuGraphAddEventRecordNode(&nrec, g, &nscale, 1, ev) == CUDA_SUCCESS);
    CUDA_MEMCPY3D cout_ = copy_1d(CU_MEMORYTYPE_UNIFIED, out, CU_MEMORYTYPE_UNIFIED, (void *)(uintptr_t)y,
                                  N * sizeof(float));
    CHECK(cuGraphAddMemcpyNode(&nback, g, &nhost, 1, &cout_, NULL) == CUDA_SUCCESS);
    CUgraphNode ends[2] = {nback, nrec};
    CHECK(cuGraphAddEmptyNode(&nempty, g, ends, 2) == CUDA_SUCCESS);
    size_t count = 0;
    CHECK(cudaGraphGetNodes((cudaGraph_t)g, NULL, &count) == cudaSuccess && count == 8); /* the runtime's graph */
    enum cudaGraphNodeType t;
    CHECK(cudaGraphNodeGetType((cudaGraphNode_t)nset, &t) == cudaSuccess && t == cudaGraphNodeTypeMemset);
    struct cudaMemsetParams rms;
    CHECK(cudaGraphMemsetNodeGetParams((cudaGraphNode_t)nset, &rms) == cudaSuccess && rms.elementSize == 4);
    struct cudaMemcpy3DParms rcp;
    CHECK(cudaGraphMemcpyNodeGetParams((cudaGraphNode_t)ncopy, &rcp) == cudaSuccess &&
          rcp.kind == cudaMemcpyHostToDevice && rcp.extent.width == N * sizeof(float) && rcp.srcPtr.pitch == 0);
    CHECK(cudaGraphMemcpyNodeGetParams((cudaGraphNode_t)nback, &rcp) == cudaSuccess &&
          rcp.kind == cudaMemcpyDefault);
    memset(buf, 0, sizeof buf); /* the node copied the extra buffer */

    CUgraphExec e = NULL;
    CHECK(cuGraphInstantiateWithFlags(&e, g, 0) == CUDA_SUCCESS);
    memset(out, 0, N * sizeof(float));
    CHECK(cuMemsetD8Async(y, 0, N * sizeof(float), s) == CUDA_SUCCESS);
    CHECK(cuGraphLaunch(e, s) == CUDA_SUCCESS);
    CHECK(cuEventSynchronize(ev) == CUDA_SUCCESS);
    CHECK(cuStreamSynchronize(s) == CUDA_SUCCESS);
    CHECK(memcmp(out, eager, sizeof eager) == 0 && cnt.total == 2);
    /* Through the runtime: the same exec. */
    memset(out, 0, N * sizeof(float));
    CHECK(cudaGraphLaunch((cudaGraphExec_t)e, (cudaStream_t)s) == cudaSuccess);
    CHECK(cudaStreamSynchronize((cudaStream_t)s) == cudaSuccess);
    CHECK(memcmp(out, eager, sizeof eager) == 0 && cnt.total == 3);

    /* Exec SetParams: a new scalar, a new memset value, a new source, a new host step. */
    float a2 = -2.0f;
    void *axpy2[] = {&a2, &x, &y, (void *)&n};
    kp.kernelParams = axpy2;
    CHECK(cuGraphExecKernelNodeSetParams(e, naxpy, &kp) == CUDA_SUCCESS);
    CUDA_MEMSET_NODE_PARAMS ms2 = {y, 0, 0x40000000u, 4, N, 1}; /* 2.0f */
    CHECK(cuGraphExecMemsetNodeSetParams(e, nset, &ms2, NULL) == CUDA_SUCCESS);
    float *in2 = NULL;
    CHECK(cuMemAllocHost((void **)&in2, N * sizeof(float)) == CUDA_SUCCESS);
    for (int i = 0; i < N; i++)
        in2[i] = 1.0f;
    CUDA_MEMCPY3D cin2 = copy_1d(CU_MEMORYTYPE_DEVICE, (void *)(uintptr_t)x, CU_MEMORYTYPE_HOST, in2,
                                 N * sizeof(float));
    CHECK(cuGraphExecMemcpyNodeSetParams(e, ncopy, &cin2, NULL) == CUDA_SUCCESS);
    struct counter cnt2 = {0, 10};
    CUDA_HOST_NODE_PARAMS hp2 = {count_host, &cnt2};
    CHECK(cuGraphExecHostNodeSetParams(e, nhost, &hp2) == CUDA_SUCCESS);
    CHECK(cuGraphExecHostNodeSetParams(e, nset, &hp2) == CUDA_ERROR_INVALID_VALUE); /* not a host node */
    /* Moving the copy's destination to host memory changes its memory type: refused. */
    CUDA_MEMCPY3D cbad = copy_1d(CU_MEMORYTYPE_HOST, in, CU_MEMORYTYPE_HOST, in2, N * sizeof(float));
    CHECK(cuGraphExecMemcpyNodeSetParams(e, ncopy, &cbad, NULL) == CUDA_ERROR_INVALID_VALUE);
    CHECK(cuGraphLaunch_ptsz(e, s) == CUDA_SUCCESS);
    CHECK(cuStreamSynchronize(s) == CUDA_SUCCESS);
    CHECK(out[0] == (-2.0f * 1.0f + 2.0f) * 0.5f && out[N - 1] == 0.0f);
    CHECK(cnt.total == 3 && cnt2.total == 10);
    /* The graph itself was not changed by the exec's SetParams. */
    CUgraphExec e2 = NULL;
    CHECK(cuGraphInstantiateWithFlags(&e2, g, 0) == CUDA_SUCCESS);
    CHECK(cuGraphLaunch(e2, s) == CUDA_SUCCESS && cuStreamSynchronize(s) == CUDA_SUCCESS);
    CHECK(memcmp(out, eager, sizeof eager) == 0 && cnt.total == 4);

    /* An event wait node orders a second graph after a record on another stream; a memset of 16-bit elements. */
    CUgraph g2 = NULL;
    CUgraphNode nwait, nset16;
    CHECK(cuGraphCreate(&g2, 0) == CUDA_SUCCESS);
    CHECK(cuGraphAddEventWaitNode(&nwait, g2, NULL, 0, ev) == CUDA_SUCCESS);
    CUDA_MEMSET_NODE_PARAMS ms16 = {x, 0, 0xbeefu, 2, 2 * N, 1};
    CHECK(cuGraphAddMemsetNode(&nset16, g2, &nwait, 1, &ms16, NULL) == CUDA_SUCCESS);
    CUDA_MEMSET_NODE_PARAMS ms3 = {x, 0, 1, 3, N, 1};
    CHECK(cuGraphAddMemsetNode(&nset16, g2, NULL, 0, &ms3, NULL) == CUDA_ERROR_INVALID_VALUE);
    CUgraphExec e3 = NULL;
    CHECK(cuGraphInstantiateWithFlags(&e3, g2, 0) == CUDA_SUCCESS);
    CHECK(cuGraphLaunch(e3, NULL) == CUDA_SUCCESS);
    uint16_t h16[2 * N];
    CHECK(cuMemcpyDtoH(h16, x, sizeof h16) == CUDA_SUCCESS);
    CHECK(h16[0] == 0xbeef && h16[2 * N - 1] == 0xbeef);

    /* The executable graphs' event nodes take another event: e's record node records ev2 (its elapsed time with
       itself needs a record), e3's wait node waits for ev2, recorded after a host function on another stream:
       the host node after the wait sees what that function did. */
    CUevent ev2 = NULL;
    CUstream s2 = NULL;
    CHECK(cuEventCreate(&ev2, CU_EVENT_DEFAULT) == CUDA_SUCCESS);
    CHECK(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS);
    float elapsed = -1;
    CHECK(cuEventElapsedTime(&elapsed, ev2, ev2) == CUDA_ERROR_INVALID_HANDLE); /* never recorded */
    CHECK(cuGraphExecEventRecordNodeSetEvent(e, nrec, ev2) == CUDA_SUCCESS);
    CHECK(cuGraphExecEventRecordNodeSetEvent(e, nhost, ev2) == CUDA_ERROR_INVALID_VALUE); /* not a record node */
    CHECK(cuGraphExecEventWaitNodeSetEvent(e, nrec, ev2) == CUDA_ERROR_INVALID_VALUE);    /* not a wait node */
    CHECK(cuGraphExecEventRecordNodeSetEvent(e, nrec, NULL) != CUDA_SUCCESS);
    CHECK(cuGraphLaunch(e, s) == CUDA_SUCCESS && cuStreamSynchronize(s) == CUDA_SUCCESS);
    CHECK(cuEventElapsedTime(&elapsed, ev2, ev2) == CUDA_SUCCESS && elapsed == 0.0f);
    CUgraph g3 = NULL;
    CUgraphNode nwait3, nseen;
    struct counter done = {0, 1};
    struct order_check seen = {&done, 0, 0};
    CHECK(cuGraphCreate(&g3, 0) == CUDA_SUCCESS);
    CHECK(cuGraphAddEventWaitNode(&nwait3, g3, NULL, 0, ev) == CUDA_SUCCESS);
    CUDA_HOST_NODE_PARAMS hseen = {check_order, &seen};
    CHECK(cuGraphAddHostNode(&nseen, g3, &nwait3, 1, &hseen) == CUDA_SUCCESS);
    CUgraphExec e4 = NULL;
    CHECK(cuGraphInstantiateWithFlags(&e4, g3, 0) == CUDA_SUCCESS);
    CHECK(cuGraphExecEventWaitNodeSetEvent(e4, nwait3, ev2) == CUDA_SUCCESS);
    CHECK(cuGraphExecEventWaitNodeSetEvent(e4, nseen, ev2) == CUDA_ERROR_INVALID_VALUE); /* not a wait node */
    for (int round = 1; round <= 20; round++) {
        seen.want = round;
        CHECK(cuLaunchHostFunc(s2, count_host, &done) == CUDA_SUCCESS);
        CHECK(cuEventRecord(ev2, s2) == CUDA_SUCCESS);
        CHECK(cuGraphLaunch(e4, s) == CUDA_SUCCESS);
        CHECK(cuStreamSynchronize(s) == CUDA_SUCCESS && cuStreamSynchronize(s2) == CUDA_SUCCESS);
    }
    CHECK(done.total == 20 && seen.in_order == 20);
    CHECK(cuGraphExecDestroy(e4) == CUDA_SUCCESS && cuGraphDestroy(g3) == CUDA_SUCCESS);
    CHECK(cuEventDestroy(ev2) == CUDA_SUCCESS && cuStreamDestroy(s2) == CUDA_SUCCESS);

    CHECK(cuGraphExecDestroy(e) == CUDA_SUCCESS && cuGraphExecDestroy(e2) == CUDA_SUCCESS);
    CHECK(cuGraphExecDestroy(e3) == CUDA_SUCCESS);
    CHECK(cuGraphExecDestroy(e3) == CUDA_ERROR_INVALID_VALUE);
    CHECK(cuGraphDestroy(g) == CUDA_SUCCESS && cuGraphDestroy(g2) == CUDA_SUCCESS);
    CHECK(cuEventDestroy(ev) == CUDA_SUCCESS);
    CHECK(cuMemFreeHost(in) == CUDA_SUCCESS && cuMemFreeHost(in2) == CUDA_SUCCESS);
    CHECK(cuMemFreeHost(out) == CUDA_SUCCESS);
    CHECK(cuMemFree(x) == CUDA_SUCCESS && cuMemFree(y) == CUDA_SUCCESS);
    CHECK(cuStreamDestroy(s) == CUDA_SUCCESS);
}

/* Runs every test. */

/* ------------------------------------------------------------ lifetimes: modules, libraries, the context */

/* A graph of one node running f (k_fill: x = 1.0f), and its executable graph. */
static void fill_graph(CUfunction f, CUdeviceptr x, CUgraph *g, CUgraphNode *node, CUgraphExec *e)
{
    float one = 1.0f;
    int n = N;
    void *args[] = {&x, &one, &n};
    CUDA_KERNEL_NODE_PARAMS kp;
    memset(&kp, 0, sizeof kp);
    kp.func = f;
    kp.gridDimX = 2, kp.gridDimY = kp.gridDimZ = 1;
    kp.blockDimX = 256, kp.blockDimY = kp.blockDimZ = 1;
    kp.kernelParams = args;
    CHECK(cuGraphCreate(g, 0) == CUDA_SUCCESS);
    CHECK(cuGraphAddKernelNode(node, *g, NULL, 0, &kp) == CUDA_SUCCESS);
    CHECK(cuGraphInstantiate(e, *g, 0) == CUDA_SUCCESS);
}

/* Every use of a dead function or kernel handle is CUDA_ERROR_INVALID_HANDLE (graph is a live graph). */
static void check_dead(CUfunction f, CUdeviceptr x, CUgraph graph)
{
    float v = 2.0f;
    int n = N;
    void *args[] = {&x, &v, &n};
    size_t off = 0, size = 0;
    const char *name = NULL;
    CUmodule m = NULL;
    CUgraphNode node = NULL;
    CHECK(cuLaunchKernel(f, 2, 1, 1, 256, 1, 1, 0, NULL, args, NULL) == CUDA_ERROR_INVALID_HANDLE);
    CHECK(cuFuncGetParamInfo(f, 0, &off, &size) == CUDA_ERROR_INVALID_HANDLE);
    CHECK(cuFuncGetName(&name, f) == CUDA_ERROR_INVALID_HANDLE);
    CHECK(cuFuncGetModule(&m, f) == CUDA_ERROR_INVALID_HANDLE);
    CUDA_KERNEL_NODE_PARAMS kp;
    memset(&kp, 0, sizeof kp);
    kp.func = f;
    kp.gridDimX = kp.gridDimY = kp.gridDimZ = 1;
    kp.blockDimX = 256, kp.blockDimY = kp.blockDimZ = 1;
    kp.kernelParams = args;
    CHECK(cuGraphAddKernelNode(&node, graph, NULL, 0, &kp) == CUDA_ERROR_INVALID_HANDLE);
}

/* Modules: per-module function handles, cuFuncGetModule; an unload kills them (the graph holding one may go). */
static void test_module_lifetime(void)
{
    CUmodule m = NULL, owner = NULL, runtime = NULL;
    CUfunction fill = NULL, again = NULL, other = NULL;
    CUdeviceptr x = 0;
    CUgraph g = NULL, g2 = NULL;
    CUgraphNode node = NULL;
    CUgraphExec e = NULL;
    CHECK(cuMemAlloc(&x, N * sizeof(float)) == CUDA_SUCCESS);
    CHECK(cuModuleLoadData(&m, "image") == CUDA_SUCCESS);
    CHECK(cuModuleGetFunction(&fill, m, "k_fill") == CUDA_SUCCESS && fill != (CUfunction)(void *)k_fill);
    CHECK(cuModuleGetFunction(&again, m, "k_fill") == CUDA_SUCCESS && again == fill);
    CHECK(cuFuncGetModule(&owner, fill) == CUDA_SUCCESS && owner == m);
    CHECK(cuFuncGetModule(&runtime, (CUfunction)(void *)k_fill) == CUDA_SUCCESS && runtime != NULL && runtime != m);
    CHECK(cuModuleGetFunction(&other, runtime, "k_scale") == CUDA_SUCCESS && other == (CUfunction)(void *)k_scale);
    CHECK(cuModuleUnload(runtime) == CUDA_ERROR_NOT_PERMITTED);
    fill_graph(fill, x, &g, &node, &e);
    CHECK(cuGraphLaunch(e, NULL) == CUDA_SUCCESS && all_equal(x, N, 1.0f));

    CHECK(cuModuleUnload(m) == CUDA_SUCCESS);
    CHECK(cuModuleUnload(m) == CUDA_ERROR_INVALID_HANDLE);
    CHECK(cuModuleGetFunction(&again, m, "k_fill") == CUDA_ERROR_INVALID_HANDLE);
    CHECK(cuGraphCreate(&g2, 0) == CUDA_SUCCESS);
    check_dead(fill, x, g2);
    CUDA_KERNEL_NODE_PARAMS kp;
    memset(&kp, 0, sizeof kp);
    kp.func = fill;
    CHECK(cuGraphExecKernelNodeSetParams(e, node, &kp) == CUDA_ERROR_INVALID_HANDLE);
    /* What holds a dead function may still be destroyed. */
    CHECK(cuGraphExecDestroy(e) == CUDA_SUCCESS && cuGraphDestroy(g) == CUDA_SUCCESS);
    CHECK(cuGraphDestroy(g2) == CUDA_SUCCESS);
    /* Unless STANDIN_REUSE_HANDLES=1, a dead handle is never handed out again. */
    CHECK(cuModuleLoadData(&m, "image") == CUDA_SUCCESS);
    CHECK(cuModuleGetFunction(&again, m, "k_fill") == CUDA_SUCCESS && again != fill);
    CHECK(cuModuleUnload(m) == CUDA_SUCCESS);
    CHECK(cuMemFree(x) == CUDA_SUCCESS);
}

/* Libraries: kernels, their functions, cuKernelGetLibrary, cuLibraryGetModule; an unload kills both. */
static void test_library_lifetime(void)
{
    CUlibrary lib = NULL, file = NULL, owner = NULL;
    CUkernel k = NULL, again = NULL;
    CUfunction f = NULL, f2 = NULL;
    CUmodule mod = NULL, fmod = NULL, plain = NULL;
    CUdeviceptr x = 0;
    CUgraph g = NULL;
    float two = 2.0f;
    int n = N;
    void *args[] = {&x, &two, &n};
    CHECK(cuMemAlloc(&x, N * sizeof(float)) == CUDA_SUCCESS);
    CHECK(cuLibraryLoadData(&lib, "image", NULL, NULL, 0, NULL, NULL, 0) == CUDA_SUCCESS && lib != NULL);
    CHECK(cuLibraryLoadFromFile(&file, "/nonexistent/kernels.fatbin", NULL, NULL, 0, NULL, NULL, 0) ==
          CUDA_SUCCESS && file != lib);
    CHECK(cuLibraryLoadData(&owner, NULL, NULL, NULL, 0, NULL, NULL, 0) == CUDA_ERROR_INVALID_VALUE);
    CHECK(cuLibraryGetKernel(&k, lib, "k_fill") == CUDA_SUCCESS && k != (CUkernel)(void *)k_fill);
    CHECK(cuLibraryGetKernel(&again, lib, "k_fill") == CUDA_SUCCESS && again == k);
    CHECK(cuLibraryGetKernel(&again, lib, "k_no_such_kernel") == CUDA_ERROR_NOT_FOUND);
    CHECK(cuKernelGetLibrary(&owner, k) == CUDA_SUCCESS && owner == lib);
    CHECK(cuKernelGetLibrary(&owner, (CUkernel)(void *)k_fill) == CUDA_ERROR_INVALID_HANDLE);
    CHECK(cuKernelGetFunction(&f, k) == CUDA_SUCCESS && f != NULL && f != (CUfunction)(void *)k);
    CHECK(cuKernelGetFunction(&f2, k) == CUDA_SUCCESS && f2 == f);
    CHECK(cuLibraryGetModule(&mod, lib) == CUDA_SUCCESS && cuFuncGetModule(&fmod, f) == CUDA_SUCCESS && fmod == mod);
    CHECK(cuModuleGetFunction(&f2, mod, "k_fill") == CUDA_SUCCESS && f2 == f);
    CHECK(cuModuleUnload(mod) == CUDA_ERROR_NOT_PERMITTED);
    CHECK(cuModuleLoadData(&plain, "image") == CUDA_SUCCESS);
    CHECK(cuLibraryUnload((CUlibrary)(void *)plain) == CUDA_ERROR_INVALID_HANDLE);
    CHECK(cuLibraryGetKernel(&again, (CUlibrary)(void *)plain, "k_fill") == CUDA_ERROR_INVALID_HANDLE);
    CHECK(cuModuleUnload(plain) == CUDA_SUCCESS);
    /* Its function and the kernel itself launch the twin. */
    CHECK(cuLaunchKernel(f, 2, 1, 1, 256, 1, 1, 0, NULL, args, NULL) == CUDA_SUCCESS && all_equal(x, N, 2.0f));
    two = 3.0f;
    CHECK(cuLaunchKernel((CUfunction)(void *)k, 2, 1, 1, 256, 1, 1, 0, NULL, args, NULL) == CUDA_SUCCESS);
    CHECK(all_equal(x, N, 3.0f));

    CHECK(cuLibraryUnload(lib) == CUDA_SUCCESS);
    CHECK(cuLibraryUnload(lib) == CUDA_ERROR_INVALID_HANDLE);
    CHECK(cuGraphCreate(&g, 0) == CUDA_SUCCESS);
    check_dead(f, x, g);
    check_dead((CUfunction)(void *)k, x, g);
    CHECK(cuKernelGetFunction(&f2, k) == CUDA_ERROR_INVALID_HANDLE);
    CHECK(cuKernelGetLibrary(&owner, k) == CUDA_ERROR_INVALID_HANDLE);
    CHECK(cuGraphDestroy(g) == CUDA_SUCCESS);
    CHECK(cuLibraryUnload(file) == CUDA_SUCCESS);
    CHECK(cuMemFree(x) == CUDA_SUCCESS);
}

/* Drops every retain of the primary context made so far (the last release resets it). */
static void release_all_retains(void)
{
    while (cuDevicePrimaryCtxRelease(0) == CUDA_SUCCESS)
        continue;
    CHECK(cuDevicePrimaryCtxRelease(0) == CUDA_ERROR_INVALID_CONTEXT);
}

/* A reset runs the queue, kills the streams, events, graphs and modules made before, clears a device fault;
 * libraries stay; the context comes back; the last release resets too, and cudaDeviceReset. */
static void test_context_reset(void)
{
    CUcontext before = NULL, after = NULL;
    CUstream s = NULL, fresh = NULL;
    CUevent ev = NULL;
    CUgraph g = NULL;
    CUgraphNode node = NULL;
    CUgraphExec e = NULL;
    CUmodule m = NULL;
    CUlibrary lib = NULL;
    CUkernel k = NULL;
    CUfunction f = NULL, kf = NULL, kf2 = NULL;
    CUdeviceptr x = 0;
    float two = 2.0f;
    int n = N;
    void *args[] = {&x, &two, &n};
    CHECK(cuCtxGetCurrent(&before) == CUDA_SUCCESS);
    CHECK(cuMemAlloc(&x, N * sizeof(float)) == CUDA_SUCCESS);
    CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS);
    CHECK(cuEventCreate(&ev, CU_EVENT_DEFAULT) == CUDA_SUCCESS);
    fill_graph((CUfunction)(void *)k_fill, x, &g, &node, &e);
    CHECK(cuModuleLoadData(&m, "image") == CUDA_SUCCESS && cuModuleGetFunction(&f, m, "k_fill") == CUDA_SUCCESS);
    CHECK(cuLibraryLoadData(&lib, "image", NULL, NULL, 0, NULL, NULL, 0) == CUDA_SUCCESS);
    CHECK(cuLibraryGetKernel(&k, lib, "k_fill") == CUDA_SUCCESS && cuKernelGetFunction(&kf, k) == CUDA_SUCCESS);
    /* Queued work runs before the context goes. */
    CHECK(cuLaunchKernel(f, 2, 1, 1, 256, 1, 1, 0, s, args, NULL) == CUDA_SUCCESS);
    CHECK(cuEventRecord(ev, s) == CUDA_SUCCESS);

    unsigned flags = 1;
    int active = 0;
    CHECK(cuDevicePrimaryCtxGetState(0, &flags, &active) == CUDA_SUCCESS && flags == 0 && active == 1);
    CHECK(cuDevicePrimaryCtxReset(0) == CUDA_SUCCESS);
    CHECK(cuDevicePrimaryCtxGetState(0, &flags, &active) == CUDA_SUCCESS && active == 0);
    CHECK(all_equal(x, N, 2.0f));
    CHECK(cuDevicePrimaryCtxGetState(0, &flags, &active) == CUDA_SUCCESS && active == 1);
    CHECK(cuStreamSynchronize(s) == CUDA_ERROR_CONTEXT_IS_DESTROYED);
    CHECK(cuLaunchKernel((CUfunction)(void *)k_fill, 2, 1, 1, 256, 1, 1, 0, s, args, NULL) ==
          CUDA_ERROR_CONTEXT_IS_DESTROYED);
    CHECK(cuEventQuery(ev) == CUDA_ERROR_CONTEXT_IS_DESTROYED);
    CHECK(cuEventRecord(ev, NULL) == CUDA_ERROR_CONTEXT_IS_DESTROYED);
    CHECK(cuGraphInstantiate(&e, g, 0) == CUDA_ERROR_CONTEXT_IS_DESTROYED);
    CHECK(cuModuleGetFunction(&f, m, "k_fill") == CUDA_ERROR_INVALID_HANDLE);
    CHECK(cuLaunchKernel(f, 2, 1, 1, 256, 1, 1, 0, NULL, args, NULL) == CUDA_ERROR_INVALID_HANDLE);
    CHECK(cuLaunchKernel(kf, 2, 1, 1, 256, 1, 1, 0, NULL, args, NULL) == CUDA_ERROR_INVALID_HANDLE);
    /* The library and its kernel stay; the kernel has a new function in the new context. */
    CHECK(cuKernelGetFunction(&kf2, k) == CUDA_SUCCESS && kf2 != kf);
    two = 4.0f;
    CHECK(cuLaunchKernel(kf2, 2, 1, 1, 256, 1, 1, 0, NULL, args, NULL) == CUDA_SUCCESS && all_equal(x, N, 4.0f));
    /* The context is back, under the same handle: new objects work. */
    CHECK(cuCtxGetCurrent(&after) == CUDA_SUCCESS && after == before);
    CHECK(cuStreamCreate(&fresh, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS && fresh != s);
    fill_graph((CUfunction)(void *)k_fill, x, &g, &node, &e);
    CHECK(cuGraphLaunch(e, fresh) == CUDA_SUCCESS && cuStreamSynchronize(fresh) == CUDA_SUCCESS);
    CHECK(all_equal(x, N, 1.0f));
    CHECK(cuGraphExecDestroy(e) == CUDA_SUCCESS && cuGraphDestroy(g) == CUDA_SUCCESS);

    /* A device fault is cleared by a reset. */
    int *bad = (int *)(uintptr_t)16, v = 1;
    void *poke[] = {&bad, &v};
    CHECK(cuLaunchKernel((CUfunction)(void *)k_poke, 1, 1, 1, 32, 1, 1, 0, fresh, poke, NULL) == CUDA_SUCCESS);
    CHECK(cuStreamSynchronize(fresh) == CUDA_ERROR_ILLEGAL_ADDRESS);
    CHECK(cuCtxDestroy(after) == CUDA_SUCCESS);
    CHECK(cuCtxSynchronize() == CUDA_SUCCESS);
    CHECK(cuCtxDestroy((CUcontext)(void *)&bad) == CUDA_ERROR_INVALID_CONTEXT);

    /* The last release resets; an earlier one does not. */
    release_all_retains();
    CUcontext ctx = NULL;
    CHECK(cuDevicePrimaryCtxRetain(&ctx, 0) == CUDA_SUCCESS && cuDevicePrimaryCtxRetain(&ctx, 0) == CUDA_SUCCESS);
    CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS);
    CHECK(cuDevicePrimaryCtxRelease(0) == CUDA_SUCCESS && cuStreamQuery(s) == CUDA_SUCCESS);
    CHECK(cuDevicePrimaryCtxRelease(0) == CUDA_SUCCESS && cuStreamQuery(s) == CUDA_ERROR_CONTEXT_IS_DESTROYED);

    /* cudaDeviceReset too (through the driver). */
    cudaStream_t rs = NULL;
    CHECK(cudaStreamCreate(&rs) == cudaSuccess);
    CHECK(cudaDeviceReset() == cudaSuccess);
    CHECK(cudaStreamQuery(rs) == cudaErrorContextIsDestroyed);
    CHECK(cudaGetLastError() == cudaErrorContextIsDestroyed);
    CHECK(cuLibraryUnload(lib) == CUDA_SUCCESS);
    CHECK(cuMemFree(x) == CUDA_SUCCESS);
}

/* STANDIN_REUSE_HANDLES=1 (run as `test_driver_standin reuse`): the n-th function (kernel) of a module
 * (library) loaded after an unload is the handle the n-th of the unloaded one was, naming what it is asked for
 * now; the graph made before the unload is still of a dead function (the `launch-reused` case). */
static int reuse_case(void)
{
    CUmodule m1 = NULL, m2 = NULL, m3 = NULL;
    CUfunction fill = NULL, axpy = NULL, first = NULL, second = NULL, other = NULL;
    CUlibrary l1 = NULL, l2 = NULL;
    CUkernel k1 = NULL, k2 = NULL;
    size_t off = 0, size = 0;
    const char *name = NULL;
    CHECK(cuModuleLoadData(&m1, "image") == CUDA_SUCCESS);
    CHECK(cuModuleGetFunction(&fill, m1, "k_fill") == CUDA_SUCCESS);
    CHECK(cuModuleGetFunction(&axpy, m1, "k_axpy") == CUDA_SUCCESS);
    CHECK(cuModuleUnload(m1) == CUDA_SUCCESS);
    CHECK(cuModuleLoadData(&m2, "image") == CUDA_SUCCESS);
    CHECK(cuModuleGetFunction(&first, m2, "k_axpy") == CUDA_SUCCESS && first == fill);
    CHECK(cuModuleGetFunction(&second, m2, "k_fill") == CUDA_SUCCESS && second == axpy);
    CHECK(cuFuncGetName(&name, first) == CUDA_SUCCESS && strcmp(name, "k_axpy") == 0);
    CHECK(cuFuncGetParamInfo(first, 3, &off, &size) == CUDA_SUCCESS);        /* k_fill had 3 parameters */
    CHECK(cuModuleLoadData(&m3, "image") == CUDA_SUCCESS);
    CHECK(cuModuleGetFunction(&other, m3, "k_fill") == CUDA_SUCCESS && other != fill && other != axpy);
    CHECK(cuLibraryLoadData(&l1, "image", NULL, NULL, 0, NULL, NULL, 0) == CUDA_SUCCESS);
    CHECK(cuLibraryGetKernel(&k1, l1, "k_scale") == CUDA_SUCCESS && cuLibraryUnload(l1) == CUDA_SUCCESS);
    CHECK(cuLibraryLoadData(&l2, "image", NULL, NULL, 0, NULL, NULL, 0) == CUDA_SUCCESS);
    CHECK(cuLibraryGetKernel(&k2, l2, "k_fill") == CUDA_SUCCESS && k2 == k1);
    return check_result("test_driver_standin reuse");
}

/* One case that must abort the process, as the real driver crashes (run as `test_driver_standin CASE`). */
static int abort_case(const char *name)
{
    CUmodule m = NULL;
    CUlibrary lib = NULL;
    CUkernel k = NULL;
    CUfunction f = (CUfunction)(void *)k_fill, again = NULL;
    CUdeviceptr x = 0;
    CUstream s = NULL;
    CUevent ev = NULL;
    CUgraph g = NULL;
    CUgraphNode node = NULL;
    CUgraphExec e = NULL;
    CHECK(cuMemAlloc(&x, N * sizeof(float)) == CUDA_SUCCESS);
    CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS);
    CHECK(cuEventCreate(&ev, CU_EVENT_DEFAULT) == CUDA_SUCCESS);
    if (strncmp(name, "library", 7) == 0) {
        CHECK(cuLibraryLoadData(&lib, "image", NULL, NULL, 0, NULL, NULL, 0) == CUDA_SUCCESS);
        CHECK(cuLibraryGetKernel(&k, lib, "k_fill") == CUDA_SUCCESS && cuKernelGetFunction(&f, k) == CUDA_SUCCESS);
    } else if (strstr(name, "unloaded") || strstr(name, "reused")) {
        CHECK(cuModuleLoadData(&m, "image") == CUDA_SUCCESS && cuModuleGetFunction(&f, m, "k_fill") == CUDA_SUCCESS);
    }
    fill_graph(f, x, &g, &node, &e);
    if (lib)
        CHECK(cuLibraryUnload(lib) == CUDA_SUCCESS);
    if (m)
        CHECK(cuModuleUnload(m) == CUDA_SUCCESS);
    if (strstr(name, "reused")) {
        CHECK(cuModuleLoadData(&m, "image") == CUDA_SUCCESS);
        CHECK(cuModuleGetFunction(&again, m, "k_fill") == CUDA_SUCCESS && again == f);
    }
    if (strncmp(name, "reset", 5) == 0)
        CHECK(cuDevicePrimaryCtxReset(0) == CUDA_SUCCESS);
    if (strncmp(name, "runtime-reset", 13) == 0)
        CHECK(cudaDeviceReset() == cudaSuccess);
    if (check_failures)
        return check_result(name);
    CUDA_KERNEL_NODE_PARAMS kp;
    memset(&kp, 0, sizeof kp);
    if (strstr(name, "instantiate"))
        (void)cuGraphInstantiate(&e, g, 0);
    else if (strstr(name, "exec-destroy") && strncmp(name, "runtime", 7) == 0)
        (void)cudaGraphExecDestroy((cudaGraphExec_t)e);
    else if (strstr(name, "exec-destroy"))
        (void)cuGraphExecDestroy(e);
    else if (strstr(name, "graph-destroy"))
        (void)cuGraphDestroy(g);
    else if (strstr(name, "stream-destroy"))
        (void)cuStreamDestroy(s);
    else if (strstr(name, "event-destroy"))
        (void)cuEventDestroy(ev);
    else if (strstr(name, "exec-set"))
        (void)cuGraphExecKernelNodeSetParams(e, node, &kp);
    else
        (void)cuGraphLaunch(e, NULL);
    fprintf(stderr, "%s: did not abort\n", name);
    return 2;
}

/* Each abort case, its environment and what it says on stderr before it aborts. */
static const struct {
    const char *name, *reuse, *says;
} abort_cases[] = {
    {"launch-unloaded", "0", "standin: cuGraphLaunch: graph node 0 runs a function of an unloaded module"},
    {"instantiate-unloaded", "0", "standin: cuGraphInstantiate: graph node 0 runs a function of an unloaded module"},
    {"library-launch-unloaded", "0", "standin: cuGraphLaunch: graph node 0 runs a function of an unloaded module"},
    {"launch-reused", "1", "standin: cuGraphLaunch: graph node 0 runs a function of an unloaded module"},
    {"reset-launch", "0", "standin: cuGraphLaunch: graph executable 0x"},
    {"reset-exec-destroy", "0", "standin: cuGraphExecDestroy: graph executable 0x"},
    {"reset-graph-destroy", "0", "standin: cuGraphDestroy: graph 0x"},
    {"reset-stream-destroy", "0", "standin: cuStreamDestroy: stream 0x"},
    {"reset-event-destroy", "0", "standin: cuEventDestroy: event 0x"},
    {"reset-exec-set", "0", "standin: cuGraphExecKernelNodeSetParams: graph executable 0x"},
    {"runtime-reset-exec-destroy", "0", "standin: cudaGraphExecDestroy: graph executable 0x"},
};

/* Runs this program again as `self name` with STANDIN_REUSE_HANDLES=reuse; its stderr into err, its status. */
static int run_self(const char *name, const char *reuse, char *err, size_t size)
{
    int fds[2], status = 0;
    char var[64];
    snprintf(var, sizeof var, "STANDIN_REUSE_HANDLES=%s", reuse);
    char *const argv[] = {(char *)"test_driver_standin", (char *)name, NULL};
    char *const envp[] = {var, NULL};
    if (pipe(fds) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        struct rlimit no_core = {0, 0};
        (void)setrlimit(RLIMIT_CORE, &no_core);
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        close(fds[0]);
        execve("/proc/self/exe", argv, envp);
        _exit(127);
    }
    close(fds[1]);
    size_t used = 0;
    ssize_t got = 0;
    while (used + 1 < size && (got = read(fds[0], err + used, size - 1 - used)) > 0)
        used += (size_t)got;
    err[used] = '\0';
    close(fds[0]);
    waitpid(pid, &status, 0);
    return status;
}

/* Every abort case aborts, saying why; the reuse checks pass in a process of their own. */
static void test_lifetime_aborts(void)
{
    char err[4096];
    for (size_t i = 0; i < sizeof abort_cases / sizeof abort_cases[0]; i++) {
        int status = run_self(abort_cases[i].name, abort_cases[i].reuse, err, sizeof err);
        CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
        CHECK_CONTAINS(err, abort_cases[i].says);
    }
    int status = run_self("reuse", "1", err, sizeof err);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fputs(err, stderr);
}

/* The rules in order; run as `test_driver_standin CASE`, one case of the lifetime rules in a process of its own. */
int main(int argc, char **argv)
{
    if (argc > 1)
        return strcmp(argv[1], "reuse") == 0 ? reuse_case() : abort_case(argv[1]);
    test_capture();
    test_memory();
    test_get_proc_address();
    test_basics();
    test_kernels_and_modules();
    test_extra_form();
    test_memsets();
    test_pointers();
    test_ordering();
    test_graphs();
    test_driver_capture();
    test_programmatic_edges();
    CHECK(cudaGetLastError() == cudaSuccess); /* none of the driver's errors became the runtime's */
    test_module_lifetime();
    test_library_lifetime();
    test_lifetime_aborts();
    test_context_reset();
    return check_result("test_driver_standin");
}
