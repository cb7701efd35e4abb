/* SPDX-License-Identifier: MIT */
/*
 * query_sync: queries and synchronisations at irregular points of a loop,
 * and a polling loop on cudaStreamQuery. What a query answers depends on
 * timing on a GPU, so only "Success or NotReady" is printed.
 */
#include "scenario.h"

#define N 4096

/* 60 iterations with event and stream queries mixed in. */
int main(void)
{
    scenario_begin("query_sync");
    cudaStream_t s;
    cudaEvent_t e;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    float *x = dev_floats(N), *y = dev_floats(N);
    k_fill_on(x, 0.5f, N, s);
    k_fill_on(y, 1.0f, N, s);
    int odd_answers = 0;
    for (int it = 0; it < 60; it++) {
        k_add_step_on(x, 0.03125f, it, N, s);
        k_axpy_on(0.5f, x, y, N, s);
        k_scale_on(y, 0.96875f, N, s);
        if (it % 7 == 3) {
            cudaError_t q = cudaStreamQuery(s);
            odd_answers += q != cudaSuccess && q != cudaErrorNotReady;
        }
        if (it % 5 == 2) {
            CK(cudaEventRecord(e, s));
            CK(cudaEventSynchronize(e));
        }
        if (it % 11 == 0)
            CK(cudaStreamSynchronize(s));
        if (it % 13 == 6) {
            CK(cudaEventRecord(e, s));
            cudaError_t q;
            while ((q = cudaEventQuery(e)) == cudaErrorNotReady)
                continue;
            CK(q);
        }
    }
    CK(cudaStreamSynchronize(s));
    printf("queries answered other than Success/NotReady: %d\n", odd_answers);
    show("x", x, N);
    show("y", y, N);
    cudaGetLastError();     /* NotReady is not recorded, but be safe */
    return scenario_end();
}
