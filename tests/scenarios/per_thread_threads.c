/* SPDX-License-Identifier: MIT */
/*
 * per_thread_threads: built with CUDA_API_PER_THREAD_DEFAULT_STREAM, two
 * host threads each drive their own per-thread default stream (stream 0).
 * The producer updates x and y without ever synchronising (a stream query
 * ends each iteration), so its earlier iterations are still queued when
 * every fourth one hands y to the consumer: it records "produced", and
 * waits on the host while the consumer synchronises with that event,
 * copies y to the host and prints its hash.  The consumer's event
 * synchronisation reaches work the shim may hold back for the producer:
 * the shim must submit it from the consumer's thread, where the
 * producer's stream cannot be named, still after the producer's earlier
 * work.  A host-side handshake makes the program race-free.
 */
#define CUDA_API_PER_THREAD_DEFAULT_STREAM 1
#include <pthread.h>

#include "scenario.h"

#define N 2048
#define ITERATIONS 64
#define HANDOFF_EVERY 4

static float *x, *y, *z;
static cudaEvent_t produced;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int ready = -1, done = -1; /* the last iteration handed over, and taken */

/* Publishes a new value of *counter. */
static void publish(int *counter, int value)
{
    pthread_mutex_lock(&lock);
    *counter = value;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
}

/* Waits until *counter reaches value. */
static void await(const int *counter, int value)
{
    pthread_mutex_lock(&lock);
    while (*counter < value)
        pthread_cond_wait(&changed, &lock);
    pthread_mutex_unlock(&lock);
}

/* Updates x and y each iteration; every HANDOFF_EVERY-th, hands y over and waits until it is taken. */
static void *producer(void *arg)
{
    (void)arg;
    k_fill_on(x, 1.0f, N, 0);
    k_fill_on(y, 0.0f, N, 0);
    for (int it = 0; it < ITERATIONS; it++) {
        k_add_step_on(x, 0.25f, it, N, 0);
        k_axpy_on(0.5f, x, y, N, 0);
        k_scale_on(y, 0.75f, N, 0);
        CK(cudaEventRecord(produced, 0));
        if (it % HANDOFF_EVERY == HANDOFF_EVERY - 1) {
            publish(&ready, it);
            await(&done, it);
        }
        (void)cudaStreamQuery(0); /* ends the iteration without waiting; its answer depends on timing */
    }
    CK(cudaStreamSynchronize(0));
    return NULL;
}

/* Takes each handed-over y: waits for it, copies it to the host, prints its hash, adds it into z. */
static void *consumer(void *arg)
{
    (void)arg;
    float *h = malloc(N * sizeof(float));
    k_fill_on(z, 0.0f, N, 0);
    for (int it = HANDOFF_EVERY - 1; it < ITERATIONS; it += HANDOFF_EVERY) {
        await(&ready, it);
        CK(cudaEventSynchronize(produced));
        CK(cudaMemcpy(h, y, N * sizeof(float), cudaMemcpyDeviceToHost));
        k_axpy_on(1.0f, y, z, N, 0);
        CK(cudaStreamSynchronize(0));
        publish(&done, it);
        report_hash("y", h, N * sizeof(float));
    }
    free(h);
    return NULL;
}

/* Runs both threads, then prints the three buffers. */
int main(void)
{
    scenario_begin("per_thread_threads");
    x = dev_floats(N);
    y = dev_floats(N);
    z = dev_floats(N);
    CK(cudaEventCreateWithFlags(&produced, cudaEventDisableTiming));
    CK(cudaDeviceSynchronize());
    pthread_t t[2];
    pthread_create(&t[0], NULL, producer, NULL);
    pthread_create(&t[1], NULL, consumer, NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    show("x", x, N);
    show("y", y, N);
    show("z", z, N);
    return scenario_end();
}
