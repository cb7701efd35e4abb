/* SPDX-License-Identifier: MIT */
/*
 * param_gaps (Stand-in only: no GPU twin yet; tests/standin/param_gaps.sh
 * needs the stand-in's view of the bytes in a gap): kernels whose parameter blocks have a gap (k_axpy: a 4-byte
 * float, then 4 bytes of padding before its first pointer), launched with
 * the same arguments every iteration while the bytes that could land in
 * the gap change.  Three regions, each ended by a stream sync, take turns:
 *   staged   an H2D copy from pageable memory (bytes the shim keeps where
 *            the next region's parameters go) of new data every iteration,
 *            then k_scale
 *   runtime  k_axpy and k_scale through cudaLaunchKernel
 *   packed   k_axpy through cuLaunchKernel's extra form, its packed buffer
 *            with other garbage in the padding every iteration, as a
 *            program that packs parameters into a reused buffer leaves it
 * Nothing the kernels read changes between iterations but the staged copy's
 * data, so a replay has nothing to patch (tests/standin/param_gaps.sh).
 * 40 iterations; prints the buffers' hashes.
 */
#include <cuda.h>

#include "scenario.h"

#define N 4096
#define STAGED 64

/* k_axpy through cuLaunchKernel's extra form, `garbage` in the 4 bytes between its float and its first pointer. */
static void axpy_packed(CUfunction f, float alpha, const float *x, float *y, int n, unsigned garbage, cudaStream_t s)
{
    unsigned char buf[32];
    memcpy(buf, &alpha, 4);
    memcpy(buf + 4, &garbage, 4);
    memcpy(buf + 8, &x, 8);
    memcpy(buf + 16, &y, 8);
    memcpy(buf + 24, &n, 4);
    size_t used = 28;
    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &used, CU_LAUNCH_PARAM_END};
    CUresult r = cuLaunchKernel(f, (unsigned)(n + 255) / 256, 1, 1, 256, 1, 1, 0, (CUstream)s, NULL, extra);
    if (r != CUDA_SUCCESS)
        printf("cuLaunchKernel (extra) failed: %d\n", (int)r);
}

int main(void)
{
    scenario_begin("param_gaps");
    size_t offset = 0, size = 0;
    cudaFunction_t f = NULL;
    CK(cudaGetFuncBySymbol(&f, (const void *)k_axpy));
    /* The packed buffer above is laid out for k_axpy as a C compiler lays it out: say so if the kernel's differs. */
    if (cuFuncGetParamInfo((CUfunction)f, 1, &offset, &size) != CUDA_SUCCESS || offset != 8 || size != 8)
        printf("k_axpy's second parameter is not at 8 (8 bytes): %zu (%zu)\n", offset, size);
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float *x = dev_floats(N), *y = dev_floats(N), *z = dev_floats(N), *in = dev_floats(STAGED);
    float host[STAGED];
    k_fill_on(x, 1.0f, N, s);
    k_fill_on(y, 0.5f, N, s);
    k_fill_on(z, 0.25f, N, s);
    CK(cudaStreamSynchronize(s));
    for (int it = 0; it < 40; it++) {
        for (int i = 0; i < STAGED; i++)
            host[i] = (float)(it * STAGED + i);
        CK(cudaMemcpyAsync(in, host, sizeof host, cudaMemcpyHostToDevice, s));
        k_scale_on(in, 0.5f, STAGED, s);
        CK(cudaStreamSynchronize(s));

        k_axpy_on(0.25f, x, y, N, s);
        k_scale_on(y, 0.5f, N, s);
        CK(cudaStreamSynchronize(s));

        axpy_packed((CUfunction)f, 0.125f, x, z, N, 0x9e3779b9u * (unsigned)(it + 1), s);
        k_scale_on(z, 0.75f, N, s);
        CK(cudaStreamSynchronize(s));
    }
    show("in", in, STAGED);
    show("y", y, N);
    show("z", z, N);
    return scenario_end();
}
