/* SPDX-License-Identifier: MIT */
/*
 * kernels/apps/common.h: what the GPU test programs share.
 *
 * Every program prints only what is the same on every run (checksums, error
 * names, counts) so that its stdout can be compared byte for byte with and
 * without the shim; diagnostics go to stderr.  Exit status: 0 success,
 * 1 a wrong result or an unexpected CUDA error, 77 no usable GPU (the
 * Automake convention for a skipped test).
 */
#ifndef REPRISE_APPS_COMMON_H
#define REPRISE_APPS_COMMON_H

#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Ends the program with status 1 when a CUDA call that must succeed fails. */
#define CHECK(call)                                                                                      \
    do {                                                                                                 \
        cudaError_t check_err_ = (call);                                                                 \
        if (check_err_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "%s:%d: %s: %s (%s)\n", __FILE__, __LINE__, #call,                         \
                    cudaGetErrorName(check_err_), cudaGetErrorString(check_err_));                       \
            exit(1);                                                                                     \
        }                                                                                                \
    } while (0)

/* Checks a <<<>>> launch, which returns nothing: peeks, so the error stays for the program. */
#define CHECK_LAUNCH() CHECK(cudaPeekAtLastError())

/* What the API names gain when built with --default-stream per-thread. */
#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
#define PTSZ "_ptsz"
#else
#define PTSZ ""
#endif

/* Exits 77 unless there is at least one CUDA device, and selects device 0. */
static inline void require_gpu(void)
{
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        fprintf(stderr, "no usable GPU: cudaGetDeviceCount: %s, %d device(s); skipping\n",
                cudaGetErrorName(err), count);
        exit(77);
    }
    CHECK(cudaSetDevice(0));
}

/* Microseconds on the monotonic clock. */
static inline double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

/* A fixed value in [-0.5, 0.5) * scale from an index and a salt (the programs' weights and inputs). */
static inline float init_value(size_t i, uint32_t salt, float scale)
{
    uint32_t h = (uint32_t)i * 2654435761u ^ salt;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    return ((float)(h & 0xffff) / 65536.0f - 0.5f) * scale;
}

/* A float's bits, to print. */
static inline uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* FNV-1a, 64 bits, over len bytes. */
static inline uint64_t fnv1a(const void *data, size_t len)
{
    const unsigned char *p = (const unsigned char *)data;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* Prints "checksum NAME HEX" for a host buffer. */
static inline void print_checksum(const char *name, const void *data, size_t len)
{
    printf("checksum %s %016llx\n", name, (unsigned long long)fnv1a(data, len));
}

/* Compares a host buffer with its CPU reference; prints the result, exits 1 on a difference. */
static inline void verify_u32(const char *name, const uint32_t *got, const uint32_t *want, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (got[i] != want[i]) {
            printf("verify %s FAILED\n", name);
            fprintf(stderr, "%s[%zu] = %u, expected %u\n", name, i, got[i], want[i]);
            fflush(stdout);
            exit(1);
        }
    }
    printf("verify %s ok\n", name);
}

/*
 * The integer kernels shared by launch_loop and launch_api: both programs do
 * the same work through different launch APIs, so their checksums must be
 * equal.  The arithmetic (uint32_t, wrapping) is in the op_* functions,
 * which both the kernels and the CPU reference (loop_reference) call.
 */
#define LOOP_N 4096
#define LOOP_ITERS 200
#define LOOP_KERNELS 20 /* per iteration */
#define LOOP_THREADS 128

/* a[i] = a[i] * 2654435761 + salt + i */
__host__ __device__ static inline uint32_t op_mix(uint32_t a, uint32_t salt, uint32_t i)
{
    return a * 2654435761u + salt + i;
}
/* a[i] = (a[i] ^ (a[i] >> 13)) + b[i] */
__host__ __device__ static inline uint32_t op_xorshift_add(uint32_t a, uint32_t b)
{
    return (a ^ (a >> 13)) + b;
}
/* b[i] = b[i] * 3 + a[(i + 1) % n] */
__host__ __device__ static inline uint32_t op_neighbour(uint32_t b, uint32_t a_next)
{
    return b * 3u + a_next;
}

__global__ void k_mix(uint32_t *a, uint32_t salt, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] = op_mix(a[i], salt, (uint32_t)i);
}

__global__ void k_xorshift_add(uint32_t *a, const uint32_t *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] = op_xorshift_add(a[i], b[i]);
}

__global__ void k_neighbour(uint32_t *b, const uint32_t *a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        b[i] = op_neighbour(b[i], a[(i + 1) % n]);
}

/* The kernel that launch j (0..LOOP_KERNELS) of an iteration runs: 0 mix, 1 xorshift_add, 2 neighbour. */
static inline int loop_kind(int j)
{
    return j % 3;
}

/* The salt of launch j of iteration it. */
static inline uint32_t loop_salt(int it, int j)
{
    return (uint32_t)(it * 7919 + j * 104729 + 1);
}

/* Initial contents of a and b. */
static inline void loop_init(uint32_t *a, uint32_t *b, int n)
{
    for (int i = 0; i < n; i++) {
        a[i] = (uint32_t)i * 40503u + 17u;
        b[i] = (uint32_t)(n - i) * 2246822519u;
    }
}

/* The CPU reference of the whole loop. */
static inline void loop_reference(uint32_t *a, uint32_t *b, int n)
{
    for (int it = 0; it < LOOP_ITERS; it++) {
        for (int j = 0; j < LOOP_KERNELS; j++) {
            switch (loop_kind(j)) {
            case 0:
                for (int i = 0; i < n; i++)
                    a[i] = op_mix(a[i], loop_salt(it, j), (uint32_t)i);
                break;
            case 1:
                for (int i = 0; i < n; i++)
                    a[i] = op_xorshift_add(a[i], b[i]);
                break;
            default: /* reads a, writes b */
                for (int i = 0; i < n; i++)
                    b[i] = op_neighbour(b[i], a[(i + 1) % n]);
                break;
            }
        }
    }
}

/* Copies the loop's two buffers back, prints their checksums and checks them against the CPU reference (r_a, r_b: the initial values). */
static inline void loop_finish(const uint32_t *d_a, const uint32_t *d_b, uint32_t *h_a, uint32_t *h_b, uint32_t *r_a,
                               uint32_t *r_b, int n)
{
    const size_t bytes = sizeof(uint32_t) * n;
    CHECK(cudaMemcpy(h_a, d_a, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(h_b, d_b, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaGetLastError());
    print_checksum("a", h_a, bytes);
    print_checksum("b", h_b, bytes);
    loop_reference(r_a, r_b, n);
    verify_u32("a", h_a, r_a, n);
    verify_u32("b", h_b, r_b, n);
}

/* A loop's two buffers of the kernels above: on the host, its CPU reference's copy, and on the device. */
struct loop_buffers {
    int n;
    size_t bytes;
    uint32_t *h_a, *h_b, *r_a, *r_b, *d_a, *d_b;
};

/* Allocates a loop's buffers and fills them with loop_init's values, the device's copied from the host's. */
static inline void loop_buffers_init(struct loop_buffers *lb, int n)
{
    lb->n = n;
    lb->bytes = sizeof(uint32_t) * n;
    lb->h_a = (uint32_t *)malloc(lb->bytes), lb->h_b = (uint32_t *)malloc(lb->bytes);
    lb->r_a = (uint32_t *)malloc(lb->bytes), lb->r_b = (uint32_t *)malloc(lb->bytes);
    if (!lb->h_a || !lb->h_b || !lb->r_a || !lb->r_b) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    loop_init(lb->h_a, lb->h_b, n);
    loop_init(lb->r_a, lb->r_b, n);
    CHECK(cudaMalloc(&lb->d_a, lb->bytes));
    CHECK(cudaMalloc(&lb->d_b, lb->bytes));
    CHECK(cudaMemcpy(lb->d_a, lb->h_a, lb->bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(lb->d_b, lb->h_b, lb->bytes, cudaMemcpyHostToDevice));
}

/* Copies a loop's buffers back, prints their checksums, checks them against r_a and r_b (the CPU reference's result); frees them. */
static inline void loop_buffers_finish(struct loop_buffers *lb)
{
    CHECK(cudaMemcpy(lb->h_a, lb->d_a, lb->bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(lb->h_b, lb->d_b, lb->bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaGetLastError());
    print_checksum("a", lb->h_a, lb->bytes);
    print_checksum("b", lb->h_b, lb->bytes);
    verify_u32("a", lb->h_a, lb->r_a, lb->n);
    verify_u32("b", lb->h_b, lb->r_b, lb->n);
    CHECK(cudaFree(lb->d_a));
    CHECK(cudaFree(lb->d_b));
    free(lb->h_a), free(lb->h_b), free(lb->r_a), free(lb->r_b);
}

/* The iterations argv[1] asks for (else fallback); exits with the usage unless they are above warmup. */
static inline int iterations_arg(int argc, char **argv, int fallback, int warmup, const char *program)
{
    const int iters = argc > 1 ? atoi(argv[1]) : fallback;
    if (iters <= warmup) {
        fprintf(stderr, "usage: %s [ITERS] (ITERS above %d, default %d)\n", program, warmup, fallback);
        exit(1);
    }
    return iters;
}

/* Orders doubles for qsort. */
static inline int double_order(const void *x, const void *y)
{
    const double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* Prints a loop's "median_us X" (the median of its n steady-state iterations, reordered) and "us_per_iter X" on stderr. */
static inline void print_loop_times(double *times, size_t n, double loop_us)
{
    qsort(times, n, sizeof *times, double_order);
    fprintf(stderr, "median_us %.1f\n", times[n / 2]);
    fprintf(stderr, "us_per_iter %.2f\n", loop_us / (double)n);
}

#endif
