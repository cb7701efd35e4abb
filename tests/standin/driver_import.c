/* SPDX-License-Identifier: MIT */
/*
 * tests/standin/driver_import: a program linking libcuda that imports a
 * driver work function the shim has no wrapper for (cuLaunchKernel_v99, a
 * version from the future): its PLT binds straight to libcuda, so the shim
 * must graph nothing (tests/standin/driver.sh).  The launches it makes are
 * the runtime's; the import is only called when asked (never, in the test).
 */
#include <cuda.h>

#include "../scenarios/scenario.h"

#define N 1024

CUresult CUDAAPI cuLaunchKernel_v99(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                    unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                                    unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                                    void **kernelParams, void **extra);

/* A launch loop; with an argument, one launch through the imported function first. */
int main(int argc, char **argv)
{
    (void)argv;
    scenario_begin("driver_import");
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float *x = dev_floats(N), *y = dev_floats(N);
    k_fill_on(x, 1.0f, N, s);
    k_fill_on(y, 0.0f, N, s);
    if (argc > 1) {
        float f = 2.0f;
        int n = N;
        void *args[] = {&y, &f, &n};
        cuLaunchKernel_v99((CUfunction)(void *)k_scale, 4, 1, 1, 256, 1, 1, 0, (CUstream)s, args, NULL);
    }
    for (int it = 0; it < 20; it++) {
        k_axpy_on(0.5f, x, y, N, s);
        k_scale_on(y, 0.875f, N, s);
        k_add_step_on(x, 0.125f, it, N, s);
        CK(cudaStreamSynchronize(s));
    }
    show("y", y, N);
    return scenario_end();
}
