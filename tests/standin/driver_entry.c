/*
 * tests/standin/driver_entry.c: what the driver stand-in (libcuda.c) calls
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

/* Launch through the driver: a kernel twin on a stream (ptsz: NULL means the per-thread stream). */
cudaError_t standin_driver_launch(const void *func, dim3 grid, dim3 block, void **args, size_t shmem,
                                  cudaStream_t h, bool ptsz)
{
    cudaError_t e;
    if (!api_enter(&e))
        return e;
    return api_leave_quiet(launch_on_stream(func, grid, block, args, shmem, h, ptsz));
}

/* Stream synchronisation through the driver (ptsz: NULL means the per-thread stream). */
cudaError_t standin_driver_stream_sync(cudaStream_t h, bool ptsz)
{
    cudaError_t e;
    if (!api_enter(&e))
        return e;
    struct stream *s = NULL;
    e = stream_get(h, ptsz, &s);
    if (e == cudaSuccess)
        e = sched_run_until(s->last_op);
    return api_leave_quiet(e);
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
