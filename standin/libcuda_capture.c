/* SPDX-License-Identifier: MIT */
/*
 * standin/libcuda_capture.c: the driver stand-in's captures:
 * cuStreamBeginCapture_v2 and cuStreamEndCapture (and their _ptsz twins),
 * the runtime stand-in's captures begun and ended through the driver (the
 * same modes, rules and errors as cudaStreamBeginCapture and
 * cudaStreamEndCapture: CUstreamCaptureMode has cudaStreamCaptureMode's
 * values), and the capture queries, cuStreamIsCapturing and
 * cuStreamGetCaptureInfo in each exported version (3 parameters, _v2, _v3)
 * and per-thread flavour (_ptsz: NULL is the per-thread stream). They
 * answer from the runtime stand-in's capture state, as
 * cudaStreamIsCapturing / cudaStreamGetCaptureInfo do: same statuses
 * (CUstreamCaptureStatus has cudaStreamCaptureStatus's values), same ids,
 * same graph and dependency nodes (the driver's and the runtime's handles
 * are the same objects, as in CUDA).
 */
#include "libcuda.h"

/* cuStreamBeginCapture_v2 (cuda.h's cuStreamBeginCapture). */
CUresult CUDAAPI cuStreamBeginCapture_v2(CUstream hStream, CUstreamCaptureMode mode)
{
    return cu_result(standin_driver_begin_capture((cudaStream_t)hStream, (enum cudaStreamCaptureMode)mode, false));
}

/* cuStreamBeginCapture_v2, per-thread default stream flavour. */
CUresult CUDAAPI cuStreamBeginCapture_v2_ptsz(CUstream hStream, CUstreamCaptureMode mode)
{
    return cu_result(standin_driver_begin_capture((cudaStream_t)hStream, (enum cudaStreamCaptureMode)mode, true));
}

/* cuStreamEndCapture. */
CUresult CUDAAPI cuStreamEndCapture(CUstream hStream, CUgraph *phGraph)
{
    return cu_result(standin_driver_end_capture((cudaStream_t)hStream, (cudaGraph_t *)phGraph, false));
}

/* cuStreamEndCapture, per-thread default stream flavour. */
CUresult CUDAAPI cuStreamEndCapture_ptsz(CUstream hStream, CUgraph *phGraph)
{
    return cu_result(standin_driver_end_capture((cudaStream_t)hStream, (cudaGraph_t *)phGraph, true));
}

/* The body of every version of the queries: the outputs it does not have are NULL. */
static CUresult capture_info(CUstream h, bool ptsz, CUstreamCaptureStatus *st, cuuint64_t *id, CUgraph *graph,
                             const CUgraphNode **deps, const CUgraphEdgeData **edges, size_t *ndeps)
{
    if (st == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    enum cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    unsigned long long capture_id = 0;
    CUresult r = cu_result(standin_driver_capture_info((cudaStream_t)h, ptsz, &status, &capture_id,
                                                       (cudaGraph_t *)graph, (const cudaGraphNode_t **)deps,
                                                       (const cudaGraphEdgeData **)edges, ndeps));
    if (r != CUDA_SUCCESS)
        return r;
    *st = (CUstreamCaptureStatus)status;
    if (id && status == cudaStreamCaptureStatusActive)
        *id = capture_id;
    return CUDA_SUCCESS;
}

/* cuStreamIsCapturing. */
CUresult CUDAAPI cuStreamIsCapturing(CUstream hStream, CUstreamCaptureStatus *captureStatus)
{
    return capture_info(hStream, false, captureStatus, NULL, NULL, NULL, NULL, NULL);
}

/* cuStreamIsCapturing, per-thread default stream flavour. */
CUresult CUDAAPI cuStreamIsCapturing_ptsz(CUstream hStream, CUstreamCaptureStatus *captureStatus)
{
    return capture_info(hStream, true, captureStatus, NULL, NULL, NULL, NULL, NULL);
}

/* cuStreamGetCaptureInfo of CUDA 10.1: status and id. */
CUresult CUDAAPI cuStreamGetCaptureInfo(CUstream hStream, CUstreamCaptureStatus *captureStatus_out, cuuint64_t *id_out)
{
    return capture_info(hStream, false, captureStatus_out, id_out, NULL, NULL, NULL, NULL);
}

/* cuStreamGetCaptureInfo of CUDA 10.1, per-thread default stream flavour. */
CUresult CUDAAPI cuStreamGetCaptureInfo_ptsz(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
                                             cuuint64_t *id_out)
{
    return capture_info(hStream, true, captureStatus_out, id_out, NULL, NULL, NULL, NULL);
}

/* cuStreamGetCaptureInfo_v2 (CUDA 11.3): also the graph and the dependency set. */
CUresult CUDAAPI cuStreamGetCaptureInfo_v2(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
                                           cuuint64_t *id_out, CUgraph *graph_out,
                                           const CUgraphNode **dependencies_out, size_t *numDependencies_out)
{
    return capture_info(hStream, false, captureStatus_out, id_out, graph_out, dependencies_out, NULL,
                        numDependencies_out);
}

/* cuStreamGetCaptureInfo_v2, per-thread default stream flavour. */
CUresult CUDAAPI cuStreamGetCaptureInfo_v2_ptsz(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
                                                cuuint64_t *id_out, CUgraph *graph_out,
                                                const CUgraphNode **dependencies_out, size_t *numDependencies_out)
{
    return capture_info(hStream, true, captureStatus_out, id_out, graph_out, dependencies_out, NULL,
                        numDependencies_out);
}

/* cuStreamGetCaptureInfo_v3 (CUDA 12.3, cuda.h's cuStreamGetCaptureInfo): also the edge data. */
CUresult CUDAAPI cuStreamGetCaptureInfo_v3(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
                                           cuuint64_t *id_out, CUgraph *graph_out,
                                           const CUgraphNode **dependencies_out, const CUgraphEdgeData **edgeData_out,
                                           size_t *numDependencies_out)
{
    return capture_info(hStream, false, captureStatus_out, id_out, graph_out, dependencies_out, edgeData_out,
                        numDependencies_out);
}

/* cuStreamGetCaptureInfo_v3, per-thread default stream flavour. */
CUresult CUDAAPI cuStreamGetCaptureInfo_v3_ptsz(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
                                                cuuint64_t *id_out, CUgraph *graph_out,
                                                const CUgraphNode **dependencies_out,
                                                const CUgraphEdgeData **edgeData_out, size_t *numDependencies_out)
{
    return capture_info(hStream, true, captureStatus_out, id_out, graph_out, dependencies_out, edgeData_out,
                        numDependencies_out);
}
