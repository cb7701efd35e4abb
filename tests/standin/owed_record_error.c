/* SPDX-License-Identifier: MIT */
/*
 * tests/standin/owed_record_error.c: a record owed before a fast-path graph
 * that the driver refuses, for tests/owed_records.sh.
 *
 *   owed_record_error [FAIL_AT]
 *
 * Each of 40 iterations is fork3's loop (fork3_loop.h: its events without
 * timing, so that a fast-path graph records them with no node and owes
 * their records after each launch), then a region of its own on s4 whose
 * graph waits for j1 as recorded before it (the shim makes j1's owed
 * record just before launching that graph), then a device sync.  At
 * iteration FAIL_AT, the stand-in refuses the next record of j1 through
 * the driver (standin_fail_driver_record): without the shim nothing
 * records j1 through the driver, and the output is the same with or
 * without FAIL_AT.  The second region reads c1, which the first writes at
 * every iteration: a graph launched after the refused record waits for
 * j1's record of the iteration before, and the stand-in's scheduler may
 * run the read first, for some seed: the hash of db printed at the end
 * changes.
 */
#include <stdlib.h>

#include <cuda.h>

#include "../scenarios/scenario.h"
#include "fork3_loop.h" /* N; s, s1..s3, sr, the fork3 events and buffers; fork_join, boundary */

/* The stand-in's (exported): the next cuEventRecord of event through the driver fails. */
extern cudaError_t standin_fail_driver_record(cudaEvent_t event) __attribute__((weak));

static cudaStream_t s4;
static float *db;

/* The region on s4: its graph waits for j1 (a wait node, the event recorded before it) and reads c1. */
static void read_c1(void)
{
    k_scale_on(db, 0.5f, N, s4);
    CK(cudaStreamWaitEvent(s4, j1, 0));
    k_axpy_on(1.0f, c1, db, N, s4);
    k_scale_on(db, 0.75f, N, s4);
}

/* Runs the loop; prints the buffers' hashes. */
int main(int argc, char **argv)
{
    int fail_at = argc > 1 ? atoi(argv[1]) : -1;
    scenario_begin("owed_record_error");
    cudaStream_t *streams[] = {&s, &s1, &s2, &s3, &s4, &sr};
    fork3_create(streams, sizeof streams / sizeof *streams);
    float **buffers[] = {&a, &b, &t1, &c1, &c2, &c3, &acc, &db};
    fork3_buffers(buffers, sizeof buffers / sizeof *buffers);
    CK(cudaDeviceSynchronize());
    for (int it = 0; it < 40; it++) {
        fork_join(it);
        boundary();
        /* Not counted among the program's calls: the output is the same with or without FAIL_AT. */
        if (it == fail_at && (!standin_fail_driver_record || standin_fail_driver_record(j1) != cudaSuccess))
            printf("error: standin_fail_driver_record(j1) at iteration %d\n", it);
        read_c1();
        boundary();
        CK(cudaDeviceSynchronize());
    }
    const char *names[] = {"acc", "c1", "db"};
    float *bufs[] = {acc, c1, db};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
        show(names[i], bufs[i], N);
    return scenario_end();
}
