/* SPDX-License-Identifier: MIT */
/*
 * standin/driver_entry.c: what the driver stand-in (libcuda.c) calls
 * to reach the runtime stand-in's queues, under names the shim does not
 * hook (standin_*), so that driver work and runtime work are ordered on the
 * same streams, as on a GPU.  Errors are returned, not recorded as the
 * runtime's last error.  Also the runtime's cudaGetDriverEntryPoint(ByVersion),
 * answered through the driver stand-in's private entry point.
 */
#include <dlfcn.h>

#include "standin.h"
#include "standin_driver.h"

typedef int CUresult_standin; /* CUresult, without cuda.h next to the runtime's internal header */

/* Launch through the driver: a kernel twin on a stream (ptsz: NULL means the per-thread stream), at *priority
 * (NULL: the stream's), a programmatic
 * dependent launch if programmatic. */
cudaError_t standin_driver_launch(const void *func, dim3 grid, dim3 block, void **args, size_t shmem,
                                  cudaStream_t h, bool ptsz, const int *priority, bool programmatic)
{
    DRIVER_CALL(launch_on_stream(func, grid, block, args, shmem, h, ptsz, priority, programmatic));
}

/* Runs the queue until a stream's last op has run. */
static cudaError_t stream_sync(cudaStream_t h, bool ptsz)
{
    struct stream *s = NULL;
    TRY(stream_get(h, ptsz, &s));
    return sched_run_until(s->last_op);
}

/* Stream synchronisation through the driver (ptsz: NULL means the per-thread stream). */
cudaError_t standin_driver_stream_sync(cudaStream_t h, bool ptsz)
{
    DRIVER_CALL(stream_sync(h, ptsz));
}

/* The capture of a stream, as the runtime reports it. */
cudaError_t standin_driver_capture_info(cudaStream_t h, bool ptsz, enum cudaStreamCaptureStatus *st,
                                        unsigned long long *id, cudaGraph_t *graph, const cudaGraphNode_t **deps,
                                        const cudaGraphEdgeData **edges, size_t *ndeps)
{
    DRIVER_CALL(capture_info(h, st, id, graph, deps, edges, ndeps, ptsz));
}

/* Device memory through the driver. */
cudaError_t standin_driver_malloc(void **p, size_t size)
{
    DRIVER_CALL(size == 0 ? cudaErrorInvalidValue : mem_alloc(p, size, MEM_DEVICE));
}

/* Frees device memory through the driver. */
cudaError_t standin_driver_free(void *p)
{
    DRIVER_CALL(mem_free(p, false));
}

/* Stream-ordered allocation through the driver. */
cudaError_t standin_driver_malloc_async(void **p, size_t size, cudaStream_t h, bool ptsz)
{
    DRIVER_CALL(mem_malloc_async(p, size, h, ptsz));
}

/* Stream-ordered free through the driver. */
cudaError_t standin_driver_free_async(void *p, cudaStream_t h, bool ptsz)
{
    DRIVER_CALL(mem_free_async(p, h, ptsz));
}

/* Pinned host memory through the driver. */
cudaError_t standin_driver_host_alloc(void **p, size_t size, unsigned flags)
{
    DRIVER_CALL(mem_host_alloc(p, size, flags));
}

/* Frees pinned host memory through the driver. */
cudaError_t standin_driver_free_host(void *p)
{
    DRIVER_CALL(mem_free(p, true));
}

/* The device address of pinned host memory through the driver. */
cudaError_t standin_driver_host_device_pointer(void **dev, void *host, unsigned flags)
{
    DRIVER_CALL(mem_host_device_pointer(dev, host, flags));
}

/* A driver function the runtime calls as CUDA's runtime does (a preloaded shim's wrapper first), or NULL. */
void *driver_function(const char *name)
{
    void *fn = dlsym(RTLD_DEFAULT, name);
    /* A runtime loaded privately has its driver loaded privately (loads_driver.c): found by soname. */
    void *libcuda = fn ? NULL : dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (libcuda) {
        fn = dlsym(libcuda, name);
        dlclose(libcuda);
    }
    return fn;
}

#undef cudaGetDriverEntryPoint
#undef cudaGetDriverEntryPointByVersion

typedef CUresult_standin (*private_get_proc_fn)(const char *, void **, int, unsigned long long, int *);

/* Asks the driver stand-in through its private entry point (as a runtime using its own tables would: no
 * dlsym or cuGetProcAddress the shim could see); flags: cudaEnable*, the same values as the driver's. */
static cudaError_t driver_entry_point(const char *symbol, void **funcPtr, int version, unsigned long long flags,
                                      enum cudaDriverEntryPointQueryResult *status)
{
    if (symbol == NULL || funcPtr == NULL)
        return cudaErrorInvalidValue;
    void *libcuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    private_get_proc_fn get_proc =
        libcuda ? (private_get_proc_fn)dlsym(libcuda, "standin_private_get_proc_address") : NULL;
    if (libcuda)
        dlclose(libcuda);
    int driver_status = 1;
    *funcPtr = NULL;
    if (get_proc)
        (void)get_proc(symbol, funcPtr, version, flags, &driver_status);
    if (status)
        *status = *funcPtr ? cudaDriverEntryPointSuccess : cudaDriverEntryPointSymbolNotFound;
    return get_proc ? cudaSuccess : cudaErrorNotSupported;
}

/* cudaGetDriverEntryPoint: the driver version this stand-in models (13.0). */
cudaError_t cudaGetDriverEntryPoint(const char *symbol, void **funcPtr, unsigned long long flags,
                                    enum cudaDriverEntryPointQueryResult *driverStatus)
{
    return driver_entry_point(symbol, funcPtr, 13000, flags, driverStatus);
}

/* cudaGetDriverEntryPoint, per-thread default stream flavour. */
cudaError_t cudaGetDriverEntryPoint_ptsz(const char *symbol, void **funcPtr, unsigned long long flags,
                                         enum cudaDriverEntryPointQueryResult *driverStatus)
{
    return driver_entry_point(symbol, funcPtr, 13000, flags ? flags : cudaEnablePerThreadDefaultStream,
                              driverStatus);
}

/* cudaGetDriverEntryPointByVersion. */
cudaError_t cudaGetDriverEntryPointByVersion(const char *symbol, void **funcPtr, unsigned int cudaVersion,
                                             unsigned long long flags,
                                             enum cudaDriverEntryPointQueryResult *driverStatus)
{
    return driver_entry_point(symbol, funcPtr, (int)cudaVersion, flags, driverStatus);
}

/* cudaGetDriverEntryPointByVersion, per-thread default stream flavour. */
cudaError_t cudaGetDriverEntryPointByVersion_ptsz(const char *symbol, void **funcPtr, unsigned int cudaVersion,
                                                  unsigned long long flags,
                                                  enum cudaDriverEntryPointQueryResult *driverStatus)
{
    return driver_entry_point(symbol, funcPtr, (int)cudaVersion, flags ? flags : cudaEnablePerThreadDefaultStream,
                              driverStatus);
}
