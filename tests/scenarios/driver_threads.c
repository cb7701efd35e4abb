/* SPDX-License-Identifier: MIT */
/*
 * driver_threads: one thread's runtime launches on a blocking stream, then
 * another thread's library launch through the driver API on the legacy
 * stream, which must wait for them (the legacy stream's barrier) and reads
 * what they wrote.  The threads take turns through a condition variable,
 * so the order of submission is fixed; the shim must submit the first
 * thread's held-back launches before the second thread's driver call.
 * Stand-in only: the library's kernel is a CPU twin.
 */
#include <pthread.h>

#include <cuda.h>

#include "scenario.h"
#include "../standin/fakeblas.h"

#define N 4096
#define ITERATIONS 30

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turn_changed = PTHREAD_COND_INITIALIZER;
static int turn; /* 2 * it: the runtime thread's; 2 * it + 1: the library thread's */
static float *x, *y;

/* Waits until it is turn t. */
static void wait_turn(int t)
{
    pthread_mutex_lock(&lock);
    while (turn != t)
        pthread_cond_wait(&turn_changed, &lock);
    pthread_mutex_unlock(&lock);
}

/* Hands the turn on. */
static void next_turn(void)
{
    pthread_mutex_lock(&lock);
    turn++;
    pthread_cond_broadcast(&turn_changed);
    pthread_mutex_unlock(&lock);
}

/* The library thread: y = 0.5 * y + x on the legacy stream, after the runtime thread's launches. */
static void *library_thread(void *arg)
{
    (void)arg;
    for (int it = 0; it < ITERATIONS; it++) {
        wait_turn(2 * it + 1);
        scenario_check(fakeblas_blend(NULL, x, y, N) == 0 ? cudaSuccess : cudaErrorUnknown, "fakeblas_blend",
                       __LINE__);
        next_turn();
    }
    return NULL;
}

/* Runs the two threads for 30 turns each. */
int main(void)
{
    scenario_begin("driver_threads");
    cudaStream_t s;
    CK(cudaStreamCreate(&s)); /* blocking: the legacy stream waits for it */
    x = dev_floats(N), y = dev_floats(N);
    k_fill_on(x, 1.0f, N, s);
    k_fill_on(y, 0.0f, N, s);
    CK(cudaStreamSynchronize(s));
    pthread_t library;
    pthread_create(&library, NULL, library_thread, NULL);
    for (int it = 0; it < ITERATIONS; it++) {
        wait_turn(2 * it);
        k_axpy_on(0.5f, y, x, N, s);
        k_scale_on(x, 0.875f, N, s);
        k_add_step_on(x, 0.125f, it, N, s);
        next_turn();
        wait_turn(2 * it + 2);
        CK(cudaStreamSynchronize(s));
        CK(cudaStreamSynchronize(cudaStreamLegacy));
    }
    pthread_join(library, NULL);
    show("x", x, N);
    show("y", y, N);
    return scenario_end();
}
