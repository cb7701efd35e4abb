/* SPDX-License-Identifier: MIT */
/*
 * host_func: a host function in the loop reads what the stream copied to
 * pinned memory just before it, and folds it into a host-side checksum.
 */
#include "scenario.h"

#define N 1024

struct fold {
    const float *pinned;
    uint64_t sum;
    int calls;
};

/* Host function: hashes the pinned buffer into the running checksum. */
static void CUDART_CB fold_pinned(void *arg)
{
    struct fold *f = arg;
    f->sum = f->sum * 31 + fnv1a(f->pinned, N * sizeof(float));
    f->calls++;
}

/* 24 iterations; a host function in each, a sync every third. */
int main(void)
{
    scenario_begin("host_func");
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float *y = dev_floats(N), *pinned = NULL;
    CK(cudaMallocHost((void **)&pinned, N * sizeof(float)));
    struct fold f = {pinned, 0, 0};
    k_fill_on(y, 1.0f, N, s);
    for (int it = 0; it < 24; it++) {
        k_add_step_on(y, 0.75f, it, N, s);
        k_scale_on(y, 0.5f, N, s);
        CK(cudaMemcpyAsync(pinned, y, N * sizeof(float), cudaMemcpyDeviceToHost, s));
        CK(cudaLaunchHostFunc(s, fold_pinned, &f));
        if (it % 3 == 2)
            CK(cudaStreamSynchronize(s));
    }
    CK(cudaStreamSynchronize(s));
    printf("host function calls %d checksum %016llx\n", f.calls, (unsigned long long)f.sum);
    show("y", y, N);
    CK(cudaFreeHost(pinned));
    return scenario_end();
}
