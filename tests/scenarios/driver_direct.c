/* SPDX-License-Identifier: MIT */
/*
 * driver_direct: a driver-only program (as one built with nvcc's default
 * static runtime reaches the GPU, no dynamic runtime loaded) whose loop has
 * work inside it that the shim cannot hold back: a library's own launches
 * (tests/standin/fakeblas.c, linked against the static-runtime driver too,
 * as cuBLASLt is in such a program) and a 2-D memset, which no graph node
 * the shim builds stands for.  Such a region is replayed on the robust path
 * or not at all.  Each iteration also copies from pageable memory
 * overwritten right after the call, waits for an event recorded before the
 * loop, orders a second stream by events both ways, and asks the driver
 * whether its streams are capturing, as a library's static runtime does
 * (they never are: the program captures nothing, and a shim's capture must
 * stay unseen).  30 iterations on a created stream; prints the sums of
 * every iteration, the buffers' hashes and how often a stream was said to
 * be capturing.
 *
 * Environment: FAKEBLAS_CUDA_VERSION=99000 makes the library launch through
 * a cuLaunchKernel the shim has no wrapper for (its launches unseen, and
 * the shim knows it); FAKEBLAS_UNSEEN=1 through a route the shim cannot
 * know of (a negative control); DRIVER_FOREIGN_2D=0 leaves the 2-D memset
 * out (the library's launches are then the only work the shim cannot hold).
 * Stand-in only: the library's kernel is a CPU twin.
 */
#include <stdbool.h>

#include "driver_scenario.h"

#include "../standin/fakeblas.h"

#define N 4096
#define ROWS 16
#define COLS 64 /* floats a row of the 2-D memset clears, in rows of ROW_PITCH bytes */
#define ROW_PITCH (256 * sizeof(float))

static CUfunction f_axpy, f_scale, f_combine, f_reduce;
static int capturing; /* how often the driver said a stream of the loop was capturing */

/* The library's y = 0.5 * y + x on stream, through its own launch. */
static void blend(CUdeviceptr x, CUdeviceptr y, CUstream stream)
{
    CU((CUresult)fakeblas_blend((cudaStream_t)stream, (const float *)(uintptr_t)x, (float *)(uintptr_t)y, N));
}

/* The sum of N floats at from into the float at to, on stream (one block). */
static void reduce(CUdeviceptr from, CUdeviceptr to, CUstream stream)
{
    int n = N;
    void *args[] = {&from, &to, &n};
    CU(cuLaunchKernel(f_reduce, 1, 1, 1, REDUCE_THREADS, 1, 1, 0, stream, args, NULL));
}

/* Asks the driver whether stream captures, as a library's static runtime does (v3: the newest query). */
static void ask_capturing(CUstream stream, bool newest)
{
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    cuuint64_t id = 0;
    if (newest)
        CU(cuStreamGetCaptureInfo(stream, &status, &id, NULL, NULL, NULL, NULL));
    else
        CU(cuStreamIsCapturing(stream, &status));
    capturing += status != CU_STREAM_CAPTURE_STATUS_NONE;
}

/* 30 iterations of the program's launches around the library's, then the results. */
int main(void)
{
    dscen_begin("driver_direct");
    f_axpy = dscen_fn("k_axpy");
    f_scale = dscen_fn("k_scale");
    f_combine = dscen_fn("k_combine");
    f_reduce = dscen_fn("k_reduce_sum");
    enum { START, READY, DONE, EVENTS };
    CUstream st[2]; /* the loop's stream, and a second one it orders by events both ways */
    CUevent ev[EVENTS];
    for (int i = 0; i < 2; i++)
        CU(cuStreamCreate(&st[i], CU_STREAM_NON_BLOCKING));
    for (int i = 0; i < EVENTS; i++)
        CU(cuEventCreate(&ev[i], CU_EVENT_DISABLE_TIMING));
    CUstream s = st[0], s2 = st[1];
    CUdeviceptr x = dscen_floats(N), y = dscen_floats(N), z = dscen_floats(N), w = dscen_floats(N);
    CUdeviceptr in = dscen_floats(N), sums = dscen_floats(2);
    float *host = NULL, *page = malloc(N * sizeof(float));
    CU(cuMemAllocHost((void **)&host, 2 * sizeof(float)));
    const char *set_2d = getenv("DRIVER_FOREIGN_2D");
    bool memset_2d = set_2d == NULL || strcmp(set_2d, "0") != 0;
    CU(cuMemsetD32Async(x, 0x3f800000u, N, s)); /* x = 1.0f */
    CU(cuMemsetD8Async(y, 0, N * sizeof(float), s));
    CU(cuMemsetD8Async(w, 0, N * sizeof(float), s));
    CU(cuEventRecord(ev[START], s)); /* recorded before the loop: every iteration's wait is on work outside it */
    CU(cuStreamSynchronize(s));
    int n = N;
    for (int it = 0; it < 30; it++) {
        CU(cuStreamWaitEvent(s, ev[START], 0));
        for (int i = 0; i < N; i++)
            page[i] = (float)((i * 7 + it * 13) % 89) * 0.125f;
        CU(cuMemcpyHtoDAsync(in, page, N * sizeof(float), s));
        memset(page, 0xff, N * sizeof(float)); /* legal at once: the bytes were taken */
        float a = 0.25f + 0.0625f * (float)(it % 5), f = 0.75f;
        void *axpy[] = {&a, &in, &y, &n}, *scale[] = {&y, &f, &n}, *comb[] = {&x, &y, &z, &n},
             *comb2[] = {&z, &y, &w, &n};
        dscen_launch(f_axpy, N, axpy, s);
        blend(in, y, s); /* the library's own launch, reading what the program wrote and read by what follows */
        dscen_launch(f_scale, N, scale, s);
        ask_capturing(s, false);
        dscen_launch(f_combine, N, comb, s);
        /* A 2-D memset: ROWS rows of COLS floats at a pitch, set to the iteration (as a float's bits). */
        if (memset_2d)
            CU(cuMemsetD2D32Async(z, ROW_PITCH, dscen_bits((float)it), COLS, ROWS, s));
        /* The second stream reads z once s has written it; s waits until it has. */
        CU(cuEventRecord(ev[READY], s));
        CU(cuStreamWaitEvent(s2, ev[READY], 0));
        dscen_launch(f_combine, N, comb2, s2);
        blend(z, w, s2);
        reduce(w, sums + sizeof(float), s2);
        ask_capturing(s2, true);
        CU(cuEventRecord(ev[DONE], s2));
        CU(cuStreamWaitEvent(s, ev[DONE], 0));
        reduce(z, sums, s);
        CU(cuMemcpyDtoHAsync(host, sums, 2 * sizeof(float), s));
        CU(cuStreamSynchronize(s));
        printf("%2d: sum %08x second %08x\n", it, dscen_bits(host[0]), dscen_bits(host[1]));
    }
    printf("a stream of the loop said to be capturing: %d times\n", capturing);
    const CUdeviceptr shown[] = {y, z, w};
    for (int i = 0; i < 3; i++)
        dscen_show(i == 0 ? "y" : i == 1 ? "z" : "w", shown[i], N);
    free(page);
    CU(cuMemFreeHost(host));
    for (int i = 0; i < EVENTS; i++)
        CU(cuEventDestroy(ev[i]));
    for (int i = 0; i < 2; i++)
        CU(cuStreamDestroy(st[i]));
    return dscen_end();
}
