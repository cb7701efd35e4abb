/*
 * tests/standin/driver_entry.c: what the driver stand-in (libcuda.c) calls
 * to reach the runtime stand-in's queues, under names the shim does not
 * hook (standin_*), so that driver work and runtime work are ordered on the
 * same streams, as on a GPU.  Errors are returned, not recorded as the
 * runtime's last error.
 */
#include "standin.h"
#include "standin_driver.h"

/* Launch through the driver: a kernel twin on a stream (ptsz: NULL means the per-thread stream). */
cudaError_t standin_driver_launch(const void *func, dim3 grid, dim3 block, void **args, size_t shmem,
                                  cudaStream_t h, bool ptsz)
{
    cudaError_t e;
    if (!api_enter(&e))
        return e;
    struct stream *s = NULL;
    struct work w;
    e = stream_get(h, ptsz, &s);
    if (e == cudaSuccess) {
        e = kernel_work_make(&w, func, grid, block, shmem, args);
        e = e == cudaSuccess ? stream_submit(s, &w, NULL) : capture_fail(s, e);
    }
    return api_leave_quiet(e);
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
