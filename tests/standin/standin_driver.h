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

#endif
