/* SPDX-License-Identifier: MIT */
/*
 * event_timing: an event pair timed inside the loop. The elapsed time is
 * printed only as "non-negative", never as a value.
 */
#include "scenario.h"

#define N 4096

/* 25 iterations, each timed. */
int main(void)
{
    scenario_begin("event_timing");
    cudaStream_t s;
    cudaEvent_t t0, t1;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaEventCreate(&t0));
    CK(cudaEventCreate(&t1));
    float *x = dev_floats(N), *y = dev_floats(N);
    k_fill_on(x, 2.0f, N, s);
    k_fill_on(y, 0.0f, N, s);
    int nonneg = 0;
    for (int it = 0; it < 25; it++) {
        CK(cudaEventRecord(t0, s));
        k_axpy_on(0.25f, x, y, N, s);
        k_add_step_on(y, 0.5f, it, N, s);
        CK(cudaEventRecord(t1, s));
        k_scale_on(x, 1.0625f, N, s);
        CK(cudaEventSynchronize(t1));
        float ms = -1.0f;
        CK(cudaEventElapsedTime(&ms, t0, t1));
        nonneg += ms >= 0.0f;
    }
    CK(cudaStreamSynchronize(s));
    printf("elapsed >= 0 in %d of 25 iterations\n", nonneg);
    show("x", x, N);
    show("y", y, N);
    return scenario_end();
}
