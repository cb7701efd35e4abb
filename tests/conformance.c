/* SPDX-License-Identifier: MIT */
/*
 * tests/conformance.c: the runtime rules the reprise shim depends on, each
 * call printed with the error NAME it returned and the last error after it.
 *
 * Built twice: against the CPU stand-in (make check) and with nvcc against
 * the real libcudart (make gpu-programs). The two outputs must be identical:
 * tests/gpu/standin-vs-gpu.sh diffs them. Nothing printed depends on timing
 * (no cudaStreamQuery of running work, no elapsed-time values) or on the
 * scheduler's seed.
 *
 * Its output on an H200 (driver 580, CUDA 13.0) is recorded in
 * tests/standin/expected/conformance.out; docs/standin.md lists the rules
 * it showed ("Measured on the H200") and those the stand-in still guesses.
 * Changing this program means recording that file again on a GPU
 * (tests/gpu/standin-vs-gpu.sh BUILD_DIR --record).
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "../kernels/kernels.h"
#include "report.h"

/* The <<<>>> entry points of CUDA 12.8+, exported by libcudart (and the
 * stand-in); nvcc declares them only for CUDA C++. */
extern cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *func);
extern cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                                      void **args, size_t sharedMem, cudaStream_t stream);

#define N 1024
#define NB (N * sizeof(float))

static float *d_a, *d_b, *d_c;
static float *h_pin;
static cudaStream_t sb1, sb2, sn1, sn2, sn3;

/* Prints a call's result and the last error it left (and clears that). */
static cudaError_t C(const char *label, cudaError_t e)
{
    cudaError_t last = cudaGetLastError();
    printf("%-56s %s (last %s)\n", label, cudaGetErrorName(e), cudaGetErrorName(last));
    return e;
}

/* Prints a labelled value. */
#define V(label, fmt, ...) printf("%-56s " fmt "\n", label, __VA_ARGS__)

/* Name of a capture status. */
static const char *status_name(enum cudaStreamCaptureStatus s)
{
    switch (s) {
    case cudaStreamCaptureStatusNone: return "None";
    case cudaStreamCaptureStatusActive: return "Active";
    case cudaStreamCaptureStatusInvalidated: return "Invalidated";
    }
    return "?";
}

/* Prints cudaStreamIsCapturing's result and status for a stream. */
static void is_capturing(const char *label, cudaStream_t s)
{
    enum cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
    cudaError_t e = cudaStreamIsCapturing(s, &st);
    cudaError_t last = cudaGetLastError();
    printf("%-56s %s status %s (last %s)\n", label, cudaGetErrorName(e),
           e == cudaSuccess ? status_name(st) : "-", cudaGetErrorName(last));
}

/* y[0..N) = v on stream s. */
static cudaError_t fill(float *y, float v, cudaStream_t s)
{
    int n = N;
    void *args[] = {&y, &v, &n};
    return launch1d((const void *)k_fill, N / 256, 256, args, s);
}

/* y = a * x + y on stream s. */
static cudaError_t axpy(float a, float *x, float *y, cudaStream_t s)
{
    int n = N;
    void *args[] = {&a, &x, &y, &n};
    return launch1d((const void *)k_axpy, N / 256, 256, args, s);
}

/* y = y * a on stream s. */
static cudaError_t scale(float *y, float a, cudaStream_t s)
{
    int n = N;
    void *args[] = {&y, &a, &n};
    return launch1d((const void *)k_scale, N / 256, 256, args, s);
}

/* Reads element i of a device buffer (synchronous). */
static float dev_at(const float *d, int i)
{
    float v = -1.0f;
    cudaMemcpy(&v, d + i, sizeof v, cudaMemcpyDeviceToHost);
    return v;
}

/* Ends whatever capture is left on s and throws the graph away. */
static void end_quietly(cudaStream_t s)
{
    cudaGraph_t g = NULL;
    cudaStreamEndCapture(s, &g);
    if (g)
        cudaGraphDestroy(g);
    cudaGetLastError();
}

/* Number of nodes in a graph. */
static size_t node_count(cudaGraph_t g)
{
    size_t n = 0;
    cudaGraphGetNodes(g, NULL, &n);
    return n;
}

/* ---------------------------------------------------------------- errors */

/* Device selection, launch configuration errors and last-error rules. */
static void section_errors(void)
{
    printf("== errors\n");
    int count = -1, dev = -1;
    C("cudaGetDeviceCount", cudaGetDeviceCount(&count));
    V("device count >= 1", "%d", count >= 1);
    C("cudaSetDevice(0)", cudaSetDevice(0));
    C("cudaSetDevice(count)", cudaSetDevice(count));
    C("cudaGetDevice", cudaGetDevice(&dev));
    V("device", "%d", dev);

    float *y = d_a, v = 1.0f;
    int n = N;
    void *args[] = {&y, &v, &n};
    dim3 g1 = {1, 1, 1}, b2048 = {2048, 1, 1};
    cudaError_t e = cudaLaunchKernel((const void *)k_fill, g1, b2048, args, 0, 0);
    cudaError_t p1 = cudaPeekAtLastError(), p2 = cudaPeekAtLastError();
    cudaError_t l1 = cudaGetLastError(), l2 = cudaGetLastError();
    printf("%-56s %s peek %s peek %s get %s get %s\n", "launch block 2048",
           cudaGetErrorName(e), cudaGetErrorName(p1), cudaGetErrorName(p2),
           cudaGetErrorName(l1), cudaGetErrorName(l2));

    dim3 g0 = {0, 1, 1}, b256 = {256, 1, 1}, b3d = {32, 32, 2}, b1024 = {1024, 1, 1};
    dim3 gy = {1, 65536, 1}, bz = {1, 1, 65};
    C("launch grid 0", cudaLaunchKernel((const void *)k_fill, g0, b256, args, 0, 0));
    C("launch block 32x32x2", cudaLaunchKernel((const void *)k_fill, g1, b3d, args, 0, 0));
    C("launch block 1024", cudaLaunchKernel((const void *)k_fill, g1, b1024, args, 0, 0));
    C("launch grid.y 65536", cudaLaunchKernel((const void *)k_fill, gy, b256, args, 0, 0));
    C("launch block.z 65", cudaLaunchKernel((const void *)k_fill, g1, bz, args, 0, 0));
    C("launch of a host function", cudaLaunchKernel((const void *)C, g1, b256, args, 0, 0));
    C("launch NULL function", cudaLaunchKernel(NULL, g1, b256, args, 0, 0));
    C("cudaDeviceSynchronize", cudaDeviceSynchronize());
    V("k_fill with block 1024 ran", "%g", dev_at(d_a, 1023));

    for (size_t i = 0; i < 5; i++) {
        size_t off = 99, sz = 99;
        char label[64];
        snprintf(label, sizeof label, "cudaFuncGetParamInfo(k_axpy, %zu)", i);
        C(label, cudaFuncGetParamInfo((const void *)k_axpy, i, &off, &sz));
        V("  offset size", "%zu %zu", off, sz);
    }
    size_t off = 0, sz = 0;
    C("cudaFuncGetParamInfo(k_empty, 0)", cudaFuncGetParamInfo((const void *)k_empty, 0, &off, &sz));
    C("cudaFuncGetParamInfo(k_add_step, 3)", cudaFuncGetParamInfo((const void *)k_add_step, 3, &off, &sz));
    V("  offset size", "%zu %zu", off, sz);
    C("cudaFuncGetParamInfo(host function, 0)", cudaFuncGetParamInfo((const void *)C, 0, &off, &sz));

    cudaKernel_t k = NULL;
    C("__cudaGetKernel(k_fill)", __cudaGetKernel(&k, (const void *)k_fill));
    float v2 = 2.5f;
    void *args2[] = {&y, &v2, &n};
    dim3 g4 = {N / 256, 1, 1};
    C("__cudaLaunchKernel(k_fill)", __cudaLaunchKernel(k, g4, b256, args2, 0, 0));
    V("  result", "%g", dev_at(d_a, 7));
    C("__cudaLaunchKernel block 2048", __cudaLaunchKernel(k, g4, b2048, args2, 0, 0));
}

/* ---------------------------------------------------------------- memory */

/* Bad pointers, copy kinds, symbols, pinned and pageable memory. */
static void section_memory(void)
{
    printf("== memory\n");
    char *host = malloc(NB + 64);
    memset(host, 1, NB + 64);
    void *p = (void *)1;
    C("cudaMalloc 0 bytes", cudaMalloc(&p, 0));
    V("  pointer is NULL", "%d", p == NULL);
    C("cudaMalloc NULL out", cudaMalloc(NULL, 16));
    C("cudaFree(NULL)", cudaFree(NULL));
    C("cudaFree(pageable)", cudaFree(host));
    C("cudaFree(device + 4)", cudaFree((char *)d_a + 4));
    void *q = NULL;
    cudaMalloc(&q, 64);
    C("cudaFree(q)", cudaFree(q));
    C("cudaFree(q) again", cudaFree(q));
    C("cudaFreeHost(pageable)", cudaFreeHost(host));
    C("cudaFreeHost(device)", cudaFreeHost(d_a));
    C("cudaFreeHost(NULL)", cudaFreeHost(NULL));
    C("cudaFree(pinned)", cudaFree(h_pin));

    C("cudaMemcpy H2D to NULL", cudaMemcpy(NULL, host, 4, cudaMemcpyHostToDevice));
    C("cudaMemcpy 0 bytes NULL", cudaMemcpy(NULL, NULL, 0, cudaMemcpyHostToDevice));
    C("cudaMemcpy H2D overrun by 4", cudaMemcpy(d_a, host, NB + 4, cudaMemcpyHostToDevice));
    C("cudaMemcpy D2H overrun by 4", cudaMemcpy(host, d_a, NB + 4, cudaMemcpyDeviceToHost));
    C("cudaMemcpy D2D as HostToHost", cudaMemcpy(d_b, d_a, 16, cudaMemcpyHostToHost));
    C("cudaMemcpy device->pageable as H2D", cudaMemcpy(host, d_a, 16, cudaMemcpyHostToDevice));
    C("cudaMemcpy pageable->device as D2H", cudaMemcpy(d_a, host, 16, cudaMemcpyDeviceToHost));
    C("cudaMemcpy kind Default", cudaMemcpy(host, d_a, 16, cudaMemcpyDefault));
    C("cudaMemcpy kind 7", cudaMemcpy(host, d_a, 16, (enum cudaMemcpyKind)7));
    C("cudaMemcpy H2H pageable", cudaMemcpy(host, host + 64, 16, cudaMemcpyHostToHost));
    C("cudaMemcpy pageable->pinned as H2D", cudaMemcpy(h_pin, host, 16, cudaMemcpyHostToDevice));
    C("cudaMemcpy pinned->pageable as D2H", cudaMemcpy(host, h_pin, 16, cudaMemcpyDeviceToHost));
    C("cudaMemcpy pinned->device as D2D", cudaMemcpy(d_a, h_pin, 16, cudaMemcpyDeviceToDevice));
    C("cudaMemcpy pageable->device as D2D", cudaMemcpy(d_a, host, 16, cudaMemcpyDeviceToDevice));
    C("cudaMemcpy device->device as H2D", cudaMemcpy(d_b, d_a, 16, cudaMemcpyHostToDevice));
    C("cudaMemcpy device->device as D2H", cudaMemcpy(d_b, d_a, 16, cudaMemcpyDeviceToHost));
    C("cudaMemcpyAsync pageable->device as D2D", cudaMemcpyAsync(d_a, host, 16, cudaMemcpyDeviceToDevice, sn1));
    C("cudaMemcpyAsync device->pageable as H2D", cudaMemcpyAsync(host, d_a, 16, cudaMemcpyHostToDevice, sn1));
    C("cudaStreamSynchronize", cudaStreamSynchronize(sn1));
    C("cudaMemset(device overrun)", cudaMemset(d_a, 0, NB + 1));
    C("cudaMemset(pinned)", cudaMemset(h_pin, 0, 16));
    C("cudaMemsetAsync(NULL)", cudaMemsetAsync(NULL, 0, 16, 0));
    C("cudaMemcpyAsync overrun", cudaMemcpyAsync(d_a, h_pin, NB + 4, cudaMemcpyHostToDevice, 0));
    C("cudaMemcpy2D spitch < width", cudaMemcpy2D(d_a, 64, host, 16, 32, 4, cudaMemcpyHostToDevice));
    C("cudaMemcpy2D ok", cudaMemcpy2D(d_a, 64, host, 32, 32, 4, cudaMemcpyHostToDevice));
    cudaMemset(d_b, 0, 256);
    C("cudaMemset2D ok", cudaMemset2D(d_b, 64, 0x3f, 32, 4));
    C("cudaMemset2D pitch < width", cudaMemset2D(d_b, 16, 0x3f, 32, 4));
    report_device_hash("memset2D result", d_b, 256);

    float coef[4] = {1.5f, 2.0f, 0.25f, -1.0f}, back[4] = {0};
    const void *sym = k_coef_symbol();
    C("cudaMemcpyToSymbol", cudaMemcpyToSymbol(sym, coef, sizeof coef, 0, cudaMemcpyHostToDevice));
    C("cudaMemcpyToSymbol offset overrun", cudaMemcpyToSymbol(sym, coef, sizeof coef, 4, cudaMemcpyHostToDevice));
    C("cudaMemcpyToSymbol not a symbol", cudaMemcpyToSymbol(host, coef, 4, 0, cudaMemcpyHostToDevice));
    C("cudaMemcpyToSymbol kind D2H", cudaMemcpyToSymbol(sym, coef, 4, 0, cudaMemcpyDeviceToHost));
    C("cudaMemcpyFromSymbol", cudaMemcpyFromSymbol(back, sym, sizeof back, 0, cudaMemcpyDeviceToHost));
    V("  round trip equal", "%d", memcmp(coef, back, sizeof coef) == 0);
    C("cudaMemcpyToSymbolAsync D2D", cudaMemcpyToSymbolAsync(sym, d_b, 8, 8, cudaMemcpyDeviceToDevice, sn1));
    C("cudaMemcpyFromSymbolAsync", cudaMemcpyFromSymbolAsync(h_pin, sym, 16, 0, cudaMemcpyDeviceToHost, sn1));
    C("cudaStreamSynchronize", cudaStreamSynchronize(sn1));
    report_hash("  symbol after async copies", h_pin, 16);

    C("cudaMemcpyPeer to device 1", cudaMemcpyPeer(d_b, 1, d_a, 0, 16));
    C("cudaMemcpyPeer 0 -> 0", cudaMemcpyPeer(d_b, 0, d_a, 0, 16));
    C("cudaMemcpyPeerAsync 0 -> 0", cudaMemcpyPeerAsync(d_b, 0, d_a, 0, 16, sn1));
    void *hp = NULL;
    C("cudaHostAlloc bad flags", cudaHostAlloc(&hp, 64, 0x100));
    C("cudaHostAlloc mapped", cudaHostAlloc(&hp, 64, cudaHostAllocMapped));
    C("cudaFreeHost(hostalloc)", cudaFreeHost(hp));
    C("cudaMallocHost", cudaMallocHost(&hp, 64));
    C("cudaFreeHost(mallochost)", cudaFreeHost(hp));

    float *m = NULL;
    C("cudaMallocManaged", cudaMallocManaged((void **)&m, NB, cudaMemAttachGlobal));
    for (int i = 0; i < N; i++)
        m[i] = (float)i;
    C("scale managed", scale(m, 2.0f, 0));
    C("cudaDeviceSynchronize", cudaDeviceSynchronize());
    V("  managed[10]", "%g", m[10]);
    C("cudaFree(managed)", cudaFree(m));

    void *pa = NULL;
    C("cudaMallocAsync", cudaMallocAsync(&pa, NB, sn1));
    C("cudaMemsetAsync(mallocasync)", cudaMemsetAsync(pa, 0, NB, sn1));
    C("cudaFreeAsync", cudaFreeAsync(pa, sn1));
    C("cudaStreamSynchronize", cudaStreamSynchronize(sn1));

    /* Pageable H2D async: the bytes are staged before the call returns. */
    for (int i = 0; i < N; i++)
        ((float *)host)[i] = 4.0f;
    fill(d_c, 0.0f, sn1);
    for (int k = 0; k < 20; k++)
        scale(d_c, 1.0f, sn1);
    C("cudaMemcpyAsync pageable H2D", cudaMemcpyAsync(d_c, host, NB, cudaMemcpyHostToDevice, sn1));
    for (int i = 0; i < N; i++)
        ((float *)host)[i] = 9.0f;
    cudaStreamSynchronize(sn1);
    V("  device got the bytes at call time", "%g", dev_at(d_c, 5));
    /* Pageable D2H async: returns once the copy is done (measured). */
    fill(d_c, 6.0f, sn1);
    for (int k = 0; k < 20; k++)
        scale(d_c, 1.0f, sn1);
    C("cudaMemcpyAsync D2H pageable", cudaMemcpyAsync(host, d_c, NB, cudaMemcpyDeviceToHost, sn1));
    V("  host has the data without a sync", "%g", ((float *)host)[N - 1]);
    cudaStreamSynchronize(sn1);
    free(host);
}

/* ---------------------------------------------------------------- events and streams */

static int host_seen = -1;
static cudaError_t callback_status = cudaErrorUnknown;

/* Host function: remembers the first pinned value it sees. */
static void CUDART_CB host_read(void *ud)
{
    host_seen = (int)((float *)ud)[0];
}

/* Stream callback: remembers the status it was given. */
static void CUDART_CB stream_cb(cudaStream_t s, cudaError_t status, void *ud)
{
    (void)s;
    (void)ud;
    callback_status = status;
}

/* Events, stream flags and the orderings the runtime guarantees. */
static void section_events_streams(void)
{
    printf("== events and streams\n");
    cudaEvent_t en, en2, edt, t0, t1;
    float ms = -1.0f;
    C("cudaEventCreate", cudaEventCreate(&en));
    C("cudaEventCreate", cudaEventCreate(&en2));
    C("cudaEventCreateWithFlags bad", cudaEventCreateWithFlags(&edt, 0x100));
    C("cudaEventCreateWithFlags DisableTiming", cudaEventCreateWithFlags(&edt, cudaEventDisableTiming));
    C("cudaEventQuery never recorded", cudaEventQuery(en));
    C("cudaEventSynchronize never recorded", cudaEventSynchronize(en));
    C("cudaEventElapsedTime never recorded", cudaEventElapsedTime(&ms, en, en2));
    C("cudaStreamWaitEvent never recorded", cudaStreamWaitEvent(sn1, en, 0));
    C("cudaStreamWaitEvent bad flags", cudaStreamWaitEvent(sn1, en, 0x80));
    C("cudaEventRecord", cudaEventRecord(en, sn1));
    C("cudaEventSynchronize", cudaEventSynchronize(en));
    C("cudaEventElapsedTime one unrecorded", cudaEventElapsedTime(&ms, en, en2));
    C("cudaEventRecord DisableTiming", cudaEventRecord(edt, sn1));
    C("cudaEventSynchronize", cudaEventSynchronize(edt));
    C("cudaEventElapsedTime DisableTiming", cudaEventElapsedTime(&ms, en, edt));
    C("cudaEventRecordWithFlags External, no capture",
      cudaEventRecordWithFlags(en2, sn1, cudaEventRecordExternal));
    C("cudaEventRecordWithFlags bad", cudaEventRecordWithFlags(en2, sn1, 0x100));
    C("cudaEventCreate t0", cudaEventCreate(&t0));
    C("cudaEventCreate t1", cudaEventCreate(&t1));
    cudaEventRecord(t0, sn2);
    for (int k = 0; k < 10; k++)
        scale(d_a, 1.0f, sn2);
    cudaEventRecord(t1, sn2);
    C("cudaEventSynchronize t1", cudaEventSynchronize(t1));
    C("cudaEventQuery t0 after t1", cudaEventQuery(t0));
    ms = -1.0f;
    C("cudaEventElapsedTime", cudaEventElapsedTime(&ms, t0, t1));
    V("  elapsed >= 0", "%d", ms >= 0.0f);
    C("cudaEventDestroy", cudaEventDestroy(t0));
    C("cudaEventDestroy", cudaEventDestroy(t1));

    cudaStream_t s = NULL;
    C("cudaStreamCreateWithFlags bad", cudaStreamCreateWithFlags(&s, 0x10));
    C("cudaStreamCreateWithPriority -100", cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, -100));
    C("cudaStreamDestroy", cudaStreamDestroy(s));
    C("cudaStreamSynchronize legacy", cudaStreamSynchronize(0));
    C("cudaStreamSynchronize cudaStreamLegacy", cudaStreamSynchronize(cudaStreamLegacy));
    C("cudaStreamSynchronize per-thread", cudaStreamSynchronize(cudaStreamPerThread));
    C("cudaStreamQuery legacy, idle", cudaStreamQuery(0));
    C("cudaStreamQuery per-thread, idle", cudaStreamQuery(cudaStreamPerThread));

    /* Cross-stream order through an event: a long chain on sn1, then b += 2a on sn2. */
    fill(d_b, 1.0f, 0);
    cudaDeviceSynchronize();
    fill(d_a, 0.5f, sn1);
    for (int k = 0; k < 50; k++)
        scale(d_a, 1.5f, sn1);
    cudaEventRecord(en, sn1);
    C("cudaStreamWaitEvent", cudaStreamWaitEvent(sn2, en, 0));
    axpy(2.0f, d_a, d_b, sn2);
    C("cudaStreamSynchronize sn2", cudaStreamSynchronize(sn2));
    report_device_hash("  event ordering result", d_b, NB);

    /* Legacy stream: blocking sb1 -> legacy -> blocking sb2, no explicit waits. */
    fill(d_b, 0.0f, 0);
    cudaDeviceSynchronize();
    fill(d_a, 2.0f, sb1);
    for (int k = 0; k < 50; k++)
        scale(d_a, 1.0f, sb1);
    axpy(3.0f, d_a, d_b, 0);
    scale(d_b, 0.5f, sb2);
    C("cudaDeviceSynchronize", cudaDeviceSynchronize());
    V("  legacy ordering result", "%g", dev_at(d_b, 100));

    /* Per-thread default stream also synchronises with the legacy stream. */
    fill(d_c, 7.0f, cudaStreamPerThread);
    for (int k = 0; k < 50; k++)
        scale(d_c, 1.0f, cudaStreamPerThread);
    scale(d_c, 2.0f, 0);
    axpy(1.0f, d_c, d_c, cudaStreamPerThread);
    C("cudaStreamSynchronize per-thread", cudaStreamSynchronize(cudaStreamPerThread));
    V("  per-thread/legacy ordering result", "%g", dev_at(d_c, 3));

    /* Host function sees the copy issued before it. */
    fill(d_a, 11.0f, sn1);
    cudaMemcpyAsync(h_pin, d_a, 16, cudaMemcpyDeviceToHost, sn1);
    C("cudaLaunchHostFunc", cudaLaunchHostFunc(sn1, host_read, h_pin));
    C("cudaStreamAddCallback", cudaStreamAddCallback(sn1, stream_cb, NULL, 0));
    C("cudaStreamAddCallback bad flags", cudaStreamAddCallback(sn1, stream_cb, NULL, 1));
    C("cudaStreamSynchronize", cudaStreamSynchronize(sn1));
    V("  host function saw", "%d", host_seen);
    V("  callback status", "%s", cudaGetErrorName(callback_status));

    /* A deterministic float reduction. */
    float *hx = malloc(NB);
    for (int i = 0; i < N; i++)
        hx[i] = 1.0f / (float)(i + 1);
    cudaMemcpy(d_a, hx, NB, cudaMemcpyHostToDevice);
    int n = N;
    void *args[] = {&d_a, &d_b, &n};
    C("k_reduce_sum", launch1d((const void *)k_reduce_sum, 1, REDUCE_THREADS, args, sn1));
    cudaStreamSynchronize(sn1);
    float sum = dev_at(d_b, 0);
    uint32_t bits;
    memcpy(&bits, &sum, 4);
    V("  sum bits", "%08x", bits);
    free(hx);
    cudaEventDestroy(en);
    cudaEventDestroy(en2);
    cudaEventDestroy(edt);
}

/* ---------------------------------------------------------------- capture */

/* Begin/end, status queries, what becomes a node, fork and join. */
static void section_capture(void)
{
    printf("== capture\n");
    cudaGraph_t g = NULL;
    cudaEvent_t ef, ej;
    cudaEventCreateWithFlags(&ef, cudaEventDisableTiming);
    cudaEventCreateWithFlags(&ej, cudaEventDisableTiming);

    C("BeginCapture legacy", cudaStreamBeginCapture(0, cudaStreamCaptureModeGlobal));
    C("BeginCapture cudaStreamLegacy", cudaStreamBeginCapture(cudaStreamLegacy, cudaStreamCaptureModeGlobal));
    C("BeginCapture bad mode", cudaStreamBeginCapture(sn1, (enum cudaStreamCaptureMode)7));
    C("EndCapture not capturing", cudaStreamEndCapture(sn1, &g));
    V("  graph NULL", "%d", g == NULL);
    is_capturing("IsCapturing idle stream", sn1);
    is_capturing("IsCapturing legacy, no capture", 0);

    fill(d_a, 1.0f, 0);
    cudaDeviceSynchronize();
    C("BeginCapture sn1 global", cudaStreamBeginCapture(sn1, cudaStreamCaptureModeGlobal));
    C("BeginCapture sn1 again", cudaStreamBeginCapture(sn1, cudaStreamCaptureModeGlobal));
    is_capturing("IsCapturing sn1", sn1);
    is_capturing("IsCapturing legacy, non-blocking captures", 0);
    enum cudaStreamCaptureStatus st;
    unsigned long long id = 0, id2 = 0;
    cudaGraph_t cg = NULL;
    const cudaGraphNode_t *deps = NULL;
    const cudaGraphEdgeData *edges = NULL;
    size_t nd = 99;
    C("GetCaptureInfo at begin", cudaStreamGetCaptureInfo(sn1, &st, &id, &cg, &deps, NULL, &nd));
    V("  status id!=0 graph!=NULL ndeps", "%s %d %d %zu", status_name(st), id != 0, cg != NULL, nd);
    C("fill in capture", fill(d_a, 5.0f, sn1));
    C("GetCaptureInfo after launch", cudaStreamGetCaptureInfo(sn1, &st, &id2, &cg, &deps, &edges, &nd));
    enum cudaGraphNodeType t = (enum cudaGraphNodeType)-1;
    if (nd == 1)
        cudaGraphNodeGetType(deps[0], &t);
    V("  same id, ndeps, dep type, edges", "%d %zu %d %d", id == id2, nd, (int)t, edges != NULL);
    C("GetCaptureInfo status only", cudaStreamGetCaptureInfo(sn1, &st, NULL, NULL, NULL, NULL, NULL));
    V("  graph has nodes", "%zu", node_count(cg));
    V("  nothing ran during capture", "%g", dev_at(d_a, 0));

    /* Fork onto sn2 and sb1, then join. */
    C("EventRecord fork in capture", cudaEventRecord(ef, sn1));
    is_capturing("IsCapturing sn2 before join", sn2);
    C("StreamWaitEvent sn2 joins", cudaStreamWaitEvent(sn2, ef, 0));
    is_capturing("IsCapturing sn2 joined", sn2);
    unsigned long long id3 = 0;
    cudaStreamGetCaptureInfo(sn2, &st, &id3, NULL, NULL, NULL, &nd);
    V("  sn2 same capture id, ndeps", "%d %zu", id3 == id, nd);
    C("scale on sn2", scale(d_a, 2.0f, sn2));
    C("memsetAsync on sn1", cudaMemsetAsync(d_c, 0, NB, sn1));
    C("memcpyAsync D2D on sn1", cudaMemcpyAsync(d_b, d_c, NB, cudaMemcpyDeviceToDevice, sn1));
    C("memcpyAsync pinned H2D on sn1", cudaMemcpyAsync(d_c, h_pin, 64, cudaMemcpyHostToDevice, sn1));
    C("LaunchHostFunc in capture", cudaLaunchHostFunc(sn1, host_read, h_pin));
    C("EventRecord join on sn2", cudaEventRecord(ej, sn2));
    C("StreamWaitEvent sn1 join", cudaStreamWaitEvent(sn1, ej, 0));
    C("EventRecordWithFlags External", cudaEventRecordWithFlags(ej, sn1, cudaEventRecordExternal));
    C("StreamWaitEvent External", cudaStreamWaitEvent(sn1, ej, cudaEventWaitExternal));
    C("axpy on sn1", axpy(1.0f, d_a, d_a, sn1));
    C("EndCapture sn1", cudaStreamEndCapture(sn1, &g));
    V("  graph", "%d", g != NULL);
    is_capturing("IsCapturing sn1 after end", sn1);
    is_capturing("IsCapturing sn2 after end", sn2);
    if (!g)
        return;
    size_t nn = node_count(g);
    V("  nodes", "%zu", nn);
    cudaGraphNode_t *nodes = calloc(nn, sizeof *nodes);
    cudaGraphGetNodes(g, nodes, &nn);
    for (size_t i = 0; i < nn; i++) {
        cudaGraphNodeGetType(nodes[i], &t);
        size_t ndep = 0;
        cudaGraphNodeGetDependencies(nodes[i], NULL, NULL, &ndep);
        printf("  node %zu type %d deps %zu\n", i, (int)t, ndep);
        if (t == cudaGraphNodeTypeMemcpy) {
            struct cudaMemcpy3DParms p;
            memset(&p, 0x5a, sizeof p);
            C("  MemcpyNodeGetParams", cudaGraphMemcpyNodeGetParams(nodes[i], &p));
            printf("    srcArray %d dstArray %d srcPos %zu,%zu,%zu dstPos %zu,%zu,%zu\n",
                   p.srcArray == NULL, p.dstArray == NULL, p.srcPos.x, p.srcPos.y,
                   p.srcPos.z, p.dstPos.x, p.dstPos.y, p.dstPos.z);
            printf("    src is d_c/h_pin %d/%d pitch %zu xsize %zu ysize %zu\n",
                   p.srcPtr.ptr == d_c, p.srcPtr.ptr == h_pin, p.srcPtr.pitch,
                   p.srcPtr.xsize, p.srcPtr.ysize);
            printf("    dst is d_b/d_c %d/%d pitch %zu xsize %zu ysize %zu\n",
                   p.dstPtr.ptr == d_b, p.dstPtr.ptr == d_c, p.dstPtr.pitch,
                   p.dstPtr.xsize, p.dstPtr.ysize);
            printf("    extent %zu,%zu,%zu kind %d\n", p.extent.width, p.extent.height,
                   p.extent.depth, (int)p.kind);
        } else if (t == cudaGraphNodeTypeMemset) {
            struct cudaMemsetParams p;
            memset(&p, 0x5a, sizeof p);
            C("  MemsetNodeGetParams", cudaGraphMemsetNodeGetParams(nodes[i], &p));
            printf("    dst is d_c %d pitch %zu value %u elementSize %u width %zu height %zu\n",
                   p.dst == d_c, p.pitch, p.value, p.elementSize, p.width, p.height);
        } else if (t == cudaGraphNodeTypeKernel) {
            struct cudaKernelNodeParams p;
            memset(&p, 0x5a, sizeof p);
            C("  KernelNodeGetParams", cudaGraphKernelNodeGetParams(nodes[i], &p));
            printf("    func fill/scale/axpy %d/%d/%d grid %u block %u shmem %u extra %d\n",
                   p.func == (void *)k_fill, p.func == (void *)k_scale,
                   p.func == (void *)k_axpy, p.gridDim.x, p.blockDim.x,
                   p.sharedMemBytes, p.extra == NULL);
        }
    }
    free(nodes);

    cudaGraphExec_t ge = NULL;
    C("GraphInstantiate", cudaGraphInstantiate(&ge, g, 0));
    C("GraphLaunch sn3", cudaGraphLaunch(ge, sn3));
    C("StreamSynchronize sn3", cudaStreamSynchronize(sn3));
    V("  graph result a[0], b[0], c[0]", "%g %g %g", dev_at(d_a, 0), dev_at(d_b, 0), dev_at(d_c, 0));
    C("GraphLaunch legacy twice", cudaGraphLaunch(ge, 0));
    cudaGraphLaunch(ge, 0);
    C("DeviceSynchronize", cudaDeviceSynchronize());
    V("  a[0] after two more launches", "%g", dev_at(d_a, 0));
    C("GraphExecDestroy", cudaGraphExecDestroy(ge));
    C("GraphDestroy", cudaGraphDestroy(g));

    /* Capture the per-thread default stream. */
    C("BeginCapture per-thread", cudaStreamBeginCapture(cudaStreamPerThread, cudaStreamCaptureModeThreadLocal));
    C("fill on per-thread", fill(d_a, 3.0f, cudaStreamPerThread));
    C("EndCapture per-thread", cudaStreamEndCapture(cudaStreamPerThread, &g));
    V("  nodes", "%zu", g ? node_count(g) : 0);
    if (g)
        cudaGraphDestroy(g);

    /* Arguments are copied by value when captured. */
    float v = 8.0f;
    int n = N;
    float *y = d_a;
    void *args[] = {&y, &v, &n};
    cudaStreamBeginCapture(sn1, cudaStreamCaptureModeGlobal);
    launch1d((const void *)k_fill, N / 256, 256, args, sn1);
    v = 9.0f;
    y = d_b;
    cudaStreamEndCapture(sn1, &g);
    cudaGraphInstantiate(&ge, g, 0);
    fill(d_a, 0.0f, 0);
    cudaGraphLaunch(ge, 0);
    cudaDeviceSynchronize();
    V("  captured arguments frozen", "%g", dev_at(d_a, 0));
    cudaGraphExecDestroy(ge);
    cudaGraphDestroy(g);

    cudaEventDestroy(ef);
    cudaEventDestroy(ej);
}

/* ---------------------------------------------------------------- invalidation */

/* A launch on an invalidated capture, the end result, and the status after. */
static void after_invalidation(cudaStream_t s, const char *what)
{
    char label[96];
    snprintf(label, sizeof label, "  %s: IsCapturing", what);
    is_capturing(label, s);
    snprintf(label, sizeof label, "  %s: launch after", what);
    C(label, fill(d_a, 1.0f, s));
    enum cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
    snprintf(label, sizeof label, "  %s: GetCaptureInfo", what);
    C(label, cudaStreamGetCaptureInfo(s, &st, NULL, NULL, NULL, NULL, NULL));
    V("    status", "%s", status_name(st));
    cudaGraph_t g = (cudaGraph_t)1;
    snprintf(label, sizeof label, "  %s: EndCapture", what);
    C(label, cudaStreamEndCapture(s, &g));
    V("    graph NULL", "%d", g == NULL);
    if (g && g != (cudaGraph_t)1)
        cudaGraphDestroy(g);
    snprintf(label, sizeof label, "  %s: IsCapturing after end", what);
    is_capturing(label, s);
}

static void *to_free[8];
static int n_to_free;

/* Frees what helper threads allocated, once no capture is running. */
static void free_later(void)
{
    while (n_to_free > 0)
        cudaFree(to_free[--n_to_free]);
}

/* One call made on a helper thread: what it needs, and what it got. */
struct on_thread {
    void (*call)(struct on_thread *t); /* makes the call, sets result */
    cudaStream_t s;
    enum cudaStreamCaptureMode mode;   /* cudaMalloc: the helper thread's interaction mode, if exchange */
    bool exchange;
    cudaError_t result;
    void *p;                           /* cudaMalloc's pointer */
    cudaGraph_t g;                     /* cudaStreamEndCapture's graph */
};

/* Helper thread: makes t's call, then clears its own last error. */
static void *helper_thread(void *arg)
{
    struct on_thread *t = arg;
    t->call(t);
    cudaGetLastError();
    return NULL;
}

/* Makes t's call on a helper thread, waits for it, and returns the error it got. */
static cudaError_t on_other_thread(struct on_thread *t)
{
    pthread_t th;
    t->result = cudaErrorUnknown;
    pthread_create(&th, NULL, helper_thread, t);
    pthread_join(th, NULL);
    return t->result;
}

/* cudaMalloc, optionally after changing the thread's capture mode. */
static void call_malloc(struct on_thread *t)
{
    if (t->exchange) {
        enum cudaStreamCaptureMode m = t->mode;
        cudaThreadExchangeStreamCaptureMode(&m);
    }
    t->result = cudaMalloc(&t->p, 256);
}

/* Synchronises t's stream. */
static void call_sync(struct on_thread *t)
{
    t->result = cudaStreamSynchronize(t->s);
}

/* Launches one kernel on t's stream. */
static void call_launch(struct on_thread *t)
{
    t->result = fill(d_b, 3.0f, t->s);
}

/* Ends the capture of t's stream, begun elsewhere. */
static void call_end_capture(struct on_thread *t)
{
    t->result = cudaStreamEndCapture(t->s, &t->g);
}

/* Runs cudaMalloc on another thread and prints its result. */
static void malloc_on_other_thread(const char *label, bool exchange, enum cudaStreamCaptureMode mode)
{
    struct on_thread t = {.call = call_malloc, .mode = mode, .exchange = exchange};
    printf("%-56s %s\n", label, cudaGetErrorName(on_other_thread(&t)));
    if (t.p)
        to_free[n_to_free++] = t.p;
}

/* Makes call on stream s from another thread and prints the result. */
static void stream_call_on_other_thread(const char *label, void (*call)(struct on_thread *), cudaStream_t s)
{
    struct on_thread t = {.call = call, .s = s};
    printf("%-56s %s\n", label, cudaGetErrorName(on_other_thread(&t)));
}

/* Ends s's capture from another thread and prints the result. */
static void end_on_other_thread(const char *label, cudaStream_t s)
{
    struct on_thread t = {.call = call_end_capture, .s = s};
    cudaError_t result = on_other_thread(&t);
    printf("%-56s %s graph %d\n", label, cudaGetErrorName(result), t.g != NULL);
    if (t.g)
        cudaGraphDestroy(t.g);
}

/* Every way to break a capture, and what each later call returns. */
static void section_invalidation(void)
{
    printf("== invalidation\n");
    cudaEvent_t e, eo;
    cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
    cudaEventCreateWithFlags(&eo, cudaEventDisableTiming);
    cudaGraph_t g = NULL;
    void *p = NULL;

    printf("-- sync of the capturing stream\n");
    cudaStreamBeginCapture(sn1, cudaStreamCaptureModeGlobal);
    fill(d_a, 2.0f, sn1);
    C("StreamSynchronize capturing", cudaStreamSynchronize(sn1));
    after_invalidation(sn1, "sync");

    printf("-- query of the capturing stream\n");
    cudaStreamBeginCapture(sn1, cudaStreamCaptureModeGlobal);
    fill(d_a, 2.0f, sn1);
    C("StreamQuery capturing", cudaStreamQuery(sn1));
    after_invalidation(sn1, "query");

    printf("-- query of a captured event\n");
    cudaStreamBeginCapture(sn1, cudaStreamCaptureModeGlobal);
    fill(d_a, 2.0f, sn1);
    cudaEventRecord(e, sn1);
    C("EventQuery captured", cudaEventQuery(e));
    after_invalidation(sn1, "event query");
    C("EventQuery after capture ended", cudaEventQuery(e));
    C("EventSynchronize after capture ended", cudaEventSynchronize(e));
    C("StreamWaitEvent (outside) after capture ended", cudaStreamWaitEvent(sn2, e, 0));
    is_capturing("  sn2 after that wait", sn2);
    cudaEventRecord(e, sn1);
    C("EventSynchronize after recording outside", cudaEventSynchronize(e));

    printf("-- event recorded in a capture that ended well\n");
    cudaStreamBeginCapture(sn1, cudaStreamCaptureModeGlobal);
    fill(d_a, 2.0f, sn1);
    cudaEventRecord(e, sn1);
    C("EndCapture", cudaStreamEndCapture(sn1, &g));
    C("EventQuery", cudaEventQuery(e));
    C("EventSynchronize", cudaEventSynchronize(e));
    C("StreamWaitEvent outside capture", cudaStreamWaitEvent(sn2, e, 0));
    cudaStreamBeginCapture(sn3, cudaStreamCaptureModeGlobal);
    C("StreamWaitEvent in another capture", cudaStreamWaitEvent(sn3, e, 0));
    is_capturing("IsCapturing", sn3);
    end_quietly(sn3);
    if (g) {
        cudaGraphExec_t ge0 = NULL;
        cudaGraphInstantiate(&ge0, g, 0);
        cudaGraphLaunch(ge0, sn1);
        cudaStreamSynchronize(sn1);
        C("EventQuery after the graph ran", cudaEventQuery(e));
        cudaGraphExecDestroy(ge0);
        cudaGraphDestroy(g);
    }
    g = NULL;
    cudaEventRecord(e, sn1);
    C("EventSynchronize after recording outside", cudaEventSynchronize(e));

    printf("-- synchronize of a captured event\n");
    cudaStreamBeginCapture(sn1, cudaStreamCaptureModeGlobal);
    fill(d_a, 2.0f, sn1);
    cudaEventRecord(e, sn1);
    C("EventSynchronize captured", cudaEventSynchronize(e));
    after_invalidation(sn1, "event sync");
    cudaEventRecord(e, sn1);
    cudaEventSynchronize(e);

    printf("-- legacy stream while a blocking stream captures\n");
    cudaStreamBeginCapture(sb1, cudaStreamCaptureModeGlobal);
    fill(d_a, 2.0f, sb1);
    is_capturing("IsCapturing legacy", 0);
    enum cudaStreamCaptureStatus lst = cudaStreamCaptureStatusNone;
    C("GetCaptureInfo legacy", cudaStreamGetCaptureInfo(0, &lst, NULL, NULL, NULL, NULL, NULL));
    is_capturing("IsCapturing sb1 after those", sb1);
    C("launch on legacy", fill(d_b, 1.0f, 0));
    after_invalidation(sb1, "legacy launch");
    cudaStreamBeginCapture(sb1, cudaStreamCaptureModeGlobal);
    fill(d_a, 2.0f, sb1);
    C("synchronous cudaMemcpy (legacy)", cudaMemcpy(h_pin, d_b, 16, cudaMemcpyDeviceToHost));
    after_invalidation(sb1, "legacy memcpy");
    cudaStreamBeginCapture(sb1, cudaStreamCaptureModeGlobal);
    fill(d_a, 2.0f, sb1);
    C("StreamSynchronize legacy", cudaStreamSynchronize(0));
    after_invalidation(sb1, "legacy sync");
    cudaStreamBeginCapture(sb1, cudaStreamCaptureModeGlobal);
    fill(d_a, 2.0f, sb1);
    C("launch on non-blocking sn2", fill(d_b, 1.0f, sn2));
    C("launch on per-thread stream", fill(d_b, 1.0f, cudaStreamPerThread));
    C("EndCapture sb1", cudaStreamEndCapture(sb1, &g));
    if (g)
        cudaGraphDestroy(g);
    cudaDeviceSynchronize();

    printf("-- legacy stream while a non-blocking stream captures\n");
    cudaStreamBeginCapture(sn1, cudaStreamCaptureModeGlobal);
    fill(d_a, 2.0f, sn1);
    C("launch on legacy", fill(d_b, 1.0f, 0));
    C("StreamSynchronize legacy", cudaStreamSynchronize(0));
    C("EndCapture", cudaStreamEndCapture(sn1, &g));
    V("  graph", "%d", g != NULL);
    if (g)
        cudaGraphDestroy(g);

    printf("-- device synchronize during capture\n");
    cudaStreamBeginCapture(sn1, cudaStreamCaptureModeGlobal);
    fill(d_a, 2.0f, sn1);
    C("DeviceSynchronize", cudaDeviceSynchronize());
    after_invalidation(sn1, "device sync");

    printf("-- sync of another stream during capture\n");
    cudaStreamBeginCapture(sn1, cudaStreamCaptureModeGlobal);
    fill(d_a, 2.0f, sn1);
    C("StreamSynchronize sn2", cudaStreamSynchronize(sn2));
    C("StreamQuery sn2 (idle)", cudaStreamQuery(sn2));
    C("EndCapture", cudaStreamEndCapture(sn1, &g));
    if (g)
        cudaGraphDestroy(g);

    printf("-- cudaMalloc in each capture mode\n");
    const enum cudaStreamCaptureMode modes[3] = {cudaStreamCaptureModeGlobal,
                                                 cudaStreamCaptureModeThreadLocal,
                                                 cudaStreamCaptureModeRelaxed};
    const char *mode_names[3] = {"global", "thread-local", "relaxed"};
    for (int m = 0; m < 3; m++) {
        char label[96];
        printf("- mode %s\n", mode_names[m]);
        cudaStreamBeginCapture(sn1, modes[m]);
        fill(d_a, 2.0f, sn1);
        malloc_on_other_thread("cudaMalloc on another thread", false, cudaStreamCaptureModeGlobal);
        is_capturing("IsCapturing", sn1);
        malloc_on_other_thread("  same, thread mode thread-local", true, cudaStreamCaptureModeThreadLocal);
        malloc_on_other_thread("  same, thread mode relaxed", true, cudaStreamCaptureModeRelaxed);
        is_capturing("IsCapturing", sn1);
        p = NULL;
        snprintf(label, sizeof label, "cudaMalloc (%s)", mode_names[m]);
        C(label, cudaMalloc(&p, 256));
        is_capturing("IsCapturing", sn1);
        C("EndCapture", cudaStreamEndCapture(sn1, &g));
        V("  graph", "%d", g != NULL);
        if (g)
            cudaGraphDestroy(g);
        g = NULL;
        if (p)
            cudaFree(p);
        free_later();
    }

    printf("-- synchronising calls in each capture mode\n");
    cudaEvent_t eidle;
    cudaEventCreateWithFlags(&eidle, cudaEventDisableTiming);
    cudaEventRecord(eidle, sn2);
    cudaStreamSynchronize(sn2);
    for (int m = 0; m < 3; m++) {
        printf("- mode %s\n", mode_names[m]);
        for (int call = 0; call < 6; call++) {
            static const char *names[6] = {"StreamSynchronize other stream", "StreamQuery other stream",
                                           "EventSynchronize other event", "EventQuery other event",
                                           "DeviceSynchronize", "StreamSynchronize per-thread"};
            cudaStreamBeginCapture(sn1, modes[m]);
            fill(d_a, 2.0f, sn1);
            cudaError_t r = cudaSuccess;
            switch (call) {
            case 0: r = cudaStreamSynchronize(sn2); break;
            case 1: r = cudaStreamQuery(sn2); break;
            case 2: r = cudaEventSynchronize(eidle); break;
            case 3: r = cudaEventQuery(eidle); break;
            case 4: r = cudaDeviceSynchronize(); break;
            case 5: r = cudaStreamSynchronize(cudaStreamPerThread); break;
            }
            C(names[call], r);
            C("  EndCapture", cudaStreamEndCapture(sn1, &g));
            if (g)
                cudaGraphDestroy(g);
            g = NULL;
        }
    }
    printf("- another thread, global capture\n");
    cudaStreamBeginCapture(sn1, cudaStreamCaptureModeGlobal);
    fill(d_a, 2.0f, sn1);
    stream_call_on_other_thread("StreamSynchronize other stream on another thread", call_sync, sn2);
    is_capturing("IsCapturing", sn1);
    C("EndCapture", cudaStreamEndCapture(sn1, &g));
    if (g)
        cudaGraphDestroy(g);
    g = NULL;
    cudaEventDestroy(eidle);

    printf("-- cudaThreadExchangeStreamCaptureMode\n");
    enum cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    cudaStreamBeginCapture(sn1, cudaStreamCaptureModeGlobal);
    fill(d_a, 2.0f, sn1);
    C("exchange to relaxed", cudaThreadExchangeStreamCaptureMode(&mode));
    V("  previous mode", "%d", (int)mode);
    p = NULL;
    C("cudaMalloc while relaxed", cudaMalloc(&p, 256));
    C("cudaFree while relaxed", cudaFree(p));
    C("exchange back", cudaThreadExchangeStreamCaptureMode(&mode));
    V("  previous mode", "%d", (int)mode);
    mode = (enum cudaStreamCaptureMode)7;
    C("exchange to bad mode", cudaThreadExchangeStreamCaptureMode(&mode));
    C("exchange back", cudaThreadExchangeStreamCaptureMode(&mode));
    V("  previous mode", "%d", (int)mode);
    C("EndCapture", cudaStreamEndCapture(sn1, &g));
    V("  graph", "%d", g != NULL);
    if (g)
        cudaGraphDestroy(g);

    printf("-- other unsafe calls in a global capture\n");
    void *q = NULL;
    cudaMalloc(&q, 256);
    cudaStreamBeginCapture(sn1, cudaStreamCaptureModeGlobal);
    fill(d_a, 2.0f, sn1);
    C("cudaFree in global capture", cudaFree(q));
    after_invalidation(sn1, "cudaFree");
    cudaFree(q);
    cudaStreamBeginCapture(sn1, cudaStreamCaptureModeGlobal);
    fill(d_a, 2.0f, sn1);
    p = NULL;
    C("cudaMallocHost in global capture", cudaMallocHost(&p, 256));
    after_invalidation(sn1, "cudaMallocHost");
    if (p)
        cudaFreeHost(p);
    cudaStreamBeginCapture(sn1, cudaStreamCaptureModeGlobal);
    fill(d_a, 2.0f, sn1);
    cudaEvent_t ex;
    cudaStream_t sx;
    C("cudaEventCreate in global capture", cudaEventCreate(&ex));
    C("cudaStreamCreate in global capture", cudaStreamCreateWithFlags(&sx, cudaStreamNonBlocking));
    C("cudaEventDestroy in global capture", cudaEventDestroy(ex));
    C("cudaStreamDestroy in global capture", cudaStreamDestroy(sx));
    C("EndCapture", cudaStreamEndCapture(sn1, &g));
    V("  graph", "%d", g != NULL);
    if (g)
        cudaGraphDestroy(g);

    printf("-- unjoined fork\n");
    cudaStreamBeginCapture(sn1, cudaStreamCaptureModeGlobal);
    fill(d_a, 2.0f, sn1);
    cudaEventRecord(e, sn1);
    cudaStreamWaitEvent(sn2, e, 0);
    scale(d_b, 2.0f, sn2);
    C("EndCapture with sn2 unjoined", cudaStreamEndCapture(sn1, &g));
    V("  graph NULL", "%d", g == NULL);
    is_capturing("IsCapturing sn1", sn1);
    is_capturing("IsCapturing sn2", sn2);
    C("launch on sn2 after", scale(d_b, 1.0f, sn2));
    C("EndCapture sn2", cudaStreamEndCapture(sn2, &g));
    C("StreamSynchronize sn2", cudaStreamSynchronize(sn2));

    printf("-- fork with no work on the forked stream\n");
    cudaStreamBeginCapture(sn1, cudaStreamCaptureModeGlobal);
    fill(d_a, 2.0f, sn1);
    cudaEventRecord(e, sn1);
    cudaStreamWaitEvent(sn2, e, 0);
    fill(d_a, 3.0f, sn1);
    C("EndCapture, sn2 joined but idle", cudaStreamEndCapture(sn1, &g));
    V("  graph", "%d", g != NULL);
    if (g)
        cudaGraphDestroy(g);
    g = NULL;
    is_capturing("IsCapturing sn2", sn2);

    printf("-- EndCapture on a joined stream\n");
    cudaStreamBeginCapture(sn1, cudaStreamCaptureModeGlobal);
    fill(d_a, 2.0f, sn1);
    cudaEventRecord(e, sn1);
    cudaStreamWaitEvent(sn2, e, 0);
    scale(d_b, 2.0f, sn2);
    C("EndCapture on sn2 (not origin)", cudaStreamEndCapture(sn2, &g));
    is_capturing("IsCapturing sn2 after failed end", sn2);
    after_invalidation(sn1, "unmatched end");
    is_capturing("IsCapturing sn2 after origin ended", sn2);

    printf("-- joined stream synchronised\n");
    cudaStreamBeginCapture(sn1, cudaStreamCaptureModeGlobal);
    fill(d_a, 2.0f, sn1);
    cudaEventRecord(e, sn1);
    cudaStreamWaitEvent(sn2, e, 0);
    C("StreamSynchronize joined sn2", cudaStreamSynchronize(sn2));
    is_capturing("IsCapturing sn1", sn1);
    after_invalidation(sn2, "joined sync (sn2)");
    after_invalidation(sn1, "joined sync (sn1)");
    is_capturing("IsCapturing sn2 after origin ended", sn2);

    printf("-- waits that cross the capture boundary\n");
    cudaEventRecord(eo, sn2);
    cudaStreamSynchronize(sn2);
    cudaStreamBeginCapture(sn1, cudaStreamCaptureModeGlobal);
    fill(d_a, 2.0f, sn1);
    C("StreamWaitEvent on an event recorded outside", cudaStreamWaitEvent(sn1, eo, 0));
    is_capturing("IsCapturing", sn1);
    C("EndCapture", cudaStreamEndCapture(sn1, &g));
    V("  graph", "%d", g != NULL);
    if (g) {
        V("  nodes", "%zu", node_count(g));
        cudaGraphDestroy(g);
    }
    g = NULL;
    cudaStreamBeginCapture(sn1, cudaStreamCaptureModeGlobal);
    cudaStreamBeginCapture(sn2, cudaStreamCaptureModeGlobal);
    fill(d_a, 2.0f, sn1);
    cudaEventRecord(e, sn1);
    C("wait across two captures", cudaStreamWaitEvent(sn2, e, 0));
    is_capturing("IsCapturing sn1", sn1);
    is_capturing("IsCapturing sn2", sn2);
    end_quietly(sn2);
    end_quietly(sn1);

    printf("-- odd cases\n");
    cudaEvent_t enew;
    cudaEventCreateWithFlags(&enew, cudaEventDisableTiming);
    cudaStreamBeginCapture(sn1, cudaStreamCaptureModeGlobal);
    fill(d_a, 2.0f, sn1);
    C("wait on a never-recorded event in capture", cudaStreamWaitEvent(sn1, enew, 0));
    is_capturing("IsCapturing", sn1);
    end_quietly(sn1);
    cudaEventDestroy(enew);
    cudaStreamBeginCapture(sn1, cudaStreamCaptureModeGlobal);
    fill(d_a, 2.0f, sn1);
    {
        float *y = d_a, v = 1.0f;
        int n = N;
        void *args[] = {&y, &v, &n};
        dim3 g1 = {1, 1, 1}, b2048 = {2048, 1, 1};
        C("bad launch configuration in capture",
          cudaLaunchKernel((const void *)k_fill, g1, b2048, args, 0, sn1));
    }
    is_capturing("IsCapturing", sn1);
    C("EndCapture", cudaStreamEndCapture(sn1, &g));
    V("  graph", "%d", g != NULL);
    if (g)
        cudaGraphDestroy(g);
    g = NULL;
    C("cudaFreeAsync(NULL)", cudaFreeAsync(NULL, sn1));
    cudaStream_t sd;
    cudaStreamCreateWithFlags(&sd, cudaStreamNonBlocking);
    cudaStreamBeginCapture(sd, cudaStreamCaptureModeGlobal);
    fill(d_a, 2.0f, sd);
    C("StreamDestroy of a capturing stream", cudaStreamDestroy(sd));
    cudaStreamBeginCapture(sn1, cudaStreamCaptureModeGlobal);
    fill(d_a, 2.0f, sn1);
    stream_call_on_other_thread("launch into the capture from another thread", call_launch, sn1);
    C("EndCapture", cudaStreamEndCapture(sn1, &g));
    V("  nodes", "%zu", g ? node_count(g) : 0);
    if (g)
        cudaGraphDestroy(g);
    g = NULL;

    printf("-- calls that cannot be captured\n");
    char *pageable = malloc(256);
    memset(pageable, 0, 256);
    cudaStreamBeginCapture(sn1, cudaStreamCaptureModeGlobal);
    C("memcpyAsync pageable H2D in capture", cudaMemcpyAsync(d_a, pageable, 256, cudaMemcpyHostToDevice, sn1));
    after_invalidation(sn1, "pageable copy");
    cudaStreamBeginCapture(sn1, cudaStreamCaptureModeGlobal);
    C("memcpyAsync D2H pageable in capture", cudaMemcpyAsync(pageable, d_a, 256, cudaMemcpyDeviceToHost, sn1));
    after_invalidation(sn1, "pageable D2H copy");
    cudaStreamBeginCapture(sn1, cudaStreamCaptureModeGlobal);
    C("StreamAddCallback in capture", cudaStreamAddCallback(sn1, stream_cb, NULL, 0));
    after_invalidation(sn1, "callback");
    free(pageable);

    cudaGraph_t g1 = NULL;
    cudaGraphExec_t ge = NULL;
    cudaStreamBeginCapture(sn1, cudaStreamCaptureModeGlobal);
    fill(d_a, 4.0f, sn1);
    cudaStreamEndCapture(sn1, &g1);
    cudaGraphInstantiate(&ge, g1, 0);
    cudaStreamBeginCapture(sn1, cudaStreamCaptureModeGlobal);
    C("GraphLaunch in capture", cudaGraphLaunch(ge, sn1));
    C("EndCapture", cudaStreamEndCapture(sn1, &g));
    V("  graph", "%d", g != NULL);
    if (g) {
        size_t nn = node_count(g);
        cudaGraphNode_t nodes[8];
        enum cudaGraphNodeType t = (enum cudaGraphNodeType)-1;
        if (nn >= 1 && nn <= 8) {
            cudaGraphGetNodes(g, nodes, &nn);
            cudaGraphNodeGetType(nodes[0], &t);
        }
        V("  nodes, first type", "%zu %d", nn, (int)t);
        cudaGraphDestroy(g);
    }
    g = NULL;
    cudaGraphExecDestroy(ge);
    cudaGraphDestroy(g1);

    printf("-- ending from another thread\n");
    cudaStreamBeginCapture(sn1, cudaStreamCaptureModeGlobal);
    fill(d_a, 2.0f, sn1);
    end_on_other_thread("EndCapture global from another thread", sn1);
    is_capturing("IsCapturing", sn1);
    end_quietly(sn1);
    cudaStreamBeginCapture(sn1, cudaStreamCaptureModeRelaxed);
    fill(d_a, 2.0f, sn1);
    end_on_other_thread("EndCapture relaxed from another thread", sn1);
    is_capturing("IsCapturing", sn1);
    end_quietly(sn1);

    printf("-- stream-ordered allocation in capture\n");
    cudaStreamBeginCapture(sn1, cudaStreamCaptureModeGlobal);
    p = NULL;
    C("MallocAsync in capture", cudaMallocAsync(&p, NB, sn1));
    C("MemsetAsync on it", cudaMemsetAsync(p, 0, NB, sn1));
    C("FreeAsync in capture", cudaFreeAsync(p, sn1));
    C("EndCapture", cudaStreamEndCapture(sn1, &g));
    if (g) {
        size_t nn = node_count(g);
        cudaGraphNode_t nodes[8];
        if (nn <= 8) {
            cudaGraphGetNodes(g, nodes, &nn);
            for (size_t i = 0; i < nn; i++) {
                enum cudaGraphNodeType t;
                cudaGraphNodeGetType(nodes[i], &t);
                printf("  node %zu type %d\n", i, (int)t);
            }
        }
        C("GraphInstantiate", cudaGraphInstantiate(&ge, g, 0));
        C("GraphLaunch", cudaGraphLaunch(ge, sn1));
        C("GraphLaunch again", cudaGraphLaunch(ge, sn1));
        C("StreamSynchronize", cudaStreamSynchronize(sn1));
        cudaGraphExecDestroy(ge);
        cudaGraphDestroy(g);
    }
    cudaDeviceSynchronize();
    cudaGetLastError();
    cudaEventDestroy(e);
    cudaEventDestroy(eo);
}

/* ---------------------------------------------------------------- graphs */

/* Captures fill(a, v0); scale(a, s) [; extra axpy] on sn1 into a graph. */
static cudaGraph_t capture_chain(float *a, float v0, float s, bool extra)
{
    cudaGraph_t g = NULL;
    cudaStreamBeginCapture(sn1, cudaStreamCaptureModeThreadLocal);
    fill(a, v0, sn1);
    scale(a, s, sn1);
    if (extra)
        axpy(1.0f, a, a, sn1);
    cudaStreamEndCapture(sn1, &g);
    return g;
}

/* Prints an update's return, result code and whether the error nodes are set. */
static void show_update(const char *label, cudaGraphExec_t ge, cudaGraph_t g)
{
    cudaGraphExecUpdateResultInfo info;
    memset(&info, 0x5a, sizeof info);
    cudaError_t e = cudaGraphExecUpdate(ge, g, &info);
    cudaError_t last = cudaGetLastError();
    printf("%-56s %s result %d errorNode %d errorFromNode %d (last %s)\n", label,
           cudaGetErrorName(e), (int)info.result, info.errorNode != NULL,
           info.errorFromNode != NULL, cudaGetErrorName(last));
}

/* Explicit graph construction, instantiate, update and exec SetParams. */
static void section_graphs(void)
{
    printf("== graphs\n");
    cudaGraph_t g = NULL, g2 = NULL;
    cudaGraphExec_t ge = NULL;

    /* ExecUpdate: same topology with new parameters is accepted. */
    g = capture_chain(d_a, 1.0f, 2.0f, false);
    C("GraphInstantiate", cudaGraphInstantiate(&ge, g, 0));
    g2 = capture_chain(d_b, 3.0f, 5.0f, false);
    show_update("ExecUpdate new pointer and scalars", ge, g2);
    cudaGraphLaunch(ge, sn1);
    cudaStreamSynchronize(sn1);
    V("  b[0] after launch", "%g", dev_at(d_b, 0));
    {
        cudaGraphNode_t un[2];
        size_t nu = 2;
        struct cudaKernelNodeParams up;
        cudaGraphGetNodes(g2, un, &nu);
        cudaGraphKernelNodeGetParams(un[0], &up);
        C("ExecKernelNodeSetParams, node of the update graph",
          cudaGraphExecKernelNodeSetParams(ge, un[0], &up));
        cudaGraphGetNodes(g, un, &nu);
        cudaGraphKernelNodeGetParams(un[0], &up);
        C("ExecKernelNodeSetParams, node of the first graph",
          cudaGraphExecKernelNodeSetParams(ge, un[0], &up));
    }
    cudaGraphDestroy(g2);
    g2 = capture_chain(d_b, 3.0f, 5.0f, true);
    show_update("ExecUpdate one more node", ge, g2);
    cudaGraphDestroy(g2);

    /* A node of another type in the same place. */
    cudaStreamBeginCapture(sn1, cudaStreamCaptureModeThreadLocal);
    fill(d_a, 1.0f, sn1);
    cudaMemsetAsync(d_a, 0, NB, sn1);
    cudaStreamEndCapture(sn1, &g2);
    show_update("ExecUpdate node type changed", ge, g2);
    cudaGraphDestroy(g2);

    /* Another kernel function in the same place (allowed since CUDA 11.2). */
    cudaStreamBeginCapture(sn1, cudaStreamCaptureModeThreadLocal);
    fill(d_a, 1.0f, sn1);
    axpy(1.0f, d_b, d_a, sn1);
    cudaStreamEndCapture(sn1, &g2);
    show_update("ExecUpdate kernel function changed", ge, g2);
    cudaGraphLaunch(ge, sn1);
    cudaStreamSynchronize(sn1);
    V("  a[0] after launch", "%g", dev_at(d_a, 0));
    cudaGraphDestroy(g2);
    cudaGraphExecDestroy(ge);
    cudaGraphDestroy(g);

    /* Same count, different edges: a fork instead of a chain. */
    cudaEvent_t e;
    cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
    cudaStreamBeginCapture(sn1, cudaStreamCaptureModeThreadLocal);
    fill(d_a, 1.0f, sn1);
    scale(d_a, 2.0f, sn1);
    fill(d_b, 1.0f, sn1);
    cudaStreamEndCapture(sn1, &g);
    cudaGraphInstantiate(&ge, g, 0);
    cudaStreamBeginCapture(sn1, cudaStreamCaptureModeThreadLocal);
    fill(d_a, 1.0f, sn1);
    cudaEventRecord(e, sn1);
    cudaStreamWaitEvent(sn2, e, 0);
    scale(d_a, 2.0f, sn1);
    fill(d_b, 1.0f, sn2);
    cudaEventRecord(e, sn2);
    cudaStreamWaitEvent(sn1, e, 0);
    cudaStreamEndCapture(sn1, &g2);
    show_update("ExecUpdate edges changed", ge, g2);
    cudaGraphDestroy(g2);

    /* memset width change (1-D) and memcpy destination type change. */
    cudaGraphExecDestroy(ge);
    cudaGraphDestroy(g);
    cudaStreamBeginCapture(sn1, cudaStreamCaptureModeThreadLocal);
    cudaMemsetAsync(d_a, 1, NB, sn1);
    cudaMemcpyAsync(d_b, d_a, NB, cudaMemcpyDeviceToDevice, sn1);
    cudaStreamEndCapture(sn1, &g);
    C("GraphInstantiate", cudaGraphInstantiate(&ge, g, 0));
    cudaStreamBeginCapture(sn1, cudaStreamCaptureModeThreadLocal);
    cudaMemsetAsync(d_a, 2, NB / 2, sn1);
    cudaMemcpyAsync(d_b, d_a, NB, cudaMemcpyDeviceToDevice, sn1);
    cudaStreamEndCapture(sn1, &g2);
    show_update("ExecUpdate 1-D memset width and value", ge, g2);
    cudaGraphDestroy(g2);
    cudaStreamBeginCapture(sn1, cudaStreamCaptureModeThreadLocal);
    cudaMemsetAsync(d_a, 2, NB, sn1);
    cudaMemcpyAsync(h_pin, d_a, NB, cudaMemcpyDeviceToHost, sn1);
    cudaStreamEndCapture(sn1, &g2);
    show_update("ExecUpdate memcpy dst device -> pinned", ge, g2);
    cudaGraphDestroy(g2);

    /* Exec SetParams on memset and memcpy nodes. */
    cudaGraphNode_t nodes[2];
    size_t nn = 2;
    C("GraphGetNodes", cudaGraphGetNodes(g, nodes, &nn));
    struct cudaMemsetParams mp = {0};
    cudaGraphMemsetNodeGetParams(nodes[0], &mp);
    mp.value = 3;
    C("ExecMemsetNodeSetParams", cudaGraphExecMemsetNodeSetParams(ge, nodes[0], &mp));
    C("ExecMemcpyNodeSetParams1D to d_c", cudaGraphExecMemcpyNodeSetParams1D(ge, nodes[1], d_c, d_a, NB, cudaMemcpyDeviceToDevice));
    C("ExecMemcpyNodeSetParams1D to pinned", cudaGraphExecMemcpyNodeSetParams1D(ge, nodes[1], h_pin, d_a, NB, cudaMemcpyDeviceToHost));
    C("ExecMemcpyNodeSetParams1D on memset node", cudaGraphExecMemcpyNodeSetParams1D(ge, nodes[0], d_c, d_a, NB, cudaMemcpyDeviceToDevice));
    C("ExecMemsetNodeSetParams on memcpy node", cudaGraphExecMemsetNodeSetParams(ge, nodes[1], &mp));
    cudaMemset(d_c, 0, NB);
    cudaDeviceSynchronize();    /* sn1 does not wait for the legacy stream */
    cudaGraphLaunch(ge, sn1);
    cudaStreamSynchronize(sn1);
    report_device_hash("  d_c after launch", d_c, NB);
    cudaGraphExecDestroy(ge);
    cudaGraphDestroy(g);

    /* Explicit construction: fill -> {scale, host} -> memcpy, plus empty and event nodes. */
    cudaGraphNode_t nfill, nscale, nhost, ncopy, nempty, nrec, nwait, nset;
    C("GraphCreate", cudaGraphCreate(&g, 0));
    C("GraphCreate bad flags", cudaGraphCreate(&g2, 1));
    float v = 6.0f, s = 0.5f;
    int n = N;
    float *y = d_a;
    void *fargs[] = {&y, &v, &n};
    struct cudaKernelNodeParams kp = {(void *)k_fill, {N / 256, 1, 1}, {256, 1, 1}, 0, fargs, NULL};
    C("AddKernelNode fill", cudaGraphAddKernelNode(&nfill, g, NULL, 0, &kp));
    v = 99.0f; /* must not change the node */
    void *sargs[] = {&y, &s, &n};
    struct cudaKernelNodeParams kp2 = {(void *)k_scale, {N / 256, 1, 1}, {256, 1, 1}, 0, sargs, NULL};
    C("AddKernelNode scale", cudaGraphAddKernelNode(&nscale, g, &nfill, 1, &kp2));
    struct cudaKernelNodeParams bad = kp2;
    bad.blockDim.x = 2048;
    cudaGraphNode_t nbad = NULL;
    C("AddKernelNode block 2048", cudaGraphAddKernelNode(&nbad, g, &nfill, 1, &bad));
    bad = kp2;
    bad.func = (void *)C;
    C("AddKernelNode host function", cudaGraphAddKernelNode(&nbad, g, &nfill, 1, &bad));
    struct cudaHostNodeParams hp = {host_read, h_pin};
    C("AddHostNode", cudaGraphAddHostNode(&nhost, g, &nfill, 1, &hp));
    cudaGraphNode_t two[2] = {nscale, nhost};
    C("AddMemcpyNode1D", cudaGraphAddMemcpyNode1D(&ncopy, g, two, 2, d_b, d_a, NB, cudaMemcpyDeviceToDevice));
    C("AddEmptyNode", cudaGraphAddEmptyNode(&nempty, g, &ncopy, 1));
    C("AddEventRecordNode", cudaGraphAddEventRecordNode(&nrec, g, &nempty, 1, e));
    C("AddEventWaitNode", cudaGraphAddEventWaitNode(&nwait, g, &nrec, 1, e));
    struct cudaMemsetParams msp = {d_c, 0, 0x01020304u, 4, N, 1};
    C("AddMemsetNode 4-byte", cudaGraphAddMemsetNode(&nset, g, &nwait, 1, &msp));
    msp.elementSize = 3;
    C("AddMemsetNode elementSize 3", cudaGraphAddMemsetNode(&nbad, g, &nwait, 1, &msp));
    cudaGraphNode_t dup[2] = {nfill, nfill};
    C("AddEmptyNode duplicate deps", cudaGraphAddEmptyNode(&nbad, g, dup, 2));
    C("AddEmptyNode NULL deps with count", cudaGraphAddEmptyNode(&nbad, g, NULL, 1));
    V("  nodes", "%zu", node_count(g));
    struct cudaKernelNodeParams got;
    C("KernelNodeGetParams", cudaGraphKernelNodeGetParams(nfill, &got));
    V("  func is k_fill, value", "%d %g", got.func == (void *)k_fill, *(float *)got.kernelParams[1]);
    C("KernelNodeGetParams on host node", cudaGraphKernelNodeGetParams(nhost, &got));
    struct cudaKernelNodeParams kp3 = kp;
    v = 7.0f;
    C("KernelNodeSetParams fill 7", cudaGraphKernelNodeSetParams(nfill, &kp3));
    C("GraphInstantiateWithFlags", cudaGraphInstantiateWithFlags(&ge, g, 0));
    C("GraphLaunch", cudaGraphLaunch(ge, sn2));
    C("StreamSynchronize", cudaStreamSynchronize(sn2));
    V("  b[0] c[0] bits", "%g %08x", dev_at(d_b, 0), (unsigned)*(uint32_t *)&(float){dev_at(d_c, 0)});
    V("  host node saw", "%d", host_seen);
    C("EventQuery of the event the graph recorded", cudaEventQuery(e));

    /* Exec SetParams on a kernel node: the graph keeps its own parameters. */
    v = 10.0f;
    C("ExecKernelNodeSetParams fill 10", cudaGraphExecKernelNodeSetParams(ge, nfill, &kp3));
    C("ExecKernelNodeSetParams on host node", cudaGraphExecKernelNodeSetParams(ge, nhost, &kp3));
    struct cudaKernelNodeParams kp4 = kp2;
    C("ExecKernelNodeSetParams other function", cudaGraphExecKernelNodeSetParams(ge, nfill, &kp4));
    C("ExecKernelNodeSetParams back", cudaGraphExecKernelNodeSetParams(ge, nfill, &kp3));
    cudaGraphLaunch(ge, sn2);
    cudaStreamSynchronize(sn2);
    V("  b[0] after exec set", "%g", dev_at(d_b, 0));
    C("KernelNodeGetParams", cudaGraphKernelNodeGetParams(nfill, &got));
    V("  graph node value unchanged", "%g", *(float *)got.kernelParams[1]);
    C("GraphExecDestroy", cudaGraphExecDestroy(ge));
    C("GraphDestroy", cudaGraphDestroy(g));
    cudaEventDestroy(e);
}

/* ---------------------------------------------------------------- sticky */

/* A device fault: every later call returns the same sticky error. */
static void section_sticky(void)
{
    printf("== sticky\n");
    int *bad = NULL, val = 1;
    void *args[] = {&bad, &val};
    C("launch k_poke(NULL)", launch1d((const void *)k_poke, 1, 1, args, sn1));
    cudaError_t e = cudaStreamSynchronize(sn1);
    printf("%-56s %s\n", "StreamSynchronize", cudaGetErrorName(e));
    printf("%-56s %s\n", "GetLastError", cudaGetErrorName(cudaGetLastError()));
    printf("%-56s %s\n", "GetLastError again", cudaGetErrorName(cudaGetLastError()));
    printf("%-56s %s\n", "PeekAtLastError", cudaGetErrorName(cudaPeekAtLastError()));
    void *p = NULL;
    printf("%-56s %s\n", "cudaMalloc", cudaGetErrorName(cudaMalloc(&p, 64)));
    printf("%-56s %s\n", "fill", cudaGetErrorName(fill(d_a, 1.0f, sn2)));
    cudaStream_t s;
    printf("%-56s %s\n", "StreamCreate", cudaGetErrorName(cudaStreamCreate(&s)));
    int count = 0;
    printf("%-56s %s\n", "GetDeviceCount", cudaGetErrorName(cudaGetDeviceCount(&count)));
    printf("%-56s %s\n", "DeviceSynchronize", cudaGetErrorName(cudaDeviceSynchronize()));
}

/* Runs every section in order; the sticky fault comes last. */
int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    require_device();
    cudaMalloc((void **)&d_a, NB);
    cudaMalloc((void **)&d_b, NB);
    cudaMalloc((void **)&d_c, NB);
    cudaMallocHost((void **)&h_pin, NB);
    cudaStreamCreate(&sb1);
    cudaStreamCreate(&sb2);
    cudaStreamCreateWithFlags(&sn1, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&sn2, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&sn3, cudaStreamNonBlocking);
    printf("setup: %s\n", cudaGetErrorName(cudaGetLastError()));

    section_errors();
    section_memory();
    section_events_streams();
    section_capture();
    section_invalidation();
    section_graphs();
    C("end of rules", cudaDeviceSynchronize());
    section_sticky();
    return 0;
}
