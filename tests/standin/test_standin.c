/* SPDX-License-Identifier: MIT */
/*
 * tests/standin/test_standin.c: behaviour of the stand-in itself that a GPU
 * cannot show deterministically (and so tests/conformance.c cannot print):
 * work is queued until a host wait needs it, queries make bounded progress,
 * the fake clock is ordered, arguments and pageable bytes are taken at call
 * time, cudaFree waits for queued work, host functions may not call the
 * runtime, graph nodes run in dependency order; once mapped memory exists,
 * the device runs queued work without host waits (last: it cannot be
 * undone).
 *
 * Device memory of the stand-in is host memory, so this test may look at it
 * directly to see whether queued work has run yet.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "../../kernels/kernels.h"
#include "../check.h"

#define N 256

static cudaStream_t s;

/* y = v on stream st (one block of N threads). */
static cudaError_t fill(float *y, float v, cudaStream_t st)
{
    int n = N;
    void *args[] = {&y, &v, &n};
    dim3 g = {1, 1, 1}, b = {N, 1, 1};
    return cudaLaunchKernel((const void *)k_fill, g, b, args, 0, st);
}

/* Work waits in the queue until a host synchronisation needs it. */
static void test_queued_until_sync(void)
{
    float *d = NULL;
    CHECK(cudaMalloc((void **)&d, N * sizeof(float)) == cudaSuccess);
    uint32_t bits;
    memcpy(&bits, &d[0], 4);
    CHECK(bits == 0xcdcdcdcdu);             /* fresh device memory is garbage */
    CHECK(fill(d, 3.0f, s) == cudaSuccess);
    CHECK(d[0] != 3.0f);                    /* queued, not run */
    CHECK(cudaStreamSynchronize(s) == cudaSuccess);
    CHECK(d[0] == 3.0f && d[N - 1] == 3.0f);
    CHECK(cudaFree(d) == cudaSuccess);
}

/* A query runs at most one op, so polling ends after a bounded number of calls. */
static void test_query_progress(void)
{
    float *d = NULL;
    cudaMalloc((void **)&d, N * sizeof(float));
    for (int i = 0; i < 5; i++)
        fill(d, (float)i, s);
    CHECK(cudaStreamQuery(s) == cudaErrorNotReady);
    CHECK(cudaGetLastError() == cudaSuccess);   /* NotReady is no error */
    int polls = 1;
    while (cudaStreamQuery(s) == cudaErrorNotReady)
        polls++;
    CHECK(polls == 4);     /* one op per query: 5 fills, 5 queries */
    CHECK(d[0] == 4.0f);
    cudaEvent_t e;
    cudaEventCreate(&e);
    fill(d, 9.0f, s);
    cudaEventRecord(e, s);
    CHECK(cudaEventQuery(e) == cudaErrorNotReady);
    CHECK(cudaEventQuery(e) == cudaSuccess);
    CHECK(d[0] == 9.0f);
    cudaEventDestroy(e);
    cudaFree(d);
}

/* Event times come from a fake clock: ordered and additive along a stream. */
static void test_fake_clock(void)
{
    cudaEvent_t t[3];
    float *d = NULL, ab = -1, bc = -1, ac = -1, ba = 1;
    cudaMalloc((void **)&d, N * sizeof(float));
    for (int i = 0; i < 3; i++)
        cudaEventCreate(&t[i]);
    cudaEventRecord(t[0], s);
    fill(d, 1.0f, s);
    cudaEventRecord(t[1], s);
    fill(d, 2.0f, s);
    fill(d, 3.0f, s);
    CHECK(cudaEventElapsedTime(&ab, t[0], t[1]) == cudaErrorNotReady);
    cudaEventRecord(t[2], s);
    cudaStreamSynchronize(s);
    CHECK(cudaEventElapsedTime(&ab, t[0], t[1]) == cudaSuccess);
    CHECK(cudaEventElapsedTime(&bc, t[1], t[2]) == cudaSuccess);
    CHECK(cudaEventElapsedTime(&ac, t[0], t[2]) == cudaSuccess);
    CHECK(cudaEventElapsedTime(&ba, t[1], t[0]) == cudaSuccess);
    CHECK(ab > 0 && bc > ab && ac > bc);
    CHECK(ba < 0);
    for (int i = 0; i < 3; i++)
        cudaEventDestroy(t[i]);
    cudaFree(d);
}

/* Arguments and pageable source bytes are taken when the call is made. */
static void test_taken_at_call_time(void)
{
    float *d = NULL, v = 5.0f;
    int n = N;
    cudaMalloc((void **)&d, N * sizeof(float));
    void *args[] = {&d, &v, &n};
    dim3 g = {1, 1, 1}, b = {N, 1, 1};
    CHECK(cudaLaunchKernel((const void *)k_fill, g, b, args, 0, s) == cudaSuccess);
    v = 6.0f;
    cudaStreamSynchronize(s);
    CHECK(d[0] == 5.0f);

    float *host = malloc(N * sizeof(float));
    for (int i = 0; i < N; i++)
        host[i] = 7.0f;
    fill(d, 1.0f, s);
    CHECK(cudaMemcpyAsync(d, host, N * sizeof(float), cudaMemcpyHostToDevice, s) == cudaSuccess);
    CHECK(d[0] == 5.0f);                    /* nothing ran yet */
    for (int i = 0; i < N; i++)
        host[i] = 8.0f;
    cudaStreamSynchronize(s);
    CHECK(d[0] == 7.0f && d[N - 1] == 7.0f);
    free(host);
    cudaFree(d);
}

static int ran_before_free;

/* Host function: notes that it ran. */
static void CUDART_CB note_ran(void *p)
{
    (void)p;
    ran_before_free = 1;
}

/* cudaFree waits for queued work (which may still use the memory). */
static void test_free_waits(void)
{
    float *d = NULL;
    cudaMalloc((void **)&d, N * sizeof(float));
    fill(d, 1.0f, s);
    cudaLaunchHostFunc(s, note_ran, NULL);
    CHECK(ran_before_free == 0);
    CHECK(cudaFree(d) == cudaSuccess);
    CHECK(ran_before_free == 1);
}

static cudaError_t inner_result = cudaSuccess;

/* Host function that (illegally) calls the runtime. */
static void CUDART_CB call_runtime(void *p)
{
    (void)p;
    void *q = NULL;
    inner_result = cudaMalloc(&q, 16);
}

/* Runtime calls from a host function fail with cudaErrorNotPermitted. */
static void test_no_calls_from_host_functions(void)
{
    cudaLaunchHostFunc(s, call_runtime, NULL);
    CHECK(cudaStreamSynchronize(s) == cudaSuccess);
    CHECK(inner_result == cudaErrorNotPermitted);
    CHECK(cudaGetLastError() == cudaSuccess);   /* not recorded as the last error */
}

static char trace[64];
static size_t ntrace;

/* Host node: appends its letter to the trace. */
static void CUDART_CB mark(void *p)
{
    trace[ntrace++] = *(const char *)p;
}

/* A diamond graph launched twice: every node after its dependencies. */
static void test_graph_order(void)
{
    static const char letters[] = "ABCD";
    cudaGraph_t g;
    cudaGraphExec_t ge;
    cudaGraphNode_t a, b, c, d;
    cudaGraphCreate(&g, 0);
    struct cudaHostNodeParams hp[4];
    for (int i = 0; i < 4; i++)
        hp[i] = (struct cudaHostNodeParams){mark, (void *)&letters[i]};
    cudaGraphAddHostNode(&a, g, NULL, 0, &hp[0]);
    cudaGraphAddHostNode(&b, g, &a, 1, &hp[1]);
    cudaGraphAddHostNode(&c, g, &a, 1, &hp[2]);
    cudaGraphNode_t bc[2] = {b, c};
    cudaGraphAddHostNode(&d, g, bc, 2, &hp[3]);
    CHECK(cudaGraphInstantiate(&ge, g, 0) == cudaSuccess);
    CHECK(cudaGraphLaunch(ge, s) == cudaSuccess);
    CHECK(cudaGraphLaunch(ge, s) == cudaSuccess);
    CHECK(ntrace == 0);
    cudaStreamSynchronize(s);
    CHECK(ntrace == 8);
    for (int k = 0; k < 2; k++) {
        const char *t = trace + 4 * k;
        CHECK(t[0] == 'A' && t[3] == 'D');
        CHECK((t[1] == 'B' && t[2] == 'C') || (t[1] == 'C' && t[2] == 'B'));
    }
    cudaGraphExecDestroy(ge);
    cudaGraphDestroy(g);
}

/* An executable graph's record and wait nodes take another event through the runtime too. */
static void test_graph_event_set(void)
{
    cudaEvent_t e1, e2;
    cudaGraph_t g;
    cudaGraphExec_t ge;
    cudaGraphNode_t rec, wait;
    float ms = -1;
    cudaEventCreate(&e1);
    cudaEventCreate(&e2);
    cudaGraphCreate(&g, 0);
    cudaGraphAddEventWaitNode(&wait, g, NULL, 0, e1);
    cudaGraphAddEventRecordNode(&rec, g, &wait, 1, e1);
    CHECK(cudaGraphInstantiate(&ge, g, 0) == cudaSuccess);
    CHECK(cudaGraphExecEventRecordNodeSetEvent(ge, rec, e2) == cudaSuccess);
    CHECK(cudaGraphExecEventWaitNodeSetEvent(ge, wait, e2) == cudaSuccess);
    CHECK(cudaGraphExecEventRecordNodeSetEvent(ge, wait, e2) == cudaErrorInvalidValue);
    CHECK(cudaGraphExecEventWaitNodeSetEvent(ge, rec, e2) == cudaErrorInvalidValue);
    (void)cudaGetLastError();
    CHECK(cudaGraphLaunch(ge, s) == cudaSuccess && cudaStreamSynchronize(s) == cudaSuccess);
    CHECK(cudaEventElapsedTime(&ms, e2, e2) == cudaSuccess && ms == 0.0f);
    CHECK(cudaEventElapsedTime(&ms, e1, e1) == cudaErrorInvalidResourceHandle); /* never recorded */
    (void)cudaGetLastError();
    cudaGraphExecDestroy(ge);
    cudaGraphDestroy(g);
    cudaEventDestroy(e1);
    cudaEventDestroy(e2);
}

/* Non-blocking streams are not ordered after the legacy stream; blocking ones are. */
static void test_legacy_barrier(void)
{
    cudaStream_t sb;
    float *d = NULL;
    cudaStreamCreate(&sb);
    cudaMalloc((void **)&d, N * sizeof(float));
    fill(d, 1.0f, 0);
    fill(d, 2.0f, sb);                 /* waits for the legacy fill */
    cudaStreamSynchronize(sb);
    CHECK(d[0] == 2.0f);
    cudaStreamDestroy(sb);
    cudaFree(d);
}

/* Spins with no CUDA call until *p == want or 10 s passed; whether it got there. */
static int spin_until(const int *p, int want)
{
    time_t start = time(NULL);
    while (__atomic_load_n(p, __ATOMIC_ACQUIRE) != want)
        if (time(NULL) - start > 10)
            return 0;
    return 1;
}

/* cudaHostAlloc(Mapped) starts the device: a kernel's write reaches the host with no call to wait in. */
static void test_mapped_memory_progress(void)
{
    int pageable = 0, *pinned = NULL, *mapped = NULL, *dev = NULL;
    CHECK(cudaHostGetDevicePointer((void **)&dev, &pageable, 0) == cudaErrorInvalidValue);
    CHECK(cudaMallocHost((void **)&pinned, sizeof *pinned) == cudaSuccess);
    CHECK(cudaHostGetDevicePointer((void **)&dev, pinned, 1) == cudaErrorInvalidValue);
    cudaGetLastError();
    /* Pinned memory without the mapped flag starts nothing: the write waits for a host wait. */
    *pinned = 0;
    int v = 5;
    void *args[] = {&pinned, &v};
    dim3 one = {1, 1, 1};
    CHECK(cudaLaunchKernel((const void *)k_poke, one, one, args, 0, s) == cudaSuccess);
    struct timespec pause = {0, 20 * 1000 * 1000};
    nanosleep(&pause, NULL);
    CHECK(*(volatile int *)pinned == 0);
    CHECK(cudaStreamSynchronize(s) == cudaSuccess && *pinned == 5);

    CHECK(cudaHostAlloc((void **)&mapped, sizeof *mapped, cudaHostAllocMapped) == cudaSuccess);
    CHECK(cudaHostGetDevicePointer((void **)&dev, mapped, 0) == cudaSuccess && dev == mapped);
    *(volatile int *)mapped = 0;
    v = 7;
    void *args2[] = {&dev, &v};
    float *d = NULL;
    cudaMalloc((void **)&d, N * sizeof(float));
    fill(d, 1.0f, s); /* work ahead of the write, in the same queue */
    CHECK(cudaLaunchKernel((const void *)k_poke, one, one, args2, 0, s) == cudaSuccess);
    CHECK(spin_until(mapped, 7));
    CHECK(d[0] == 1.0f);
    CHECK(cudaStreamSynchronize(s) == cudaSuccess);
    cudaFree(d);
    CHECK(cudaFreeHost(mapped) == cudaSuccess);
    CHECK(cudaFreeHost(pinned) == cudaSuccess);
}

/* Runs every test. */
int main(void)
{
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    test_queued_until_sync();
    test_query_progress();
    test_fake_clock();
    test_taken_at_call_time();
    test_free_waits();
    test_no_calls_from_host_functions();
    test_graph_order();
    test_graph_event_set();
    test_legacy_barrier();
    test_mapped_memory_progress();
    return check_result("test_standin");
}
