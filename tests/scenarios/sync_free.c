/* SPDX-License-Identifier: MIT */
/*
 * sync_free: 10000 iterations without a synchronisation, then one.
 *
 *     sync_free [change [ITERS]]
 *
 * With `change` (issue 14, item 4; stand-in only for now, no expected GPU
 * output): ITERS (3000) iterations of the two kernels, then ITERS of
 * three, then the sync: the change drops the loop's period, and the
 * second loop's cuts start again from whole periods.
 */
#include <stdbool.h>

#include "scenario.h"

#define N 1024

/* The iterations without a sync, one stream sync at the end. */
int main(int argc, char **argv)
{
    bool change = argc > 1 && strcmp(argv[1], "change") == 0;
    int iters = !change ? 10000 : argc > 2 ? atoi(argv[2]) : 3000;
    scenario_begin(change ? "sync_free change" : "sync_free");
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float *x = dev_floats(N), *y = dev_floats(N);
    k_fill_on(x, 0.001953125f, N, s);
    k_fill_on(y, 0.0f, N, s);
    for (int it = 0; it < iters; it++) {
        k_add_step_on(y, 0.0009765625f, it & 7, N, s);
        k_axpy_on(-0.5f, x, y, N, s);
    }
    for (int it = 0; change && it < iters; it++) {
        k_add_step_on(x, 0.0009765625f, it & 3, N, s);
        k_scale_on(y, 0.5f, N, s);
        k_axpy_on(0.25f, x, y, N, s);
    }
    CK(cudaStreamSynchronize(s));
    show("x", x, N);
    show("y", y, N);
    return scenario_end();
}
