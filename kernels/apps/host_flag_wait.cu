/* SPDX-License-Identifier: MIT */
/*
 * host_flag_wait: the host waits for the GPU through host memory (issue 12,
 * case 1).  Each of FW_ITERS iterations launches 5 small kernels on a
 * non-blocking stream; the last one writes the iteration number (from 1)
 * into mapped pinned memory (cudaHostAlloc with cudaHostAllocMapped, the
 * kernel writing through cudaHostGetDevicePointer's pointer).  The host then
 * spins on that flag with volatile reads and no CUDA call, and only after
 * the flag has changed calls cudaStreamSynchronize.  A runtime or shim that
 * holds the launches back until the next CUDA call never lets the flag
 * change: the spin then times out (FW_TIMEOUT_S seconds for the whole run),
 * says so on stderr and exits 3, so a hang becomes a failure.
 *
 * stdout (byte-comparable across runs): the iteration count, the checksums
 * of the device results (the data buffers and what the flag kernel recorded
 * each iteration), whether they match the CPU reference, "api NAME N" and
 * "launches N".  stderr: the loop's wall time ("host_flag_wait: loop_us N").
 * Exit status: 0, 1 (wrong result, CUDA error), 3 (timed out), 77 (no GPU).
 */
#include "common.h"

#include <time.h>

#define FW_N 4096
#define FW_ITERS 2000
#define FW_THREADS 128
#define FW_TIMEOUT_S 20.0 /* for all the spins of a run together */

/* Records a[it % n] for iteration it (from 1), then raises the host's flag to it. */
__global__ void k_flag(const uint32_t *a, uint32_t *seen, volatile uint32_t *flag, int it, int n)
{
    seen[it - 1] = a[it % n];
    __threadfence_system();
    *flag = (uint32_t)it;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The salts of the two mixes of iteration it (from 1). */
static uint32_t salt1(int it)
{
    return (uint32_t)it * 2246822519u + 3u;
}
static uint32_t salt2(int it)
{
    return (uint32_t)it * 3266489917u + 11u;
}

/* The CPU reference of the whole loop: the same four steps on a and b, and what k_flag records. */
static void reference(uint32_t *a, uint32_t *b, uint32_t *seen, int n)
{
    for (int it = 1; it <= FW_ITERS; it++) {
        for (int i = 0; i < n; i++)
            a[i] = op_mix(a[i], salt1(it), (uint32_t)i);
        for (int i = 0; i < n; i++)
            a[i] = op_xorshift_add(a[i], b[i]);
        for (int i = 0; i < n; i++)
            b[i] = op_neighbour(b[i], a[(i + 1) % n]);
        for (int i = 0; i < n; i++)
            a[i] = op_mix(a[i], salt2(it), (uint32_t)i);
        seen[it - 1] = a[it % n];
    }
}

int main(void)
{
    require_gpu();
    const int n = FW_N;
    const size_t bytes = sizeof(uint32_t) * n;
    const int blocks = (n + FW_THREADS - 1) / FW_THREADS;

    int can_map = 0;
    CHECK(cudaDeviceGetAttribute(&can_map, cudaDevAttrCanMapHostMemory, 0));
    if (!can_map) {
        fprintf(stderr, "host_flag_wait: device 0 cannot map host memory\n");
        return 1;
    }

    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    uint32_t *h_flag, *d_flag;
    CHECK(cudaHostAlloc(&h_flag, sizeof *h_flag, cudaHostAllocMapped));
    CHECK(cudaHostGetDevicePointer(&d_flag, h_flag, 0));
    volatile uint32_t *flag = h_flag;
    *flag = 0;

    uint32_t *h_a = (uint32_t *)malloc(bytes), *h_b = (uint32_t *)malloc(bytes);
    uint32_t *h_seen = (uint32_t *)malloc(sizeof(uint32_t) * FW_ITERS);
    uint32_t *r_a = (uint32_t *)malloc(bytes), *r_b = (uint32_t *)malloc(bytes);
    uint32_t *r_seen = (uint32_t *)malloc(sizeof(uint32_t) * FW_ITERS);
    if (!h_a || !h_b || !h_seen || !r_a || !r_b || !r_seen)
        return 1;
    loop_init(h_a, h_b, n);
    loop_init(r_a, r_b, n);

    uint32_t *d_a, *d_b, *d_seen;
    CHECK(cudaMalloc(&d_a, bytes));
    CHECK(cudaMalloc(&d_b, bytes));
    CHECK(cudaMalloc(&d_seen, sizeof(uint32_t) * FW_ITERS));
    CHECK(cudaMemcpy(d_a, h_a, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_b, h_b, bytes, cudaMemcpyHostToDevice));

    long launches = 0;
    double waited = 0.0; /* seconds spent spinning, all iterations together */
    const double began = now_s();
    for (int it = 1; it <= FW_ITERS; it++) {
        k_mix<<<blocks, FW_THREADS, 0, s>>>(d_a, salt1(it), n);
        CHECK_LAUNCH();
        k_xorshift_add<<<blocks, FW_THREADS, 0, s>>>(d_a, d_b, n);
        CHECK_LAUNCH();
        k_neighbour<<<blocks, FW_THREADS, 0, s>>>(d_b, d_a, n);
        CHECK_LAUNCH();
        k_mix<<<blocks, FW_THREADS, 0, s>>>(d_a, salt2(it), n);
        CHECK_LAUNCH();
        k_flag<<<1, 1, 0, s>>>(d_a, d_seen, d_flag, it, n);
        CHECK_LAUNCH();
        launches += 5;

        /* The wait: volatile reads of host memory, no CUDA call until the flag says this iteration is done. */
        const double spin_began = now_s();
        unsigned long spins = 0;
        while (*flag != (uint32_t)it) {
            if ((++spins & 1023) == 0 && waited + (now_s() - spin_began) > FW_TIMEOUT_S) {
                fprintf(stderr,
                        "host_flag_wait: ERROR: timed out at iteration %d of %d: the flag still reads %u after "
                        "%.1f s of waiting in all; the launches were not submitted to the GPU\n",
                        it, FW_ITERS, (unsigned)*flag, FW_TIMEOUT_S);
                exit(3);
            }
        }
        waited += now_s() - spin_began;
        CHECK(cudaStreamSynchronize(s));
    }
    const double loop_s = now_s() - began;

    CHECK(cudaMemcpy(h_a, d_a, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(h_b, d_b, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(h_seen, d_seen, sizeof(uint32_t) * FW_ITERS, cudaMemcpyDeviceToHost));
    CHECK(cudaGetLastError());
    printf("iterations %d\n", FW_ITERS);
    printf("flag %u\n", (unsigned)*flag);
    print_checksum("a", h_a, bytes);
    print_checksum("b", h_b, bytes);
    print_checksum("seen", h_seen, sizeof(uint32_t) * FW_ITERS);
    reference(r_a, r_b, r_seen, n);
    verify_u32("a", h_a, r_a, n);
    verify_u32("b", h_b, r_b, n);
    verify_u32("seen", h_seen, r_seen, FW_ITERS);
    printf("api __cudaLaunchKernel %ld\n", launches);
    printf("launches %ld\n", launches);
    fprintf(stderr, "host_flag_wait: loop_us %.0f (%d iterations, %.0f us spinning on the flag)\n", loop_s * 1e6,
            FW_ITERS, waited * 1e6);

    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    CHECK(cudaFree(d_seen));
    CHECK(cudaFreeHost(h_flag));
    free(h_a), free(h_b), free(h_seen), free(r_a), free(r_b), free(r_seen);
    return 0;
}
