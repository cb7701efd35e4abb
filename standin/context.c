/* SPDX-License-Identifier: MIT */
/*
 * standin/context.c: the context's lifetime. One device, one context,
 * the primary one: the driver's cuDevicePrimaryCtxReset, cuCtxDestroy of it
 * and the last cuDevicePrimaryCtxRelease (libcuda_work.c), and the runtime's
 * cudaDeviceReset, destroy it. The queued work runs first (what a device
 * fault left unrun is dropped), the sticky error is cleared, every capture
 * ends, and the streams, events, graphs, graph nodes and executable graphs
 * made until then, the modules loaded and the functions of libraries'
 * kernels die. The legacy and per-thread streams, the runtime's kernels and
 * libraries stay. The next call finds a fresh context, as the primary
 * context is made again at its next use (same CUcontext handle here):
 * cuDevicePrimaryCtxGetState says it is inactive until then.
 *
 * A dead handle stays allocated, so that it is never taken for a new one:
 * resolving it gives cudaErrorContextIsDestroyed (the driver's
 * CUDA_ERROR_CONTEXT_IS_DESTROYED) in general, and aborts the process,
 * saying so on stderr, in the calls the real driver crashes in:
 * cuGraphLaunch, cuGraphExecDestroy, cuGraphDestroy, cuStreamDestroy,
 * cuEventDestroy, cuGraphExec*SetParams (and their runtime twins). Device
 * memory survives a reset here (a simplification: on a GPU it is freed).
 *
 * cudaDeviceReset goes through the driver as CUDA's runtime does: it calls
 * cuDevicePrimaryCtxReset_v2, looked up by name, so that a preloaded shim's
 * wrapper is the one reached. cudaThreadExit, its old alias, is gone from
 * CUDA 13's libcudart, and so from the stand-in.
 */
#include <stdio.h>
#include <stdlib.h>

#include "standin.h"

typedef int CUresult_standin; /* CUresult, without cuda.h next to the runtime's internal header */

bool context_active;

/* Destroys everything the context holds (the top comment). */
static void context_reset(void)
{
    if (sched_run_all() != cudaSuccess)
        sched_drop_all();
    streams_context_reset();
    events_context_reset();
    graphs_context_reset();
    modules_context_reset();
    clear_sticky_error();
    context_active = false;
}

/* In a call the real driver crashes in, a handle of a destroyed context aborts; any other e is returned. */
cudaError_t context_fatal_if_destroyed(cudaError_t e, const char *call, const char *what, const void *handle)
{
    if (e != cudaErrorContextIsDestroyed)
        return e;
    fprintf(stderr, "standin: %s: %s %p of a destroyed context\n", call, what, handle);
    abort();
}

/* The driver's resets of the primary context; works after a device fault too (it is the way out of one). */
cudaError_t standin_driver_context_reset(void)
{
    cudaError_t e;
    if (!api_enter_despite_fault(&e))
        return e;
    context_reset();
    return api_leave_quiet(cudaSuccess);
}

/* cuDevicePrimaryCtxGetState's `active`: whether a call made the context since the last reset (no lock taken
 * that would make it). */
cudaError_t standin_driver_context_state(int *active)
{
    api_lock();
    *active = context_active;
    api_unlock();
    return cudaSuccess;
}

/* cudaDeviceReset: through the driver's cuDevicePrimaryCtxReset_v2 (the top comment). */
cudaError_t cudaDeviceReset(void)
{
    typedef CUresult_standin (*reset_fn)(int device);
    reset_fn reset = (reset_fn)driver_function("cuDevicePrimaryCtxReset_v2");
    if (reset == NULL)
        API(cudaErrorNotSupported);
    CUresult_standin r = reset(0);
    API(r == 0 ? cudaSuccess : cudaErrorUnknown);
}
