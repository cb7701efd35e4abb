/* SPDX-License-Identifier: MIT */
/*
 * fork_join: three non-blocking streams per iteration: s0 forks to s1 and
 * s2 through an event, each side computes from s0's output, s0 waits for
 * both and combines. Dropping or reordering a wait changes the result.
 */
#include "scenario.h"

#define N 4096

/* 25 fork/join iterations. */
int main(void)
{
    scenario_begin("fork_join");
    cudaStream_t s0, s1, s2;
    cudaEvent_t fork, j1, j2;
    CK(cudaStreamCreateWithFlags(&s0, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    CK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    CK(cudaEventCreateWithFlags(&j1, cudaEventDisableTiming));
    CK(cudaEventCreateWithFlags(&j2, cudaEventDisableTiming));
    float *a = dev_floats(N), *b = dev_floats(N), *c1 = dev_floats(N), *c2 = dev_floats(N);
    float *acc = dev_floats(N);
    k_fill_on(b, 0.5f, N, s0);
    k_fill_on(acc, 0.0f, N, s0);
    for (int it = 0; it < 25; it++) {
        k_fill_on(a, (float)(it % 5) + 0.5f, N, s0);
        k_add_step_on(a, 0.25f, it, N, s0);
        CK(cudaEventRecord(fork, s0));
        CK(cudaStreamWaitEvent(s1, fork, 0));
        CK(cudaStreamWaitEvent(s2, fork, 0));
        k_combine_on(a, b, c1, N, s1);
        k_scale_on(c1, 0.5f, N, s1);
        k_combine_on(b, a, c2, N, s2);
        k_add_step_on(c2, 1.0f, it, N, s2);
        CK(cudaEventRecord(j1, s1));
        CK(cudaEventRecord(j2, s2));
        CK(cudaStreamWaitEvent(s0, j1, 0));
        CK(cudaStreamWaitEvent(s0, j2, 0));
        k_axpy_on(1.0f, c1, acc, N, s0);
        k_axpy_on(-0.5f, c2, acc, N, s0);
        k_scale_on(acc, 0.5f, N, s0);
        CK(cudaStreamSynchronize(s0));
    }
    show("acc", acc, N);
    return scenario_end();
}
