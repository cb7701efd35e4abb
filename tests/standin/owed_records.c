/* SPDX-License-Identifier: MIT */
/*
 * tests/standin/owed_records.c: a fork/join loop whose events are observed
 * outside its region between replays, for tests/owed_records.sh.
 *
 *   owed_records [ITERS]
 *
 * Each iteration is bench_suite's fork3 shape (the events created without
 * timing, as a fast-path graph then records them with no node), with a
 * timed pair of events around it (which keep their nodes); then, chosen by
 * the iteration, one observation of an event the region recorded, ordered
 * after the region's work only by that event: a wait forwarded on another
 * stream and a kernel there; an event sync and a host read; a query loop
 * and a host read; elapsed times (untimed: the error; timed: success); the
 * driver's cuStreamWaitEvent and a kernel; another thread's wait and
 * kernel; the program's own capture of a wait and a kernel, launched; the
 * driver's cuEventSynchronize and cuEventQuery and host reads; a wait for
 * the fork's event; a host function on the region's stream that spins
 * until the host has seen an event (a record made only after it would
 * never complete); a stream sync and a query, printed; a region of its own
 * that waits for an event (a wait node of its graph) and falls back every
 * third time; a graph of the program's own, captured once, whose wait for
 * an event is for its record at each launch; a region on the robust path
 * (a library's call) that waits for an event; or nothing.  The iteration ends with a device sync.  Each observation reads what the region wrote,
 * so a record not made (or made before the graph) lets the stand-in's
 * scheduler run it first, for some seed: the hashes printed change.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <cuda.h>

#include "../scenarios/scenario.h"
#include "fork3_loop.h" /* N; s, s1..s3, sr, the fork3 events and buffers; fork_join, boundary, host_read... */

static cudaStream_t s4, s5;
static cudaEvent_t tstart, tstop;
static float *d1, *d2, *d3, *d4, *d5, *dc, *da, *db, *dg, *dr, *scratch;
static cudaGraphExec_t own_graph; /* captured once: a wait for j2 (recorded outside it) and a kernel */
static int iters = 300;
static volatile int host_seen; /* the host function's flag */

/* The region (fork3_loop.h), timed from tstart to tstop. */
static void timed_fork_join(int it)
{
    CK(cudaEventRecord(tstart, s));
    fork_join(it);
    CK(cudaEventRecord(tstop, s));
}

/* Another thread's wait for j3 on s5 and a kernel there (reads c3), and its sync. */
static void *other_thread(void *unused)
{
    (void)unused;
    CK(cudaStreamWaitEvent(s5, j3, 0));
    k_axpy_on(1.0f, c3, d3, N, s5);
    CK(cudaStreamSynchronize(s5));
    return NULL;
}

/* The program's own capture on s4 of a wait for j1 and a kernel (reads c1), launched on s4. */
static void own_capture(void)
{
    cudaGraph_t g = NULL;
    cudaGraphExec_t x = NULL;
    CK(cudaStreamBeginCapture(s4, cudaStreamCaptureModeGlobal));
    CK(cudaStreamWaitEvent(s4, j1, cudaEventWaitExternal)); /* recorded outside the capture */
    k_axpy_on(1.0f, c1, dc, N, s4);
    CK(cudaStreamEndCapture(s4, &g));
    CK(cudaGraphInstantiate(&x, g, 0));
    CK(cudaGraphLaunch(x, s4));
    CK(cudaGraphExecDestroy(x));
    CK(cudaGraphDestroy(g));
}

/* Captures own_graph on s5: a wait for j2 as recorded when it is launched, and a kernel reading c2. */
static void capture_own_graph(void)
{
    cudaGraph_t g = NULL;
    CK(cudaStreamBeginCapture(s5, cudaStreamCaptureModeGlobal));
    CK(cudaStreamWaitEvent(s5, j2, cudaEventWaitExternal));
    k_axpy_on(1.0f, c2, dg, N, s5);
    CK(cudaStreamEndCapture(s5, &g));
    CK(cudaGraphInstantiate(&own_graph, g, 0));
    CK(cudaGraphDestroy(g));
}

/* A host function that spins until the host has seen j1 complete (two seconds at most, then says so). */
static void CUDART_CB spin_until_seen(void *want)
{
    time_t until = time(NULL) + 2;
    while (host_seen != (int)(intptr_t)want)
        if (time(NULL) > until) {
            printf("error: the host function waited for the host in vain\n");
            return;
        }
}

/* One observation of the region's events between replays: which one, by the iteration. */
static void observe(int it)
{
    pthread_t t;
    float ms = 0;
    switch (it % 15) {
    case 1:
        boundary();
        CK(cudaStreamWaitEvent(s4, j1, 0));
        k_axpy_on(1.0f, c1, d1, N, s4);
        break;
    case 2:
        boundary();
        CK(cudaEventSynchronize(j2));
        host_read(c2);
        break;
    case 3:
        boundary();
        while (cudaEventQuery(j3) == cudaErrorNotReady)
            ;
        host_read(c3);
        break;
    case 4:
        boundary();
        printf("elapsed j1 j2: %s\n", cudaGetErrorName(cudaEventElapsedTime(&ms, j1, j2)));
        (void)cudaGetLastError();
        CK(cudaEventSynchronize(tstop));
        cudaError_t e = cudaEventElapsedTime(&ms, tstart, tstop);
        printf("elapsed start stop: %s%s\n", cudaGetErrorName(e), e == cudaSuccess && ms >= 0 ? ", not negative" : "");
        break;
    case 5:
        boundary();
        if (cuStreamWaitEvent((CUstream)s4, (CUevent)j2, 0) != CUDA_SUCCESS)
            printf("cuStreamWaitEvent failed\n");
        k_axpy_on(1.0f, c2, d2, N, s4);
        break;
    case 6:
        boundary();
        pthread_create(&t, NULL, other_thread, NULL);
        pthread_join(t, NULL);
        break;
    case 7:
        boundary();
        own_capture();
        break;
    case 8:
        boundary();
        if (cuEventSynchronize((CUevent)j1) != CUDA_SUCCESS)
            printf("cuEventSynchronize failed\n");
        host_read(c1);
        while (cuEventQuery((CUevent)j2) == CUDA_ERROR_NOT_READY)
            ;
        host_read(c2);
        break;
    case 9:
        boundary();
        CK(cudaStreamWaitEvent(s4, fork_ev, 0));
        k_axpy_on(1.0f, a, da, N, s4);
        break;
    case 10:
        boundary();
        CK(cudaLaunchHostFunc(s, spin_until_seen, (void *)(intptr_t)it));
        CK(cudaEventSynchronize(j1));
        host_seen = it;
        break;
    case 11:
        CK(cudaStreamSynchronize(s));
        printf("query after sync: %s\n", cudaGetErrorName(cudaEventQuery(j1)));
        printf("driver query after sync: %d\n", (int)cuEventQuery((CUevent)j2));
        break;
    case 12:
        /* A region of its own whose graph waits for j1 (recorded before it); every third time it differs at its end. */
        boundary();
        k_scale_on(db, 0.5f, N, s4);
        CK(cudaStreamWaitEvent(s4, j1, 0));
        k_axpy_on(1.0f, c1, db, N, s4);
        if ((it / 15) % 3 == 2)
            k_add_step_on(db, 0.25f, it, N, s4);
        else
            k_scale_on(db, 0.75f, N, s4);
        boundary();
        break;
    case 13:
        boundary();
        CK(cudaGraphLaunch(own_graph, s5));
        break;
    case 14:
        /* A region of its own on s4 with a library's call: the robust path captures its wait for j2. */
        boundary();
        CK(cudaStreamWaitEvent(s4, j2, 0));
        library_memset(scratch, 0x5a, s4);
        k_axpy_on(1.0f, c2, dr, N, s4);
        k_scale_on(dr, 0.5f, N, s4);
        boundary();
        break;
    default:
        break; /* nothing: the next replay drops every owed record */
    }
}

/* Runs the loop; prints every buffer's hash and the host reads' sum. */
int main(int argc, char **argv)
{
    if (argc > 1)
        iters = atoi(argv[1]);
    scenario_begin("owed_records");
    cudaStream_t *streams[] = {&s, &s1, &s2, &s3, &s4, &s5, &sr};
    fork3_create(streams, sizeof streams / sizeof *streams);
    CK(cudaEventCreate(&tstart));
    CK(cudaEventCreate(&tstop));
    float **buffers[] = {&a, &b, &t1, &c1, &c2, &c3, &acc, &d1, &d2, &d3, &d4, &d5, &dc, &da, &db, &dg, &dr, &scratch};
    fork3_buffers(buffers, sizeof buffers / sizeof *buffers);
    CK(cudaDeviceSynchronize());
    capture_own_graph();
    for (int it = 0; it < iters; it++) {
        timed_fork_join(it);
        observe(it);
        CK(cudaDeviceSynchronize()); /* the next region overwrites what the observation read */
    }
    CK(cudaDeviceSynchronize());
    const char *names[] = {"acc", "c1", "c2", "c3", "d1", "d2", "d3", "dc", "da", "db", "dg", "dr"};
    float *bufs[] = {acc, c1, c2, c3, d1, d2, d3, dc, da, db, dg, dr};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
        show(names[i], bufs[i], N);
    printf("host reads %016llx\n", (unsigned long long)host_sum);
    return scenario_end();
}
