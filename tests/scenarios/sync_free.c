/* sync_free: 10000 iterations without a synchronisation, then one. */
#include "scenario.h"

#define N 1024

/* 10000 iterations of two kernels, one stream sync at the end. */
int main(void)
{
    scenario_begin("sync_free");
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float *x = dev_floats(N), *y = dev_floats(N);
    k_fill_on(x, 0.001953125f, N, s);
    k_fill_on(y, 0.0f, N, s);
    for (int it = 0; it < 10000; it++) {
        k_add_step_on(y, 0.0009765625f, it & 7, N, s);
        k_axpy_on(-0.5f, x, y, N, s);
    }
    CK(cudaStreamSynchronize(s));
    show("x", x, N);
    show("y", y, N);
    return scenario_end();
}
