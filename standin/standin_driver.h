/* SPDX-License-Identifier: MIT */
/*
 * standin/standin_driver.h: the runtime stand-in's entry points for
 * the driver stand-in (standin/libcuda.c), under names the shim does
 * not hook.  Errors are returned, never recorded as the runtime's.
 */
#ifndef STANDIN_DRIVER_H
#define STANDIN_DRIVER_H

#include <stdbool.h>
#include <cuda_runtime_api.h>

/* Launch through the driver: a kernel twin on a stream (ptsz: NULL means the per-thread stream), at *priority
 * (NULL: the stream's), a programmatic
 * dependent launch if programmatic. */
cudaError_t standin_driver_launch(const void *func, dim3 grid, dim3 block, void **args, size_t shmem,
                                  cudaStream_t h, bool ptsz, const int *priority, bool programmatic);

/* Stream synchronisation through the driver (ptsz: NULL means the per-thread stream). */
cudaError_t standin_driver_stream_sync(cudaStream_t h, bool ptsz);

/* A stream's capture as the runtime's cudaStreamGetCaptureInfo gives it (same ids; outputs but st optional). */
cudaError_t standin_driver_capture_info(cudaStream_t h, bool ptsz, enum cudaStreamCaptureStatus *st,
                                        unsigned long long *id, cudaGraph_t *graph, const cudaGraphNode_t **deps,
                                        const cudaGraphEdgeData **edges, size_t *ndeps);

/* Begins a capture, as cudaStreamBeginCapture (ptsz: NULL means the per-thread stream). */
cudaError_t standin_driver_begin_capture(cudaStream_t h, enum cudaStreamCaptureMode mode, bool ptsz);

/* Ends a capture, as cudaStreamEndCapture: the same graph, the same errors. */
cudaError_t standin_driver_end_capture(cudaStream_t h, cudaGraph_t *out, bool ptsz);

/* Device memory, as cudaMalloc allocates it (size 0 is an error, as for cuMemAlloc). */
cudaError_t standin_driver_malloc(void **p, size_t size);

/* Frees device memory, as cudaFree does (waits for the device first). */
cudaError_t standin_driver_free(void *p);

/* Stream-ordered allocation, as cudaMallocAsync: a memory alloc node inside a capture. */
cudaError_t standin_driver_malloc_async(void **p, size_t size, cudaStream_t h, bool ptsz);

/* Stream-ordered free, as cudaFreeAsync: a memory free node inside a capture. */
cudaError_t standin_driver_free_async(void *p, cudaStream_t h, bool ptsz);

/* Pinned host memory, as cudaHostAlloc (the same flag values); mapped memory starts the device thread. */
cudaError_t standin_driver_host_alloc(void **p, size_t size, unsigned flags);

/* Frees pinned host memory, as cudaFreeHost does. */
cudaError_t standin_driver_free_host(void *p);

/* The device address of pinned host memory, as cudaHostGetDevicePointer. */
cudaError_t standin_driver_host_device_pointer(void **dev, void *host, unsigned flags);

/* ---- kernels (launch.c) */

/* Offset and size of a kernel's parameter, as cudaFuncGetParamInfo (InvalidValue past the last one). */
cudaError_t standin_driver_param_info(const void *func, size_t index, size_t *offset, size_t *size);

/* The name a kernel twin was registered with, as cudaFuncGetName. */
cudaError_t standin_driver_func_name(const char **name, const void *func);

/* The twin registered under a name (cuModuleGetFunction); cudaErrorSymbolNotFound when none. */
cudaError_t standin_driver_kernel_by_name(const void **func, const char *name);

/* ---- modules and libraries (modules.c): handles that die when unloaded */

/* A fresh module (library: a library, its own module); no image is read. */
cudaError_t standin_driver_module_load(void **module, bool library);
/* Unloads a module (library: a library), killing what it handed out; a library's module: NotPermitted. */
cudaError_t standin_driver_module_unload(void *module, bool library);
/* The function (kernel: a library's kernel) of a twin's name; a library's module gives its kernels' functions. */
cudaError_t standin_driver_module_function(void **fn, void *module, const char *name, bool kernel);
/* The module a function belongs to (library: the library of a kernel); a runtime kernel's is the runtime's. */
cudaError_t standin_driver_function_owner(void **module, const void *fn, bool library);
/* A library kernel's function in the context; a runtime kernel (a twin's address) is its own. */
cudaError_t standin_driver_kernel_function(void **fn, const void *kernel);
/* cuLibraryGetModule: the library itself. */
cudaError_t standin_driver_library_module(void **module, void *library);

/* ---- the context (context.c) */

/* Destroys the one context's streams, events, graphs, modules (cuDevicePrimaryCtxReset, cuCtxDestroy, the
 * last cuDevicePrimaryCtxRelease); even after a device fault. */
cudaError_t standin_driver_context_reset(void);
/* Whether a call made the context since the last reset (cuDevicePrimaryCtxGetState's `active`). */
cudaError_t standin_driver_context_state(int *active);

/* A host function on a stream, as cudaLaunchHostFunc. */
cudaError_t standin_driver_host_func(cudaStream_t h, void (*fn)(void *), void *user, bool ptsz);

/* ---- memory (memory.c) */

/* A 1-D copy on a stream with the runtime's rules: sync as cudaMemcpy, else as cudaMemcpyAsync. */
cudaError_t standin_driver_memcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                                  cudaStream_t h, bool ptsz, bool sync);

/* A 2-D memset of width elements of elem (1, 2 or 4) bytes on a stream; sync as cudaMemset, else async. */
cudaError_t standin_driver_memset(void *dst, size_t pitch, unsigned value, unsigned elem, size_t width,
                                  size_t height, cudaStream_t h, bool ptsz, bool sync);

/* What the stand-in's memory table knows of p (cudaPointerGetAttributes' type: unregistered for pageable). */
cudaError_t standin_driver_memory_type(const void *p, enum cudaMemoryType *type);

/* ---- streams and events (streams.c, events.c, device.c) */

/* cudaStreamCreateWithPriority's body. */
cudaError_t standin_driver_stream_create(cudaStream_t *out, unsigned flags, int priority);
/* cudaStreamDestroy's body. */
cudaError_t standin_driver_stream_destroy(cudaStream_t h);
/* cudaStreamQuery's body (the query rule). */
cudaError_t standin_driver_stream_query(cudaStream_t h, bool ptsz);
/* cudaStreamWaitEvent's body. */
cudaError_t standin_driver_stream_wait_event(cudaStream_t h, cudaEvent_t ev, unsigned flags, bool ptsz);
/* cudaStreamGetFlags / GetPriority / GetId bodies (outputs may be NULL but not all). */
cudaError_t standin_driver_stream_facts(cudaStream_t h, bool ptsz, unsigned *flags, int *priority,
                                        unsigned long long *id);
/* cudaEventCreateWithFlags's body. */
cudaError_t standin_driver_event_create(cudaEvent_t *out, unsigned flags);
/* cuEventElapsedTime(_v2). */
cudaError_t standin_driver_event_elapsed(float *ms, cudaEvent_t start, cudaEvent_t end);
/* cudaEventDestroy's body. */
cudaError_t standin_driver_event_destroy(cudaEvent_t ev);
/* cudaEventRecordWithFlags's body. */
cudaError_t standin_driver_event_record(cudaEvent_t ev, cudaStream_t h, unsigned flags, bool ptsz);
/* cudaEventQuery (query) or cudaEventSynchronize's body. */
cudaError_t standin_driver_event_wait(cudaEvent_t ev, bool query);
/* cudaDeviceSynchronize's body. */
cudaError_t standin_driver_device_sync(void);

/* ---- graphs (graph.c): the runtime stand-in's own graphs */

cudaError_t standin_driver_graph_create(cudaGraph_t *out, unsigned flags);
cudaError_t standin_driver_graph_destroy(cudaGraph_t g);
/* Kernel node; kernelParams only (the driver turns `extra` into kernelParams first). */
cudaError_t standin_driver_add_kernel_node(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
                                           size_t n, const struct cudaKernelNodeParams *p);
cudaError_t standin_driver_add_memcpy_node(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
                                           size_t n, const struct cudaMemcpy3DParms *p);
cudaError_t standin_driver_add_memset_node(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
                                           size_t n, const struct cudaMemsetParams *p);
cudaError_t standin_driver_add_host_node(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
                                         size_t n, const struct cudaHostNodeParams *p);
/* Event record (record) or event wait node. */
cudaError_t standin_driver_add_event_node(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
                                          size_t n, cudaEvent_t ev, bool record);
cudaError_t standin_driver_add_empty_node(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
                                          size_t n);
/* Edges between existing nodes, with their data (NULL: full edges), as cudaGraphAddDependencies. */
cudaError_t standin_driver_add_dependencies(cudaGraph_t g, const cudaGraphNode_t *from, const cudaGraphNode_t *to,
                                           const cudaGraphEdgeData *edges, size_t n);
/* Every edge, with its data (may be NULL), as cudaGraphGetEdges. */
cudaError_t standin_driver_get_edges(cudaGraph_t g, cudaGraphNode_t *from, cudaGraphNode_t *to,
                                     cudaGraphEdgeData *edges, size_t *n);
/* cudaGraphNodeGetType's body. */
cudaError_t standin_driver_node_type(cudaGraphNode_t node, enum cudaGraphNodeType *type);
/* A kernel node's priority attribute: read into *get (if not NULL), set to *set (if not NULL). */
cudaError_t standin_driver_node_priority(cudaGraphNode_t node, int *get, const int *set);
cudaError_t standin_driver_instantiate(cudaGraphExec_t *out, cudaGraph_t g, unsigned long long flags);
cudaError_t standin_driver_exec_destroy(cudaGraphExec_t e);
cudaError_t standin_driver_graph_launch(cudaGraphExec_t e, cudaStream_t h, bool ptsz);
/* cudaGraphExecUpdate's body: the result info filled as the runtime fills it. */
cudaError_t standin_driver_exec_update(cudaGraphExec_t e, cudaGraph_t g, cudaGraphExecUpdateResultInfo *info);
cudaError_t standin_driver_exec_kernel_set(cudaGraphExec_t e, cudaGraphNode_t node,
                                           const struct cudaKernelNodeParams *p);
/* Exec memcpy SetParams with 3-D parameters (memory types may not change, as the 1-D form). */
cudaError_t standin_driver_exec_memcpy_set(cudaGraphExec_t e, cudaGraphNode_t node,
                                           const struct cudaMemcpy3DParms *p);
cudaError_t standin_driver_exec_memset_set(cudaGraphExec_t e, cudaGraphNode_t node,
                                           const struct cudaMemsetParams *p);
cudaError_t standin_driver_exec_host_set(cudaGraphExec_t e, cudaGraphNode_t node,
                                         const struct cudaHostNodeParams *p);
/* The event of an executable graph's event record node (record) or event wait node, from its next launch on. */
cudaError_t standin_driver_exec_event_set(cudaGraphExec_t e, cudaGraphNode_t node, cudaEvent_t ev, bool record);

#endif
