/* SPDX-License-Identifier: MIT */
/*
 * governor: loops of one region of 16 launches and a sync, for the
 * governor (tests/governor.sh).  costly: every launch's scalar changes
 * every iteration, so that each replay patches all 16 nodes (with the
 * stand-in's STANDIN_NODE_PATCH_US, dearer than the launches it replaces);
 * paying: nothing changes, so that a replay is one graph launch where
 * passing through submits 16; phases: ITERS costly iterations, then
 * MORE paying ones.  threads: two threads run the costly loop at once,
 * one on a stream of its own and one on its per-thread default stream, so
 * that stepping aside submits another thread's held-back work (on the
 * legacy stream, for the per-thread one).  Prints the buffers' checksums,
 * which must not depend on the shim.
 *
 *     governor costly|paying|threads [ITERS]      governor phases ITERS MORE
 */
#include <pthread.h>

#include "scenario.h"

#define N 256
#define LAUNCHES 16

/* One iteration on stream s: 15 steps on x, whose scalar is it-dependent if costly, and a scale; then a sync. */
static void iteration(float *x, int it, int costly, cudaStream_t s)
{
    for (int j = 0; j < LAUNCHES - 1; j++)
        k_add_step_on(x, 0.001f, costly ? it + j : j, N, s);
    k_scale_on(x, 0.5f, N, s);
    CK(cudaStreamSynchronize(s));
}

struct worker {
    float *x;
    int iters;
    cudaStream_t stream;
};

/* A thread's costly loop. */
static void *work(void *arg)
{
    struct worker *w = arg;
    for (int it = 0; it < w->iters; it++)
        iteration(w->x, it, 1, w->stream);
    return NULL;
}

/* Runs the loop the arguments name. */
int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "costly";
    int iters = argc > 2 ? atoi(argv[2]) : 200, more = argc > 3 ? atoi(argv[3]) : 0;
    scenario_begin("governor");
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float *x = dev_floats(N), *y = dev_floats(N);
    k_fill_on(x, 1.0f, N, s);
    k_fill_on(y, 2.0f, N, s);
    CK(cudaStreamSynchronize(s));
    if (strcmp(mode, "threads") == 0) {
        struct worker w[2] = {{x, iters, s}, {y, iters, cudaStreamPerThread}};
        pthread_t t[2];
        for (int i = 0; i < 2; i++)
            pthread_create(&t[i], NULL, work, &w[i]);
        for (int i = 0; i < 2; i++)
            pthread_join(t[i], NULL);
    } else {
        int paying_first = strcmp(mode, "paying") == 0;
        for (int it = 0; it < iters; it++)
            iteration(x, it, !paying_first, s);
        for (int it = 0; it < more; it++)
            iteration(x, it, 0, s);
    }
    show("x", x, N);
    show("y", y, N);
    CK(cudaStreamDestroy(s));
    return scenario_end();
}
