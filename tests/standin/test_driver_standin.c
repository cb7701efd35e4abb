/*
 * tests/standin/test_driver_standin.c: the driver stand-in
 * (tests/standin/libcuda*.c) answers as the runtime stand-in does: every
 * capture query (cuStreamIsCapturing, cuStreamGetCaptureInfo in its three
 * versions, the _ptsz twins) gives the runtime's status and id;
 * cuMemAllocAsync / cuMemFreeAsync become memory alloc and free nodes in a
 * capture and allocate device memory outside one; cuMemAlloc refuses size
 * 0; cuMemHostAlloc's mapped memory has its own address as device address;
 * cuGetProcAddress hands out the version a cudaVersion asks for.
 */
#include <stdint.h>
#include <string.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

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
}

/* Runs every test. */
int main(void)
{
    test_capture();
    test_memory();
    test_get_proc_address();
    return check_result("test_driver_standin");
}
