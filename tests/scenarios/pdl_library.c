/* SPDX-License-Identifier: MIT */
/*
 * pdl_library: a GEMM-like library launching with programmatic dependent
 * launch between the program's kernels, as cuBLASLt does on Hopper
 * (tests/standin/fakeblas.c's fakeblas_gemm_pdl: two cuLaunchKernelEx
 * launches with CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION, each
 * reading what the kernel before it wrote).  Each iteration on one created
 * stream: the program's kernel, the library's call, the program's own
 * programmatic launch through cudaLaunchKernelExC, a copy, the library
 * again (its first launch now follows a copy, not a kernel), the
 * program's kernel, a stream sync.
 *
 * With the argument "event", the program's cudaLaunchKernelExC also
 * carries cudaLaunchAttributeProgrammaticEvent (an event of its own,
 * without timing, that nothing waits for): a launch the shim does not hold
 * back, whose attribute its log names.
 *
 * Stand-in only (the fake library's kernels are CPU twins): its output,
 * tests/standin/expected/pdl_library.out, was recorded on the stand-in
 * (2026-12-02), and tests/standin/pdl.sh checks it.
 */
#include <string.h>

#include <cuda.h>

#include "scenario.h"
#include "../standin/fakeblas.h"

#define N 4096

/* Checks one driver call, counted like the runtime's. */
#define CKD(call) scenario_check((call) == 0 ? cudaSuccess : cudaErrorUnknown, #call, __LINE__)

/* y = y * f as a programmatic dependent launch through cudaLaunchKernelExC (and a programmatic event, if event). */
static void scale_pdl(float *y, float f, int n, cudaStream_t s, cudaEvent_t event)
{
    cudaLaunchAttribute attrs[2];
    memset(attrs, 0, sizeof attrs);
    attrs[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attrs[0].val.programmaticStreamSerializationAllowed = 1;
    attrs[1].id = cudaLaunchAttributeProgrammaticEvent;
    attrs[1].val.programmaticEvent.event = event;
    cudaLaunchConfig_t config = {grid_for(n), block256, 0, s, attrs, event ? 2 : 1};
    void *a[] = {&y, &f, &n};
    CK(cudaLaunchKernelExC(&config, (const void *)k_scale, a));
}

/* Runs 40 iterations of the program's and the library's work, synchronised. */
int main(int argc, char **argv)
{
    scenario_begin("pdl_library");
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaEvent_t event = NULL;
    if (argc > 1 && strcmp(argv[1], "event") == 0)
        CK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
    float *x = dev_floats(N), *y = dev_floats(N), *z = dev_floats(N), *w = dev_floats(N);
    k_fill_on(x, 1.0f, N, s);
    k_fill_on(y, 0.5f, N, s);
    k_fill_on(z, 0.0f, N, s);
    for (int it = 0; it < 40; it++) {
        k_axpy_on(0.5f, x, y, N, s);
        CKD(fakeblas_gemm_pdl(s, y, z, N));
        scale_pdl(z, 0.875f, N, s, event);
        CK(cudaMemcpyAsync(w, z, N * sizeof(float), cudaMemcpyDeviceToDevice, s));
        CKD(fakeblas_gemm_pdl(s, w, x, N));
        k_add_step_on(x, 0.125f, it, N, s);
        CK(cudaStreamSynchronize(s));
    }
    show("x", x, N);
    show("y", y, N);
    show("z", z, N);
    show("w", w, N);
    if (event)
        CK(cudaEventDestroy(event));
    return scenario_end();
}
