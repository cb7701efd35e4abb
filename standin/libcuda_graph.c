/* SPDX-License-Identifier: MIT */
/*
 * standin/libcuda_graph.c: graphs through the driver stand-in. A
 * CUgraph, CUgraphNode and CUgraphExec are the runtime stand-in's own
 * cudaGraph_t, cudaGraphNode_t and cudaGraphExec_t (as in CUDA): a graph
 * built through the driver can be inspected, instantiated and launched
 * through the runtime, and the other way round. Each call converts the
 * driver's parameter block into the runtime's and reaches graph.c through
 * standin_driver_* (never the exported cudaGraph* names, which a shim may
 * hook).
 *
 * Kernel nodes (CUDA_KERNEL_NODE_PARAMS_v2): func, or kern when func is
 * NULL; kernelParams or extra (copied by value now, as the runtime does).
 * Memcpy nodes (CUDA_MEMCPY3D): memory types HOST, DEVICE or UNIFIED (the
 * direction follows from them: HOST to DEVICE is cudaMemcpyHostToDevice,
 * UNIFIED on either side cudaMemcpyDefault); arrays are not modelled
 * (CUDA_ERROR_INVALID_VALUE). A 1-D copy (Height = Depth = 1) is stored as a
 * captured cudaMemcpyAsync is (pitches 0). Memset nodes: elementSize 1, 2
 * or 4, any height. An executable graph's event record and wait nodes
 * take another event (cuGraphExecEvent{Record,Wait}NodeSetEvent).
 * cuGraphKernelNodeSetAttribute accepts priority
 * (kept: cuGraphKernelNodeGetAttribute reads it, and a graph instantiated
 * with CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY runs the node at it),
 * cluster dimension and cooperative on a kernel node, ignoring the last
 * two (anything else: CUDA_ERROR_INVALID_VALUE, the programmatic launch
 * attribute too: it is a launch's, not a node's). cuGraphAddDependencies_v2
 * takes edge data: a programmatic edge only between two kernel nodes
 * (graph.c says how it runs); cuGraphGetEdges_v2 reports it. The ctx
 * arguments are ignored (one context).
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "libcuda.h"

typedef cudaGraph_t RG;
typedef cudaGraphNode_t RN;
typedef cudaGraphExec_t RE;

/* The runtime's kernel node parameters for the driver's (args: room for an `extra` conversion). */
static CUresult kernel_params(struct cudaKernelNodeParams *out, const CUDA_KERNEL_NODE_PARAMS *p, void **args)
{
    if (p == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUfunction f = p->func ? p->func : (CUfunction)(void *)p->kern;
    void **argv = NULL;
    CUresult r = drv_launch_args(f, p->kernelParams, p->extra, args, &argv);
    if (r != CUDA_SUCCESS)
        return r;
    memset(out, 0, sizeof *out);
    out->func = (void *)f;
    out->gridDim = (dim3){p->gridDimX, p->gridDimY, p->gridDimZ};
    out->blockDim = (dim3){p->blockDimX, p->blockDimY, p->blockDimZ};
    out->sharedMemBytes = p->sharedMemBytes;
    out->kernelParams = argv;
    out->extra = NULL;
    return CUDA_SUCCESS;
}

/* One side of a copy: its pointer, and whether it is device memory for the direction (-1: unified). */
static CUresult copy_side(CUmemorytype t, const void *host, CUdeviceptr dev, void **ptr, int *device)
{
    switch (t) {
    case CU_MEMORYTYPE_HOST: *ptr = (void *)host; *device = 0; return CUDA_SUCCESS;
    case CU_MEMORYTYPE_DEVICE: *ptr = dev_ptr(dev); *device = 1; return CUDA_SUCCESS;
    case CU_MEMORYTYPE_UNIFIED: *ptr = dev_ptr(dev); *device = -1; return CUDA_SUCCESS;
    default: return CUDA_ERROR_INVALID_VALUE;  /* arrays: not modelled */
    }
}

/* The runtime's 3-D copy parameters for a CUDA_MEMCPY3D. */
static CUresult copy_params(struct cudaMemcpy3DParms *out, const CUDA_MEMCPY3D *p)
{
    void *src = NULL, *dst = NULL;
    int sdev = 0, ddev = 0;
    if (p == NULL || p->srcLOD != 0 || p->dstLOD != 0)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = copy_side(p->srcMemoryType, p->srcHost, p->srcDevice, &src, &sdev);
    if (r == CUDA_SUCCESS)
        r = copy_side(p->dstMemoryType, p->dstHost, p->dstDevice, &dst, &ddev);
    if (r != CUDA_SUCCESS)
        return r;
    memset(out, 0, sizeof *out);
    bool one_d = p->Height == 1 && p->Depth == 1 && p->srcY == 0 && p->srcZ == 0 && p->dstY == 0 && p->dstZ == 0;
    out->srcPtr = (struct cudaPitchedPtr){src, one_d ? 0 : p->srcPitch, one_d ? 0 : p->WidthInBytes,
                                          one_d ? 0 : p->srcHeight};
    out->dstPtr = (struct cudaPitchedPtr){dst, one_d ? 0 : p->dstPitch, one_d ? 0 : p->WidthInBytes,
                                          one_d ? 0 : p->dstHeight};
    out->srcPos = (struct cudaPos){p->srcXInBytes, p->srcY, p->srcZ};
    out->dstPos = (struct cudaPos){p->dstXInBytes, p->dstY, p->dstZ};
    out->extent = (struct cudaExtent){p->WidthInBytes, p->Height, p->Depth};
    if (sdev < 0 || ddev < 0)
        out->kind = cudaMemcpyDefault;
    else
        out->kind = sdev ? (ddev ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost)
                         : (ddev ? cudaMemcpyHostToDevice : cudaMemcpyHostToHost);
    return CUDA_SUCCESS;
}

/* The runtime's memset parameters for the driver's. */
static CUresult set_params(struct cudaMemsetParams *out, const CUDA_MEMSET_NODE_PARAMS *p)
{
    if (p == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *out = (struct cudaMemsetParams){dev_ptr(p->dst), p->height > 1 ? p->pitch : 0, p->value, p->elementSize,
                                     p->width, p->height};
    return CUDA_SUCCESS;
}

/*
 * STANDIN_FAIL_GRAPH_NODE=N (tests): the N-th node added through the
 * driver (any cuGraphAdd*Node but the empty one, counted from 1 across the
 * process) is refused with CUDA_ERROR_OUT_OF_MEMORY, as a driver out of
 * memory would refuse it, so that a graph's build fails half-way.
 */
static bool node_refused(void)
{
    static atomic_long added;
    static atomic_long fail_at = -1; /* read once, by whichever thread adds a node first (each reads the same) */
    long at = atomic_load_explicit(&fail_at, memory_order_relaxed);
    if (at < 0) {
        const char *v = getenv("STANDIN_FAIL_GRAPH_NODE");
        at = v ? atol(v) : 0;
        atomic_store_explicit(&fail_at, at, memory_order_relaxed);
    }
    return at > 0 && atomic_fetch_add(&added, 1) + 1 == at;
}

CUresult CUDAAPI cuGraphCreate(CUgraph *phGraph, unsigned int flags)
{
    return cu_result(standin_driver_graph_create((RG *)phGraph, flags));
}

CUresult CUDAAPI cuGraphDestroy(CUgraph hGraph)
{
    return cu_result(standin_driver_graph_destroy((RG)hGraph));
}

CUresult CUDAAPI cuGraphAddKernelNode_v2(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                                         size_t numDependencies, const CUDA_KERNEL_NODE_PARAMS *nodeParams)
{
    if (node_refused())
        return CUDA_ERROR_OUT_OF_MEMORY;
    struct cudaKernelNodeParams rp;
    void *args[STANDIN_MAX_PARAMS];
    CUresult r = kernel_params(&rp, nodeParams, args);
    if (r != CUDA_SUCCESS)
        return r;
    return cu_result(standin_driver_add_kernel_node((RN *)phGraphNode, (RG)hGraph, (const RN *)dependencies,
                                                    numDependencies, &rp));
}

CUresult CUDAAPI cuGraphAddMemcpyNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                                      size_t numDependencies, const CUDA_MEMCPY3D *copyParams, CUcontext ctx)
{
    if (node_refused())
        return CUDA_ERROR_OUT_OF_MEMORY;
    struct cudaMemcpy3DParms rp;
    (void)ctx;
    CUresult r = copy_params(&rp, copyParams);
    if (r != CUDA_SUCCESS)
        return r;
    return cu_result(standin_driver_add_memcpy_node((RN *)phGraphNode, (RG)hGraph, (const RN *)dependencies,
                                                    numDependencies, &rp));
}

CUresult CUDAAPI cuGraphAddMemsetNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                                      size_t numDependencies, const CUDA_MEMSET_NODE_PARAMS *memsetParams,
                                      CUcontext ctx)
{
    if (node_refused())
        return CUDA_ERROR_OUT_OF_MEMORY;
    struct cudaMemsetParams rp;
    (void)ctx;
    CUresult r = set_params(&rp, memsetParams);
    if (r != CUDA_SUCCESS)
        return r;
    return cu_result(standin_driver_add_memset_node((RN *)phGraphNode, (RG)hGraph, (const RN *)dependencies,
                                                    numDependencies, &rp));
}

CUresult CUDAAPI cuGraphAddHostNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                                    size_t numDependencies, const CUDA_HOST_NODE_PARAMS *nodeParams)
{
    if (node_refused())
        return CUDA_ERROR_OUT_OF_MEMORY;
    if (nodeParams == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    struct cudaHostNodeParams rp = {nodeParams->fn, nodeParams->userData};
    return cu_result(standin_driver_add_host_node((RN *)phGraphNode, (RG)hGraph, (const RN *)dependencies,
                                                  numDependencies, &rp));
}

CUresult CUDAAPI cuGraphAddEventRecordNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                                           size_t numDependencies, CUevent event)
{
    if (node_refused())
        return CUDA_ERROR_OUT_OF_MEMORY;
    return cu_result(standin_driver_add_event_node((RN *)phGraphNode, (RG)hGraph, (const RN *)dependencies,
                                                   numDependencies, (cudaEvent_t)event, true));
}

CUresult CUDAAPI cuGraphAddEventWaitNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                                         size_t numDependencies, CUevent event)
{
    if (node_refused())
        return CUDA_ERROR_OUT_OF_MEMORY;
    return cu_result(standin_driver_add_event_node((RN *)phGraphNode, (RG)hGraph, (const RN *)dependencies,
                                                   numDependencies, (cudaEvent_t)event, false));
}

CUresult CUDAAPI cuGraphAddEmptyNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                                     size_t numDependencies)
{
    return cu_result(standin_driver_add_empty_node((RN *)phGraphNode, (RG)hGraph, (const RN *)dependencies,
                                                   numDependencies));
}

/* CUgraphEdgeData is the runtime's cudaGraphEdgeData. */
_Static_assert(sizeof(CUgraphEdgeData) == sizeof(cudaGraphEdgeData), "edge data");

CUresult CUDAAPI cuGraphAddDependencies_v2(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to,
                                           const CUgraphEdgeData *edgeData, size_t numDependencies)
{
    return cu_result(standin_driver_add_dependencies((RG)hGraph, (const RN *)from, (const RN *)to,
                                                     (const cudaGraphEdgeData *)edgeData, numDependencies));
}

CUresult CUDAAPI cuGraphGetEdges_v2(CUgraph hGraph, CUgraphNode *from, CUgraphNode *to, CUgraphEdgeData *edgeData,
                                    size_t *numEdges)
{
    return cu_result(standin_driver_get_edges((RG)hGraph, (RN *)from, (RN *)to, (cudaGraphEdgeData *)edgeData,
                                              numEdges));
}

/* CUDA_GRAPH_INSTANTIATE_FLAG_* are cudaGraphInstantiateFlag*'s values. */
CUresult CUDAAPI cuGraphInstantiateWithFlags(CUgraphExec *phGraphExec, CUgraph hGraph, unsigned long long flags)
{
    return cu_result(standin_driver_instantiate((RE *)phGraphExec, (RG)hGraph, flags));
}

/* CUgraphExecUpdateResultInfo is cudaGraphExecUpdateResultInfo, with the same result values. */
CUresult CUDAAPI cuGraphExecUpdate_v2(CUgraphExec hGraphExec, CUgraph hGraph, CUgraphExecUpdateResultInfo *resultInfo)
{
    return cu_result(
        standin_driver_exec_update((RE)hGraphExec, (RG)hGraph, (cudaGraphExecUpdateResultInfo *)resultInfo));
}

CUresult CUDAAPI cuGraphExecDestroy(CUgraphExec hGraphExec)
{
    return cu_result(standin_driver_exec_destroy((RE)hGraphExec));
}

CUresult CUDAAPI cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream)
{
    return cu_result(standin_driver_graph_launch((RE)hGraphExec, (cudaStream_t)hStream, false));
}

CUresult CUDAAPI cuGraphLaunch_ptsz(CUgraphExec hGraphExec, CUstream hStream)
{
    return cu_result(standin_driver_graph_launch((RE)hGraphExec, (cudaStream_t)hStream, true));
}

CUresult CUDAAPI cuGraphExecKernelNodeSetParams_v2(CUgraphExec hGraphExec, CUgraphNode hNode,
                                                   const CUDA_KERNEL_NODE_PARAMS *nodeParams)
{
    struct cudaKernelNodeParams rp;
    void *args[STANDIN_MAX_PARAMS];
    CUresult r = kernel_params(&rp, nodeParams, args);
    if (r != CUDA_SUCCESS)
        return r;
    return cu_result(standin_driver_exec_kernel_set((RE)hGraphExec, (RN)hNode, &rp));
}

CUresult CUDAAPI cuGraphExecMemcpyNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                                const CUDA_MEMCPY3D *copyParams, CUcontext ctx)
{
    struct cudaMemcpy3DParms rp;
    (void)ctx;
    CUresult r = copy_params(&rp, copyParams);
    if (r != CUDA_SUCCESS)
        return r;
    return cu_result(standin_driver_exec_memcpy_set((RE)hGraphExec, (RN)hNode, &rp));
}

CUresult CUDAAPI cuGraphExecMemsetNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                                const CUDA_MEMSET_NODE_PARAMS *memsetParams, CUcontext ctx)
{
    struct cudaMemsetParams rp;
    (void)ctx;
    CUresult r = set_params(&rp, memsetParams);
    if (r != CUDA_SUCCESS)
        return r;
    return cu_result(standin_driver_exec_memset_set((RE)hGraphExec, (RN)hNode, &rp));
}

CUresult CUDAAPI cuGraphExecHostNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                              const CUDA_HOST_NODE_PARAMS *nodeParams)
{
    if (nodeParams == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    struct cudaHostNodeParams rp = {nodeParams->fn, nodeParams->userData};
    return cu_result(standin_driver_exec_host_set((RE)hGraphExec, (RN)hNode, &rp));
}

CUresult CUDAAPI cuGraphExecEventRecordNodeSetEvent(CUgraphExec hGraphExec, CUgraphNode hNode, CUevent event)
{
    return cu_result(standin_driver_exec_event_set((RE)hGraphExec, (RN)hNode, (cudaEvent_t)event, true));
}

CUresult CUDAAPI cuGraphExecEventWaitNodeSetEvent(CUgraphExec hGraphExec, CUgraphNode hNode, CUevent event)
{
    return cu_result(standin_driver_exec_event_set((RE)hGraphExec, (RN)hNode, (cudaEvent_t)event, false));
}

CUresult CUDAAPI cuGraphKernelNodeSetAttribute(CUgraphNode hNode, CUkernelNodeAttrID attr,
                                               const CUkernelNodeAttrValue *value)
{
    enum cudaGraphNodeType t = cudaGraphNodeTypeEmpty;
    if (value == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (attr == CU_LAUNCH_ATTRIBUTE_PRIORITY)
        return cu_result(standin_driver_node_priority((RN)hNode, NULL, &value->priority));
    CUresult r = cu_result(standin_driver_node_type((RN)hNode, &t));
    if (r != CUDA_SUCCESS)
        return r;
    if (t != cudaGraphNodeTypeKernel)
        return CUDA_ERROR_INVALID_VALUE;
    return attr == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION || attr == CU_LAUNCH_ATTRIBUTE_COOPERATIVE
               ? CUDA_SUCCESS
               : CUDA_ERROR_INVALID_VALUE;
}

/* The priority attribute of a kernel node (anything else: CUDA_ERROR_INVALID_VALUE, not modelled). */
CUresult CUDAAPI cuGraphKernelNodeGetAttribute(CUgraphNode hNode, CUkernelNodeAttrID attr,
                                               CUkernelNodeAttrValue *value_out)
{
    if (value_out == NULL || attr != CU_LAUNCH_ATTRIBUTE_PRIORITY)
        return CUDA_ERROR_INVALID_VALUE;
    return cu_result(standin_driver_node_priority((RN)hNode, &value_out->priority, NULL));
}
