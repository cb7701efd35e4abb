/* SPDX-License-Identifier: MIT */
/*
 * tests/standin/ordering.c: a program that is right or deliberately wrong
 * about cross-stream ordering, for tests/standin/ordering.sh.
 *
 *   ordering right        s2 waits for s1 through an event
 *   ordering no-wait      the cudaStreamWaitEvent is missing
 *   ordering no-sync      the result is read with cudaMemcpy (legacy stream)
 *                         without synchronising the non-blocking stream
 *
 * The right program must print the same for every STANDIN_SEED; each wrong
 * one must print something else for at least one seed, which shows that
 * the stand-in's scheduler really reorders what the program leaves free.
 */
#include <stdbool.h>
#include <string.h>

#include "../scenarios/scenario.h"

#define N 1024

/* Producer on s1, consumer on s2; the mode decides what is left out. */
int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "right";
    bool wait = strcmp(mode, "no-wait") != 0, sync = strcmp(mode, "no-sync") != 0;
    setvbuf(stdout, NULL, _IOLBF, 0);
    require_device();
    cudaStream_t s1, s2;
    cudaEvent_t done;
    CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    CK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    float *a = dev_floats(N), *b = dev_floats(N);
    k_fill_on(a, 0.0f, N, 0);
    k_fill_on(b, 0.0f, N, 0);
    CK(cudaDeviceSynchronize());
    for (int it = 0; it < 8; it++) {
        k_fill_on(a, 1.0f + (float)it, N, s1);
        k_scale_on(a, 2.0f, N, s1);
        k_add_step_on(a, 0.5f, it, N, s1);
        CK(cudaEventRecord(done, s1));
        if (wait)
            CK(cudaStreamWaitEvent(s2, done, 0));
        k_axpy_on(1.0f, a, b, N, s2);
        k_scale_on(b, 0.5f, N, s2);
        if (sync)
            CK(cudaStreamSynchronize(s2));
        float h[N];
        CK(cudaMemcpy(h, b, sizeof h, cudaMemcpyDeviceToHost));
        report_hash("b", h, sizeof h);
    }
    return scenario_end();
}
