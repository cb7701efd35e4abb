/* SPDX-License-Identifier: MIT */
/*
 * two_threads: two host threads, each with its own stream and buffers,
 * run their own loops at the same time. Results are printed after both
 * have joined, in a fixed order.
 */
#include <pthread.h>

#include "scenario.h"

#define N 2048

struct worker {
    int id;
    float *x, *y;
};

/* One thread's loop: 30 iterations on its own stream. */
static void *work(void *arg)
{
    struct worker *w = arg;
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    k_fill_on(w->x, 1.0f + (float)w->id, N, s);
    k_fill_on(w->y, 0.0f, N, s);
    for (int it = 0; it < 30; it++) {
        k_add_step_on(w->x, 0.25f, it + w->id, N, s);
        k_axpy_on(0.5f, w->x, w->y, N, s);
        k_scale_on(w->y, 0.75f, N, s);
        if (it % 3 == w->id)
            CK(cudaStreamSynchronize(s));
    }
    CK(cudaStreamSynchronize(s));
    CK(cudaStreamDestroy(s));
    return NULL;
}

/* Starts both workers, joins them, prints their buffers. */
int main(void)
{
    scenario_begin("two_threads");
    struct worker w[2];
    pthread_t t[2];
    for (int i = 0; i < 2; i++) {
        w[i].id = i;
        w[i].x = dev_floats(N);
        w[i].y = dev_floats(N);
    }
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, work, &w[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < 2; i++) {
        char label[16];
        snprintf(label, sizeof label, "x%d", i);
        show(label, w[i].x, N);
        snprintf(label, sizeof label, "y%d", i);
        show(label, w[i].y, N);
    }
    return scenario_end();
}
