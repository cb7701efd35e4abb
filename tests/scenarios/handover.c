/* SPDX-License-Identifier: MIT */
/*
 * handover: two host threads take turns on one stream, as PyTorch's
 * training step does (the forward pass and the optimizer on the program's
 * thread, the backward pass on autograd's device thread) and C++ producer
 * and consumer threads do. In each iteration the producer issues kernels
 * that update x and write y, then hands the stream over on the host (a
 * mutex and a condition variable, no CUDA call between); the consumer
 * issues kernels that read y into z and w on the same stream and hands it
 * back. Only the stream orders the consumer's reads after the producer's
 * writes, and the producer's next writes after those reads.
 *
 * Four phases, each with its own pair of threads, 40 iterations each:
 * "relay" (the consumer synchronises the stream before handing it back;
 * the producer never does) and "train" (the producer, given the stream
 * back, issues four more kernels that read z and synchronises), each on a
 * created stream and on the legacy stream. Every buffer is printed after
 * each phase, in a fixed order.
 */
#include <pthread.h>

#include "scenario.h"

#define N 2048
#define ITERATIONS 40

enum shape { RELAY, TRAIN };

/* One phase: its stream, its shape, its buffers and the host hand-over of its stream. */
struct phase {
    const char *name;
    enum shape shape;
    cudaStream_t stream;
    float *x, *y, *z, *w;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int given, returned; /* the last iteration the producer handed over, and the consumer handed back */
};

/* Publishes a new value of *counter. */
static void publish(struct phase *p, int *counter, int value)
{
    pthread_mutex_lock(&p->lock);
    *counter = value;
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->lock);
}

/* Waits until *counter reaches value. */
static void await(struct phase *p, const int *counter, int value)
{
    pthread_mutex_lock(&p->lock);
    while (*counter < value)
        pthread_cond_wait(&p->changed, &p->lock);
    pthread_mutex_unlock(&p->lock);
}

/* The producer: four kernels, the stream handed over; in a training step, four more once it is back, and a sync. */
static void *producer(void *arg)
{
    struct phase *p = arg;
    cudaStream_t s = p->stream;
    for (int it = 0; it < ITERATIONS; it++) {
        await(p, &p->returned, it - 1);
        k_add_step_on(p->x, 0.25f, it, N, s);
        k_axpy_on(0.5f, p->x, p->y, N, s);
        k_scale_on(p->y, 0.75f, N, s);
        k_axpy_on(-0.125f, p->y, p->x, N, s);
        publish(p, &p->given, it);
        if (p->shape == TRAIN) {
            await(p, &p->returned, it);
            k_axpy_on(-0.0625f, p->z, p->x, N, s);
            k_scale_on(p->x, 0.875f, N, s);
            k_scale_on(p->y, 0.5f, N, s);
            k_add_step_on(p->y, 0.125f, it, N, s);
            CK(cudaStreamSynchronize(s));
        }
    }
    return NULL;
}

/* The consumer: given the stream, four kernels that read y; in a relay, a sync; the stream handed back. */
static void *consumer(void *arg)
{
    struct phase *p = arg;
    cudaStream_t s = p->stream;
    for (int it = 0; it < ITERATIONS; it++) {
        await(p, &p->given, it);
        k_axpy_on(0.5f, p->y, p->z, N, s);
        k_scale_on(p->z, 0.5f, N, s);
        k_combine_on(p->y, p->z, p->w, N, s);
        k_scale_on(p->w, 0.25f, N, s);
        if (p->shape == RELAY)
            CK(cudaStreamSynchronize(s));
        publish(p, &p->returned, it);
    }
    return NULL;
}

/* Runs one phase (x starting at start) on its own pair of threads, then prints its buffers. */
static void run_phase(const char *name, enum shape shape, cudaStream_t stream, float start)
{
    struct phase p = {.name = name, .shape = shape, .stream = stream, .given = -1, .returned = -1};
    pthread_mutex_init(&p.lock, NULL);
    pthread_cond_init(&p.changed, NULL);
    p.x = dev_floats(N), p.y = dev_floats(N), p.z = dev_floats(N), p.w = dev_floats(N);
    k_fill_on(p.x, start, N, stream);
    k_fill_on(p.y, 0.5f, N, stream);
    k_fill_on(p.z, 0.0f, N, stream);
    k_fill_on(p.w, 0.0f, N, stream);
    CK(cudaStreamSynchronize(stream));
    pthread_t threads[2];
    pthread_create(&threads[0], NULL, producer, &p);
    pthread_create(&threads[1], NULL, consumer, &p);
    pthread_join(threads[0], NULL);
    pthread_join(threads[1], NULL);
    CK(cudaStreamSynchronize(stream));
    char label[64];
    const float *buffers[] = {p.x, p.y, p.z, p.w};
    for (int b = 0; b < 4; b++) {
        snprintf(label, sizeof label, "%s %c", name, "xyzw"[b]);
        show(label, buffers[b], N);
    }
    for (int b = 0; b < 4; b++)
        CK(cudaFree((void *)buffers[b]));
    pthread_cond_destroy(&p.changed);
    pthread_mutex_destroy(&p.lock);
}

/* The four phases: relay and training step, on a created stream and on the legacy stream. */
int main(void)
{
    scenario_begin("handover");
    cudaStream_t blocking, non_blocking;
    CK(cudaStreamCreateWithFlags(&non_blocking, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&blocking, cudaStreamDefault));
    run_phase("relay on a created stream", RELAY, non_blocking, 1.0f);
    run_phase("relay on the legacy stream", RELAY, cudaStreamLegacy, 2.0f);
    run_phase("training step on a created stream", TRAIN, blocking, 3.0f);
    run_phase("training step on the legacy stream", TRAIN, cudaStreamLegacy, 4.0f);
    CK(cudaStreamDestroy(non_blocking));
    CK(cudaStreamDestroy(blocking));
    return scenario_end();
}
