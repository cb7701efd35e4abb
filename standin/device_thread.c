/* SPDX-License-Identifier: MIT */
/*
 * standin/device_thread.c: the stand-in's device making progress by
 * itself, once the program owns mapped host memory.
 *
 * Queued work otherwise runs only when the host waits (scheduler.c), which
 * makes every run of a single-threaded program a function of its seed. A
 * program that waits for a kernel by reading mapped pinned memory makes no
 * call to wait in, and would spin forever. So the first mapped allocation
 * (cudaHostAlloc with cudaHostAllocMapped, cuMemHostAlloc with
 * CU_MEMHOSTALLOC_DEVICEMAP) starts a thread that runs ready ops on its
 * own: one at a time, under the global lock, picked by the same seeded
 * generator as a host wait's pick. Which op runs when then depends on
 * timing, as on a GPU; a correct program still prints the same. Programs
 * that never map memory never start it and stay exactly as deterministic.
 */
#include <sched.h>

#include "standin.h"

static pthread_cond_t op_ready = PTHREAD_COND_INITIALIZER;
static bool started;

/* Runs ready ops as they come, sleeping while none is ready or the device has faulted; never returns. */
static void *device_main(void *unused)
{
    (void)unused;
    api_lock();
    for (;;) {
        if (sticky_error() != cudaSuccess || !sched_step()) {
            api_wait(&op_ready);
            continue;
        }
        /* Between two ops, let host threads waiting for the lock in. */
        api_unlock();
        sched_yield();
        api_lock();
    }
    return NULL;
}

/* Starts the device thread once (called under the global lock). */
void device_thread_start(void)
{
    if (started)
        return;
    pthread_attr_t attr;
    pthread_t thread;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    started = pthread_create(&thread, &attr, device_main, NULL) == 0;
    pthread_attr_destroy(&attr);
}

/* Wakes the device thread, if it runs, because an op became ready (called under the global lock). */
void device_thread_notify(void)
{
    if (started)
        pthread_cond_signal(&op_ready);
}
