/*
 * tests/standin/standin_driver.h: the runtime stand-in's entry points for
 * the driver stand-in (tests/standin/libcuda.c), under names the shim does
 * not hook.  Errors are returned, never recorded as the runtime's.
 */
#ifndef STANDIN_DRIVER_H
#define STANDIN_DRIVER_H

#include <stdbool.h>
#include <cuda_runtime_api.h>

/* Launch through the driver: a kernel twin on a stream (ptsz: NULL means the per-thread stream). */
cudaError_t standin_driver_launch(const void *func, dim3 grid, dim3 block, void **args, size_t shmem,
                                  cudaStream_t h, bool ptsz);

/* Stream synchronisation through the driver (ptsz: NULL means the per-thread stream). */
cudaError_t standin_driver_stream_sync(cudaStream_t h, bool ptsz);

/* A stream's capture as the runtime's cudaStreamGetCaptureInfo gives it (same ids; outputs but st optional). */
cudaError_t standin_driver_capture_info(cudaStream_t h, bool ptsz, enum cudaStreamCaptureStatus *st,
                                        unsigned long long *id, cudaGraph_t *graph, const cudaGraphNode_t **deps,
                                        const cudaGraphEdgeData **edges, size_t *ndeps);

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

#endif
