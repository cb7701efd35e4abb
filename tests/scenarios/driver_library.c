/* SPDX-License-Identifier: MIT */
/*
 * driver_library: runtime launches around a library's launch through the
 * driver API (tests/standin/fakeblas.c, as cuBLAS does it) on the same
 * stream, each side reading what the other wrote; every eighth iteration
 * the library launches in the middle of the runtime's work too.  Odd
 * iterations end with the program's own driver call (cuStreamSynchronize,
 * linked from libcuda), even ones with cudaStreamSynchronize.
 * Stand-in only: the fake library's kernel is a CPU twin.
 */
#include <cuda.h>

#include "scenario.h"
#include "../standin/fakeblas.h"

#define N 4096

/* Checks one driver call, counted like the runtime's. */
#define CKD(call) scenario_check((call) == 0 ? cudaSuccess : cudaErrorUnknown, #call, __LINE__)

/* Runs 40 iterations of runtime, library and runtime work, synchronised. */
int main(void)
{
    scenario_begin("driver_library");
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float *x = dev_floats(N), *y = dev_floats(N);
    k_fill_on(x, 1.0f, N, s);
    k_fill_on(y, 0.0f, N, s);
    for (int it = 0; it < 40; it++) {
        k_axpy_on(0.5f, x, y, N, s);
        k_scale_on(y, 0.875f, N, s);
        if (it % 8 == 7)
            CKD(fakeblas_blend(s, y, x, N));
        k_add_step_on(x, 0.125f, it, N, s);
        CKD(fakeblas_blend(s, x, y, N));
        k_axpy_on(0.25f, y, x, N, s);
        k_scale_on(x, 0.5f, N, s);
        k_add_step_on(y, 0.25f, it, N, s);
        if (it % 2)
            CKD(cuStreamSynchronize((CUstream)s));
        else
            CK(cudaStreamSynchronize(s));
    }
    show("x", x, N);
    show("y", y, N);
    return scenario_end();
}
