/* SPDX-License-Identifier: MIT */
/*
 * tests/standin/in_flight.c: a second thread's calls on a stream, then
 * silence, while the first thread loops on that stream; for
 * tests/in_flight.sh.
 *
 *   in_flight [PATH [ITERS]]      (default all 60)
 *
 * Thread 2 makes one call down forwarding path PATH on the stream s that
 * thread 1 will loop on (or on the legacy stream, or device-wide), or one
 * down each (all): a kernel (launch), a sync (sync), a capture-status
 * question (capture_query), a copy (copy), the driver's kernel launch,
 * memset and sync (driver_launch, driver_memset, driver_sync), a kernel on
 * the legacy stream (legacy), a device sync (device_sync); then it waits
 * on the host until thread 1 is done, making no CUDA call.  Thread 1 then runs ITERS
 * iterations of five kernels on s and a sync.  Each of thread 2's calls is
 * marked in flight while it is forwarded (shim/engine/engine_in_flight.c): a mark
 * left up after its call returned would keep every robust-path capture of
 * s from beginning, and thread 1's region would never be re-captured.
 * Prints the buffers' values (the same with and without the shim).
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <cuda.h>

#include "../scenarios/scenario.h"
#include "driver_axpy.h"

#define N 2048

static cudaStream_t s;
static float *x, *y, *z;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static bool second_done, first_done;

/* Sets flag under the lock and wakes the other thread. */
static void announce(bool *flag)
{
    pthread_mutex_lock(&lock);
    *flag = true;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
}

/* Waits on the host, with no CUDA call, until flag is set. */
static void await(const bool *flag)
{
    pthread_mutex_lock(&lock);
    while (!*flag)
        pthread_cond_wait(&changed, &lock);
    pthread_mutex_unlock(&lock);
}

static const char *path = "all";

/* Whether thread 2 makes the call of forwarding path name: the one named, or all of them. */
static bool makes(const char *name)
{
    return strcmp(path, "all") == 0 || strcmp(path, name) == 0;
}

/* Thread 2: a call down the chosen forwarding path (or each), then host silence until thread 1 is done. */
static void *second(void *unused)
{
    (void)unused;
    enum cudaStreamCaptureStatus status;
    CUresult r = CUDA_SUCCESS;
    if (makes("launch"))
        k_scale_on(z, 0.5f, N, s);
    if (makes("sync"))
        CK(cudaStreamSynchronize(s));
    if (makes("capture_query"))
        CK(cudaStreamIsCapturing(s, &status));
    if (makes("copy"))
        CK(cudaMemcpyAsync(z, y, N * sizeof(float), cudaMemcpyDeviceToDevice, s));
    if (makes("driver_launch"))
        driver_axpy(0.25f, y, z, N, s);
    if (makes("driver_memset") && r == CUDA_SUCCESS)
        r = cuMemsetD32Async((CUdeviceptr)(uintptr_t)y, 0, N, (CUstream)s);
    if (makes("driver_sync") && r == CUDA_SUCCESS)
        r = cuStreamSynchronize((CUstream)s);
    if (r != CUDA_SUCCESS)
        printf("the driver's memset or sync failed: %d\n", (int)r);
    if (makes("legacy"))
        k_scale_on(z, 2.0f, N, cudaStreamLegacy);
    if (makes("device_sync"))
        CK(cudaDeviceSynchronize());
    announce(&second_done);
    await(&first_done);
    return NULL;
}

/* Runs thread 2's calls, then thread 1's loop on s; prints the buffers. */
int main(int argc, char **argv)
{
    if (argc > 1)
        path = argv[1];
    int iters = argc > 2 ? atoi(argv[2]) : 60;
    scenario_begin("in_flight");
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    x = dev_floats(N);
    y = dev_floats(N);
    z = dev_floats(N);
    k_fill_on(x, 1.0f, N, s);
    k_fill_on(y, 0.0f, N, s);
    k_fill_on(z, 3.0f, N, s);
    CK(cudaStreamSynchronize(s));
    pthread_t t;
    pthread_create(&t, NULL, second, NULL);
    await(&second_done);
    for (int it = 0; it < iters; it++) {
        k_add_step_on(x, 0.25f, it, N, s);
        k_axpy_on(0.5f, x, y, N, s);
        k_scale_on(y, 0.75f, N, s);
        k_axpy_on(0.125f, y, z, N, s);
        k_scale_on(z, 0.5f, N, s);
        CK(cudaStreamSynchronize(s));
    }
    announce(&first_done);
    pthread_join(t, NULL);
    show("x", x, N);
    show("y", y, N);
    show("z", z, N);
    return scenario_end();
}
