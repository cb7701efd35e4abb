/* SPDX-License-Identifier: MIT */
/*
 * tests/standin/fork_reuse.c: a fork/join loop whose forked streams are
 * used outside its region between replays, for tests/owed_waits.sh.
 *
 *   fork_reuse created|legacy|fork3 [ITERS]
 *
 * Each iteration is bench_suite's fork3 shape: a kernel on s, an event
 * recorded, s1, s2 and s3 wait for it, two kernels on each, events
 * recorded on each and s waits for all three, three kernels on s; then one
 * use of a forked stream that reads what the region wrote there, chosen
 * by the iteration: a kernel on s1; a sync of s1 and a host read; an event
 * recorded on s2 that a fourth stream waits for before a kernel of its
 * own; a query loop on s2 and a host read; another thread's kernel on s3
 * and its sync (in the second half: a second thread turns the robust path
 * off); a kernel on the legacy stream (s3 is blocking); the program's own
 * capture on s1, launched there; the driver's cuStreamSynchronize of s2
 * and a host read; the driver's cuLaunchKernel on s1; an event recorded
 * on s1 and synchronised, and a host read; a region of its own launched
 * on s4 that forks onto s1 (its graph must follow the first one's; once
 * a query cuts it, and its replay falls back); kernels on s1 with the
 * driver's 2-D memset, a library's call that makes their region take the
 * robust path (in the first half), or that memset first, then a kernel
 * (in the second half); the same robust-path region on a stream of its
 * own that s2 joins (in the first half); or nothing.
 * Halfway, s2 is destroyed and created again.  The iteration ends with a
 * sync of s.  Host reads copy on a stream of their own.  Every use is
 * ordered after the region's work by the program's own stream order, so
 * that a wait the shim failed to make lets the stand-in's scheduler run
 * the use first, for some seed: the hashes printed at the end change.
 *
 * created: s, s1, s2 and s4 non-blocking, s3 blocking.  legacy: s is the
 * legacy stream (the region's graph is launched there), s1 and s3
 * blocking.  fork3: every stream non-blocking, as bench_suite's, and no
 * uses (the replay's calls are counted from the shim's debug log).
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <cuda.h>

#include "../scenarios/scenario.h"
#include "driver_axpy.h"
#include "fork3_loop.h" /* N; s, s1..s3, sr, the fork3 events and buffers; fork_join, boundary, host_read... */

static cudaStream_t s4, s5;
static cudaEvent_t e1, e2, e4, e5;
static float *d1, *d3, *d4, *dl, *dc, *dd, *db, *dr, *dm, *scratch;
static float *d5, *d52, *scratch5;
static int iters = 280;

/* Another thread's kernel on s3 (reads c3), and its sync of s3. */
static void *other_thread(void *unused)
{
    (void)unused;
    k_axpy_on(1.0f, c3, d3, N, s3);
    CK(cudaStreamSynchronize(s3));
    return NULL;
}

/* The program's own capture of a kernel on s1 (reads c1), launched on s1. */
static void own_capture(void)
{
    cudaGraph_t g = NULL;
    cudaGraphExec_t x = NULL;
    CK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    k_axpy_on(1.0f, c1, dc, N, s1);
    CK(cudaStreamEndCapture(s1, &g));
    CK(cudaGraphInstantiate(&x, g, 0));
    CK(cudaGraphLaunch(x, s1));
    CK(cudaGraphExecDestroy(x));
    CK(cudaGraphDestroy(g));
}

/* A region of its own, launched on s4, forking onto s1 (reads c1); cut by a query if cut (a replay falls back). */
static void fork_from_s4(bool cut)
{
    CK(cudaEventRecord(e4, s4));
    CK(cudaStreamWaitEvent(s1, e4, 0));
    k_axpy_on(1.0f, c1, db, N, s1);
    if (cut)
        (void)cudaStreamQuery(s4);
    CK(cudaEventRecord(e1, s1));
    CK(cudaStreamWaitEvent(s4, e1, 0));
}

/* Kernels on s1 (the first reads c1) and a library's memset there: their region takes the robust path. */
static void library_region(void)
{
    k_combine_on(c1, b, dr, N, s1);
    library_memset(scratch, 0x5a, s1);
    k_scale_on(dr, 0.5f, N, s1);
    k_add_step_on(dr, 0.25f, 3, N, s1);
    k_axpy_on(0.5f, scratch, dr, N, s1);
}

/* The same on a stream of its own, s5, joined by s2 (reads c2): a stream new to a robust-path capture. */
static void library_region_s5(void)
{
    k_combine_on(b, b, d5, N, s5);
    library_memset(scratch5, 0x21, s5);
    CK(cudaEventRecord(e5, s5));
    CK(cudaStreamWaitEvent(s2, e5, 0));
    k_axpy_on(1.0f, c2, d52, N, s2);
    CK(cudaEventRecord(e2, s2));
    CK(cudaStreamWaitEvent(s5, e2, 0));
    k_axpy_on(0.5f, d52, d5, N, s5);
    k_axpy_on(0.25f, scratch5, d5, N, s5);
}

/* One use of a forked stream between replays: which one, by the iteration. */
static void use(int it)
{
    pthread_t t;
    CUresult r;
    switch (it % 14) {
    case 1:
        boundary();
        k_axpy_on(1.0f, c1, d1, N, s1);
        break;
    case 2:
        CK(cudaStreamSynchronize(s1));
        host_read(c1);
        break;
    case 3:
        boundary();
        CK(cudaEventRecord(e2, s2));
        CK(cudaStreamWaitEvent(s4, e2, 0));
        k_axpy_on(1.0f, c2, d4, N, s4);
        CK(cudaEventRecord(e4, s4));
        CK(cudaStreamWaitEvent(s2, e4, 0)); /* the next region writes c2 on s2 */
        break;
    case 4:
        while (cudaStreamQuery(s2) == cudaErrorNotReady)
            ;
        host_read(c2);
        break;
    case 5:
        boundary();
        if (it > iters / 2 && pthread_create(&t, NULL, other_thread, NULL) == 0)
            pthread_join(t, NULL);
        break;
    case 6:
        boundary();
        k_axpy_on(1.0f, c3, dl, N, cudaStreamLegacy);
        break;
    case 7:
        boundary();
        own_capture();
        break;
    case 8:
        if ((r = cuStreamSynchronize((CUstream)s2)) != CUDA_SUCCESS)
            printf("cuStreamSynchronize failed: %d\n", (int)r);
        host_read(c2);
        break;
    case 9:
        boundary();
        driver_axpy(1.0f, c1, dd, N, s1);
        break;
    case 10:
        boundary();
        CK(cudaEventRecord(e1, s1));
        CK(cudaEventSynchronize(e1));
        host_read(c1);
        break;
    case 11:
        boundary();
        fork_from_s4(it / 14 == 7); /* once, after replays: it falls back */
        break;
    case 12:
        boundary();
        if (it < iters / 2) {
            library_region();
        } else {
            library_memset(t1, 0x3c, s1); /* first on s1, forwarded there (it clobbers t1) */
            k_axpy_on(1.0f, t1, dm, N, s1);
        }
        break;
    case 13:
        boundary();
        if (it < iters / 2)
            library_region_s5();
        break;
    default:
        break; /* nothing: the next replay finds every forked stream owing its wait */
    }
}

/* Runs the loop in the mode the arguments say; prints every buffer's hash and the host reads' sum. */
int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "created";
    if (argc > 2)
        iters = atoi(argv[2]);
    bool legacy = strcmp(mode, "legacy") == 0, uses = strcmp(mode, "fork3") != 0;
    scenario_begin("fork_reuse");
    if (legacy)
        s = cudaStreamLegacy;
    else
        CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&s1, legacy ? cudaStreamDefault : cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&s3, uses ? cudaStreamDefault : cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&s4, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&s5, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&sr, cudaStreamNonBlocking));
    CK(cudaMallocHost((void **)&pinned, N * sizeof(float)));
    cudaEvent_t *events[] = {&fork_ev, &j1, &j2, &j3, &e1, &e2, &e4, &e5, &idle};
    for (size_t i = 0; i < sizeof events / sizeof *events; i++)
        CK(cudaEventCreateWithFlags(events[i], cudaEventDisableTiming));
    float **buffers[] = {&a, &b, &t1, &c1, &c2, &c3, &acc, &d1, &d3, &d4,
                         &dl, &dc, &dd, &db, &dr, &dm, &scratch, &d5, &d52, &scratch5};
    for (size_t i = 0; i < sizeof buffers / sizeof *buffers; i++) {
        *buffers[i] = dev_floats(N);
        k_fill_on(*buffers[i], 0.25f * (float)i, N, cudaStreamLegacy);
    }
    CK(cudaDeviceSynchronize());
    for (int it = 0; it < iters; it++) {
        fork_join(it);
        if (uses)
            use(it);
        if (uses && it == iters / 2) {
            /* Destroyed while it owes a wait; its handle may come back as the new s2. */
            boundary();
            CK(cudaStreamDestroy(s2));
            CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
        }
        CK(cudaStreamSynchronize(s));
    }
    CK(cudaDeviceSynchronize());
    show("acc", acc, N);
    show("c1", c1, N);
    show("c2", c2, N);
    show("c3", c3, N);
    show("d1", d1, N);
    show("d3", d3, N);
    show("d4", d4, N);
    show("dl", dl, N);
    show("dc", dc, N);
    show("dd", dd, N);
    show("db", db, N);
    show("dr", dr, N);
    show("dm", dm, N);
    show("scratch", scratch, N);
    show("d5", d5, N);
    show("d52", d52, N);
    show("scratch5", scratch5, N);
    printf("host reads %016llx\n", (unsigned long long)host_sum);
    return scenario_end();
}
