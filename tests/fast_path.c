/* SPDX-License-Identifier: MIT */
/*
 * tests/fast_path.c: what the fast path of a held-back launch
 * (shim/engine/engine_fast.h) must leave to the engine, on the CPU stand-in;
 * tests/fast_path.sh runs it with and without the shim and compares.
 *
 *     fast_path shapes    two regions that begin alike, and now and then an
 *                         iteration that mixes them: the fast path may take
 *                         a launch only from a record slot that holds its
 *                         own region's call (slots_held)
 *     fast_path threads   a thread that replays, and another that begins
 *                         to hold work back on the same stream while the
 *                         first has its fast path open: the first thread's
 *                         next launch must submit the other's work first
 *                         (its rare word closed by the other's set_pending)
 *     fast_path args      launches whose pointers and 4-byte scalars change
 *                         every iteration, copied by their kernels' shapes:
 *                         each that differs from the graph's instance must
 *                         be listed, or the graph runs with the old ones
 *
 * Prints checksums only: the same with and without the shim.
 */
#include <pthread.h>
#include <stdbool.h>

#include "scenarios/scenario.h"

#define N 1024
#define ITERATIONS 60

/* y = y * f over the first `covered` elements (one thread each): the grid is the only difference between shapes. */
static void scale_first(float *y, float f, int covered, cudaStream_t s)
{
    int n = N;
    void *a[] = {&y, &f, &n};
    CK(cudaLaunchKernel((const void *)k_scale, grid_for(covered), block256, a, 0, s));
}

/*
 * Shape A fills and scales the first half, shape P adds and scales all of
 * it; every fifth iteration from the twentieth is A's first call followed
 * by P's second (a shape of its own).  Held back as A's, that launch would
 * run with A's grid: only half of it scaled.
 */
static void shapes(void)
{
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float *x = dev_floats(N), *y = dev_floats(N);
    k_fill_on(x, 1.0f, N, s);
    k_fill_on(y, 0.5f, N, s);
    for (int it = 0; it < ITERATIONS; it++) {
        bool mixed = it >= 20 && it % 5 == 0;
        if (it % 2 == 0 || mixed) {
            k_add_step_on(x, 0.25f, 1, N, s);
            scale_first(x, 0.5f, mixed ? N : N / 2, s);
        } else {
            k_axpy_on(0.5f, x, y, N, s);
            scale_first(x, 0.5f, N, s);
        }
        CK(cudaStreamSynchronize(s));
    }
    show("x", x, N);
    show("y", y, N);
}

/* The two threads' handshakes, in the order they happen in an iteration. */
enum step { A_ARMED, B_HOLDS, A_LAUNCHED, B_SYNCED, STEPS };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int done[STEPS]; /* the iteration each step was last done in */
static cudaStream_t shared; /* B's stream, which A also launches on */
static float *x;            /* written on the shared stream by both, in an order that matters */

/* Marks step as done in iteration it. */
static void signal_step(enum step step, int it)
{
    pthread_mutex_lock(&lock);
    done[step] = it;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
}

/* Waits until step was done in iteration it. */
static void wait_step(enum step step, int it)
{
    pthread_mutex_lock(&lock);
    while (done[step] != it)
        pthread_cond_wait(&changed, &lock);
    pthread_mutex_unlock(&lock);
}

/*
 * Thread A: a launch on its own stream (its fast path opens), then, once B
 * holds work, one on B's stream, and a sync of its own stream, which ends
 * its region: its graph is launched there, and B's work must be on the
 * shared stream before it (a sync of another stream would not submit it).
 */
static void *thread_a(void *arg)
{
    (void)arg;
    cudaStream_t own;
    CK(cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking));
    float *y = dev_floats(N);
    k_fill_on(y, 0.0f, N, own);
    for (int it = 1; it <= ITERATIONS; it++) {
        k_add_step_on(y, 0.5f, 2, N, own);
        signal_step(A_ARMED, it);
        wait_step(B_HOLDS, it);
        k_add_step_on(x, 1.0f, 1, N, shared); /* after B's scale, in the program's order */
        CK(cudaStreamSynchronize(own));
        signal_step(A_LAUNCHED, it);
        wait_step(B_SYNCED, it);
        CK(cudaStreamSynchronize(shared));
    }
    show("y", y, N);
    return NULL;
}

/* Thread B: once A's fast path is open, holds back a scale of x on the shared stream; syncs it after A's launch. */
static void *thread_b(void *arg)
{
    (void)arg;
    for (int it = 1; it <= ITERATIONS; it++) {
        wait_step(A_ARMED, it);
        k_scale_on(x, 0.5f, N, shared);
        signal_step(B_HOLDS, it);
        wait_step(A_LAUNCHED, it);
        CK(cudaStreamSynchronize(shared));
        signal_step(B_SYNCED, it);
    }
    return NULL;
}

/* Runs threads A and B (B's stream and x made first). */
static void threads(void)
{
    CK(cudaStreamCreateWithFlags(&shared, cudaStreamNonBlocking));
    x = dev_floats(N);
    k_fill_on(x, 1.0f, N, shared);
    CK(cudaStreamSynchronize(shared));
    pthread_t a, b;
    pthread_create(&b, NULL, thread_b, NULL);
    pthread_create(&a, NULL, thread_a, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    show("x", x, N);
}

/* Four launches an iteration, the step (an int) and which buffer is read (a pointer) changing every time. */
static void args(void)
{
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float *x = dev_floats(N), *y = dev_floats(N);
    k_fill_on(x, 1.0f, N, s);
    k_fill_on(y, 0.5f, N, s);
    for (int it = 0; it < ITERATIONS; it++) {
        k_add_step_on(x, 0.25f, it, N, s);
        k_axpy_on(0.5f, it % 3 ? x : y, it % 3 ? y : x, N, s);
        k_scale_on(y, it % 2 ? 0.5f : 1.5f, N, s);
        k_add_step_on(y, 0.125f, it % 4, N, s);
        CK(cudaStreamSynchronize(s));
    }
    show("x", x, N);
    show("y", y, N);
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "shapes";
    scenario_begin(what);
    if (strcmp(what, "threads") == 0)
        threads();
    else if (strcmp(what, "args") == 0)
        args();
    else
        shapes();
    return scenario_end();
}
