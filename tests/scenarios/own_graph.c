/* SPDX-License-Identifier: MIT */
/*
 * own_graph: the program captures a fork/join step into a graph itself,
 * replays it with fresh input copied in before each launch, and updates it
 * in place once with a new scalar (cudaGraphExecUpdate). The shim must
 * step aside and leave all of this to the runtime.
 */
#include "scenario.h"

#define N 2048

/* Captures step(s0, s1, scalar) and returns the graph. */
static cudaGraph_t capture_step(cudaStream_t s0, cudaStream_t s1, cudaEvent_t fork,
                                cudaEvent_t join, float *in, float *q, float *k, float *out,
                                float scalar)
{
    cudaGraph_t g = NULL;
    CK(cudaStreamBeginCapture(s0, cudaStreamCaptureModeThreadLocal));
    CK(cudaEventRecord(fork, s0));
    CK(cudaStreamWaitEvent(s1, fork, 0));
    k_combine_on(in, in, q, N, s0);
    k_fill_on(k, scalar, N, s1);
    k_axpy_on(0.5f, in, k, N, s1);
    CK(cudaEventRecord(join, s1));
    CK(cudaStreamWaitEvent(s0, join, 0));
    k_combine_on(q, k, out, N, s0);
    CK(cudaStreamEndCapture(s0, &g));
    return g;
}

/* 20 replays, an in-place update after the tenth. */
int main(void)
{
    scenario_begin("own_graph");
    cudaStream_t s0, s1;
    cudaEvent_t fork, join;
    CK(cudaStreamCreateWithFlags(&s0, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    CK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
    float *in = dev_floats(N), *q = dev_floats(N), *k = dev_floats(N), *out = dev_floats(N);
    float *acc = dev_floats(N), *pinned = NULL;
    CK(cudaMallocHost((void **)&pinned, 20 * N * sizeof(float)));
    for (int i = 0; i < 20 * N; i++)
        pinned[i] = (float)(i % 17) * 0.125f;
    k_fill_on(acc, 0.0f, N, s0);

    cudaGraph_t g = capture_step(s0, s1, fork, join, in, q, k, out, 1.0f);
    cudaGraphExec_t exec = NULL;
    CK(cudaGraphInstantiate(&exec, g, 0));
    size_t nodes = 0;
    CK(cudaGraphGetNodes(g, NULL, &nodes));
    printf("graph nodes %zu\n", nodes);
    for (int it = 0; it < 20; it++) {
        if (it == 10) {
            cudaGraph_t g2 = capture_step(s0, s1, fork, join, in, q, k, out, 3.0f);
            cudaGraphExecUpdateResultInfo info;
            CK(cudaGraphExecUpdate(exec, g2, &info));
            printf("update result %d\n", (int)info.result);
            CK(cudaGraphDestroy(g2));
        }
        CK(cudaMemcpyAsync(in, pinned + (size_t)it * N, N * sizeof(float),
                           cudaMemcpyHostToDevice, s0));
        CK(cudaGraphLaunch(exec, s0));
        k_axpy_on(1.0f, out, acc, N, s0);
    }
    CK(cudaStreamSynchronize(s0));
    show("out", out, N);
    show("acc", acc, N);
    CK(cudaGraphExecDestroy(exec));
    CK(cudaGraphDestroy(g));
    CK(cudaFreeHost(pinned));
    return scenario_end();
}
