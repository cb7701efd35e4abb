/* SPDX-License-Identifier: MIT */
/*
 * tests/standin/fork3_loop.h: bench_suite's fork3 loop as fork_reuse.c and
 * owed_records.c run it: the region's streams, events and buffers (static,
 * so each including program's own), the region, and the helpers both use
 * between replays: a boundary, a host read and a library's memset.
 */
#ifndef REPRISE_TESTS_FORK3_LOOP_H
#define REPRISE_TESTS_FORK3_LOOP_H

#include <stdint.h>
#include <stdio.h>

#include <cuda.h>

#include "../scenarios/scenario.h"

#define N 2048 /* floats in each buffer */

static cudaStream_t s, s1, s2, s3, sr;         /* the region's stream, the three it forks onto; host reads' */
static cudaEvent_t fork_ev, j1, j2, j3, idle;  /* the fork, the joins; one never recorded (boundary) */
static float *a, *b, *t1, *c1, *c2, *c3, *acc; /* what the region reads and writes */
static float *pinned;                          /* host reads' landing area */
static uint64_t host_sum = 1469598103934665603ull; /* FNV-1a of every host read */

/* The region: fork onto s1, s2 and s3, two kernels each, join into s. */
static inline void fork_join(int it)
{
    k_add_step_on(a, 0.5f, it, N, s);
    CK(cudaEventRecord(fork_ev, s));
    CK(cudaStreamWaitEvent(s1, fork_ev, 0));
    CK(cudaStreamWaitEvent(s2, fork_ev, 0));
    CK(cudaStreamWaitEvent(s3, fork_ev, 0));
    k_combine_on(a, b, t1, N, s1); /* t1: s1's alone */
    k_combine_on(t1, b, c1, N, s1);
    k_combine_on(b, a, c2, N, s2);
    k_add_step_on(c2, 1.0f, it, N, s2);
    k_combine_on(a, a, c3, N, s3);
    k_scale_on(c3, -0.25f, N, s3);
    CK(cudaEventRecord(j1, s1));
    CK(cudaEventRecord(j2, s2));
    CK(cudaEventRecord(j3, s3));
    CK(cudaStreamWaitEvent(s, j1, 0));
    CK(cudaStreamWaitEvent(s, j2, 0));
    CK(cudaStreamWaitEvent(s, j3, 0));
    k_axpy_on(1.0f, c1, acc, N, s);
    k_axpy_on(0.5f, c2, acc, N, s);
    k_axpy_on(0.25f, c3, acc, N, s);
}

/* Creates streams[0..n) non-blocking (the loop's and a program's own), the host reads' landing area, the events. */
static inline void fork3_create(cudaStream_t *const *streams, size_t n)
{
    for (size_t i = 0; i < n; i++)
        CK(cudaStreamCreateWithFlags(streams[i], cudaStreamNonBlocking));
    CK(cudaMallocHost((void **)&pinned, N * sizeof(float)));
    cudaEvent_t *events[] = {&fork_ev, &j1, &j2, &j3, &idle};
    for (size_t i = 0; i < sizeof events / sizeof *events; i++)
        CK(cudaEventCreateWithFlags(events[i], cudaEventDisableTiming));
}

/* Allocates buffers[0..n) (the loop's and a program's own), each filled with 0.25 times its index. */
static inline void fork3_buffers(float **const *buffers, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        *buffers[i] = dev_floats(N);
        k_fill_on(*buffers[i], 0.25f * (float)i, N, cudaStreamLegacy);
    }
}

/* Ends the region without touching a stream (an event never recorded is complete). */
static inline void boundary(void)
{
    CK(cudaEventQuery(idle));
}

/* Folds a device buffer into the host sum, copied on a stream of its own (the legacy stream would be ordered). */
static inline void host_read(const float *dev)
{
    CK(cudaMemcpyAsync(pinned, dev, N * sizeof(float), cudaMemcpyDeviceToHost, sr));
    CK(cudaStreamSynchronize(sr));
    const unsigned char *p = (const unsigned char *)pinned;
    for (size_t i = 0; i < N * sizeof(float); i++)
        host_sum = (host_sum ^ p[i]) * 1099511628211ull;
}

/* A library's 2-D memset of a buffer (256-byte rows), a driver call that is no node of the fast path's graphs. */
static inline void library_memset(float *dst, unsigned char value, cudaStream_t stream)
{
    CUresult r = cuMemsetD2D8Async((CUdeviceptr)(uintptr_t)dst, 256, value, 256, N * sizeof(float) / 256,
                                   (CUstream)stream);
    if (r != CUDA_SUCCESS)
        printf("cuMemsetD2D8Async failed: %d\n", (int)r);
}

#endif
