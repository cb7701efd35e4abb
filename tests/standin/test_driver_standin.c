/*
 * tests/standin/test_driver_standin.c: the driver stand-in
 * (tests/standin/libcuda*.c) answers as the runtime stand-in does: every
 * capture query (cuStreamIsCapturing, cuStreamGetCaptureInfo in its three
 * versions, the _ptsz twins) gives the runtime's status and id;
 * cuMemAllocAsync / cuMemFreeAsync become memory alloc and free nodes in a
 * capture and allocate device memory outside one; cuMemAlloc refuses size
 * 0; cuMemHostAlloc's mapped memory has its own address as device address;
 * cuGetProcAddress hands out the version a cudaVersion asks for.
 *
 * The driver front door: a graph built through the driver (kernel, memcpy,
 * memset, host, event record nodes) gives what the same calls made eagerly
 * give, launched through the driver or the runtime; exec SetParams changes
 * the next launch; the `extra` form equals the kernelParams form; memsets of
 * 8, 16 and 32-bit elements; pointer attributes; module lookup by name;
 * a driver launch after a runtime launch on one stream runs after it.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

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

    /* cuLaunchKernelEx: priority and cluster attributes accepted, others refused. */
    CUlaunchAttribute attrs[2];
    memset(attrs, 0, sizeof attrs);
    attrs[0].id = CU_LAUNCH_ATTRIBUTE_PRIORITY;
    attrs[1].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attrs[1].value.clusterDim.x = attrs[1].value.clusterDim.y = attrs[1].value.clusterDim.z = 1;
    CUlaunchConfig cfg = {1, 1, 1, 32, 1, 1, 0, NULL, attrs, 2};
    CHECK(cuLaunchKernelEx(&cfg, (CUfunction)(void *)k_empty, NULL, NULL) == CUDA_SUCCESS);
    attrs[1].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
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
    CHECK(cuModuleGetFunction(&f, m, "k_axpy") == CUDA_SUCCESS && f == axpy);
    CHECK(cuModuleGetFunction(&f, m2, "k_reduce_sum") == CUDA_SUCCESS && f == (CUfunction)(void *)k_reduce_sum);
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
int main(void)
{
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
    CHECK(cudaGetLastError() == cudaSuccess); /* none of the driver's errors became the runtime's */
    return check_result("test_driver_standin");
}
