/* SPDX-License-Identifier: MIT */
/*
 * launch_loop: LOOP_ITERS iterations of LOOP_KERNELS small kernels launched
 * with <<<>>> (which CUDA 13 compiles to __cudaLaunchKernel) on the default
 * stream, each iteration ending with cudaStreamSynchronize.  Built twice: as
 * launch_loop.gpu (the legacy default stream) and, with --default-stream
 * per-thread, as launch_loop_ptds.gpu (__cudaLaunchKernel_ptsz and the _ptsz /
 * _ptds twins of the other calls).
 *
 * Prints the checksums of both buffers, whether they match the CPU
 * reference, and "launches N": the kernel launches made.
 */
#include "common.h"

int main(void)
{
    require_gpu();
    const int n = LOOP_N;
    const size_t bytes = sizeof(uint32_t) * n;
    const int blocks = (n + LOOP_THREADS - 1) / LOOP_THREADS;
    uint32_t *h_a = (uint32_t *)malloc(bytes), *h_b = (uint32_t *)malloc(bytes);
    uint32_t *r_a = (uint32_t *)malloc(bytes), *r_b = (uint32_t *)malloc(bytes);
    if (!h_a || !h_b || !r_a || !r_b)
        return 1;
    loop_init(h_a, h_b, n);
    loop_init(r_a, r_b, n);

    uint32_t *d_a, *d_b;
    CHECK(cudaMalloc(&d_a, bytes));
    CHECK(cudaMalloc(&d_b, bytes));
    CHECK(cudaMemcpy(d_a, h_a, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_b, h_b, bytes, cudaMemcpyHostToDevice));

    long launches = 0;
    for (int it = 0; it < LOOP_ITERS; it++) {
        for (int j = 0; j < LOOP_KERNELS; j++) {
            switch (loop_kind(j)) {
            case 0: k_mix<<<blocks, LOOP_THREADS>>>(d_a, loop_salt(it, j), n); break;
            case 1: k_xorshift_add<<<blocks, LOOP_THREADS>>>(d_a, d_b, n); break;
            default: k_neighbour<<<blocks, LOOP_THREADS>>>(d_b, d_a, n); break;
            }
            launches++;
            CHECK_LAUNCH();
        }
        CHECK(cudaStreamSynchronize(0));
    }

    loop_finish(d_a, d_b, h_a, h_b, r_a, r_b, n);
    printf("api __cudaLaunchKernel%s %ld\n", PTSZ, launches);
    printf("launches %ld\n", launches);

    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    free(h_a), free(h_b), free(r_a), free(r_b);
    return 0;
}
