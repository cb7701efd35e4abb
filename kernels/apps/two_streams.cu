/* SPDX-License-Identifier: MIT */
/*
 * two_streams: copies and kernels on two non-blocking streams, ordered by
 * events.  Each iteration: s1 copies a chunk of pinned host input to a
 * (cudaMemcpyAsync), mixes it and records `fork`; s2 waits for `fork` and
 * folds a into b while s1 works on c; s2 records `join`, s1 waits for it and
 * adds b into c.  At the end s1 copies a, b and c back to pinned host memory
 * (device to host), and the host synchronises on s1 and on the last event.
 *
 * Prints the checksums, whether they match the CPU reference, the codes of
 * the final queries, "api NAME N" for the launch function and "launches N".
 */
#include "common.h"

#define TS_N 8192
#define TS_ITERS 100
#define TS_THREADS 256

/* c[i] = c[i] * 5 + salt */
__global__ void k_scale_salt(uint32_t *c, uint32_t salt, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = c[i] * 5u + salt;
}

/* c[i] = c[i] + (b[i] >> 3) */
__global__ void k_accumulate(uint32_t *c, const uint32_t *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = c[i] + (b[i] >> 3);
}

/* The CPU reference; each loop is one kernel, run after the one before has finished. */
static void reference(const uint32_t *in, uint32_t *a, uint32_t *b, uint32_t *c, int n)
{
    for (int it = 0; it < TS_ITERS; it++) {
        const uint32_t *chunk = in + (size_t)it * n;
        for (int i = 0; i < n; i++)
            a[i] = op_mix(chunk[i], (uint32_t)it, (uint32_t)i);
        for (int i = 0; i < n; i++)
            b[i] = op_neighbour(b[i], a[(i + 1) % n]);
        for (int i = 0; i < n; i++)
            c[i] = c[i] * 5u + (uint32_t)(it * 31 + 7);
        for (int i = 0; i < n; i++)
            c[i] = c[i] + (b[i] >> 3);
    }
}

int main(void)
{
    require_gpu();
    const int n = TS_N;
    const size_t bytes = sizeof(uint32_t) * n;
    const int blocks = (n + TS_THREADS - 1) / TS_THREADS;

    uint32_t *h_in, *h_out;
    CHECK(cudaMallocHost(&h_in, bytes * TS_ITERS));
    CHECK(cudaMallocHost(&h_out, bytes * 3));
    for (size_t i = 0; i < (size_t)n * TS_ITERS; i++)
        h_in[i] = (uint32_t)i * 2654435761u ^ 0x9e3779b9u;

    cudaStream_t s1, s2;
    CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    cudaEvent_t fork, join;
    CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));

    uint32_t *d_a, *d_b, *d_c;
    CHECK(cudaMalloc(&d_a, bytes));
    CHECK(cudaMalloc(&d_b, bytes));
    CHECK(cudaMalloc(&d_c, bytes));
    /* b and c start at zero, set on s2 and s1; s1 waits for s2's set. */
    CHECK(cudaMemsetAsync(d_b, 0, bytes, s2));
    CHECK(cudaMemsetAsync(d_c, 0, bytes, s1));
    CHECK(cudaEventRecord(join, s2));
    CHECK(cudaStreamWaitEvent(s1, join, 0));

    long launches = 0;
    for (int it = 0; it < TS_ITERS; it++) {
        CHECK(cudaMemcpyAsync(d_a, h_in + (size_t)it * n, bytes, cudaMemcpyHostToDevice, s1));
        k_mix<<<blocks, TS_THREADS, 0, s1>>>(d_a, (uint32_t)it, n);
        launches++;
        CHECK_LAUNCH();
        CHECK(cudaEventRecord(fork, s1));
        /* fork: s2 reads a and writes b, s1 meanwhile writes c only. */
        CHECK(cudaStreamWaitEvent(s2, fork, 0));
        k_neighbour<<<blocks, TS_THREADS, 0, s2>>>(d_b, d_a, n);
        launches++;
        CHECK_LAUNCH();
        k_scale_salt<<<blocks, TS_THREADS, 0, s1>>>(d_c, (uint32_t)(it * 31 + 7), n);
        launches++;
        CHECK_LAUNCH();
        /* join: s1 reads b, and next iteration's copy overwrites a only after s2 read it. */
        CHECK(cudaEventRecord(join, s2));
        CHECK(cudaStreamWaitEvent(s1, join, 0));
        k_accumulate<<<blocks, TS_THREADS, 0, s1>>>(d_c, d_b, n);
        launches++;
        CHECK_LAUNCH();
    }
    CHECK(cudaMemcpyAsync(h_out, d_a, bytes, cudaMemcpyDeviceToHost, s1));
    CHECK(cudaMemcpyAsync(h_out + n, d_b, bytes, cudaMemcpyDeviceToHost, s1));
    CHECK(cudaMemcpyAsync(h_out + 2 * (size_t)n, d_c, bytes, cudaMemcpyDeviceToHost, s1));
    CHECK(cudaStreamSynchronize(s1));
    CHECK(cudaEventSynchronize(join));
    printf("query event %s\n", cudaGetErrorName(cudaEventQuery(join)));
    printf("query stream %s\n", cudaGetErrorName(cudaStreamQuery(s2)));
    CHECK(cudaGetLastError());

    print_checksum("a", h_out, bytes);
    print_checksum("b", h_out + n, bytes);
    print_checksum("c", h_out + 2 * (size_t)n, bytes);
    uint32_t *r_a = (uint32_t *)calloc(n, sizeof *r_a), *r_b = (uint32_t *)calloc(n, sizeof *r_b),
             *r_c = (uint32_t *)calloc(n, sizeof *r_c);
    if (!r_a || !r_b || !r_c)
        return 1;
    reference(h_in, r_a, r_b, r_c, n);
    verify_u32("a", h_out, r_a, n);
    verify_u32("b", h_out + n, r_b, n);
    verify_u32("c", h_out + 2 * (size_t)n, r_c, n);
    printf("api __cudaLaunchKernel %ld\n", launches);
    printf("launches %ld\n", launches);

    CHECK(cudaEventDestroy(fork));
    CHECK(cudaEventDestroy(join));
    CHECK(cudaStreamDestroy(s1));
    CHECK(cudaStreamDestroy(s2));
    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    CHECK(cudaFree(d_c));
    CHECK(cudaFreeHost(h_in));
    CHECK(cudaFreeHost(h_out));
    free(r_a), free(r_b), free(r_c);
    return 0;
}
