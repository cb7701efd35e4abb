/* SPDX-License-Identifier: MIT */
/* y = alpha * x + y launched through the driver's cuLaunchKernel, as a library (or a static runtime) launches. */
#ifndef REPRISE_TESTS_DRIVER_AXPY_H
#define REPRISE_TESTS_DRIVER_AXPY_H

#include <stdio.h>

#include <cuda.h>

#include "../scenarios/scenario.h"

/* Launches k_axpy over n floats on stream through cuLaunchKernel; prints the error if the driver refuses. */
static inline void driver_axpy(float alpha, const float *x, float *y, int n, cudaStream_t stream)
{
    static CUfunction f;
    if (f == NULL) {
        cudaFunction_t rf = NULL;
        CK(cudaGetFuncBySymbol(&rf, (const void *)k_axpy));
        f = (CUfunction)rf;
    }
    void *args[] = {&alpha, &x, &y, &n};
    CUresult r = cuLaunchKernel(f, (unsigned)(n + 255) / 256, 1, 1, 256, 1, 1, 0, (CUstream)stream, args, NULL);
    if (r != CUDA_SUCCESS)
        printf("cuLaunchKernel failed: %d\n", (int)r);
}

#endif
