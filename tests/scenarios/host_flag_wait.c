/* SPDX-License-Identifier: MIT */
/*
 * host_flag_wait: the host waits for the GPU through mapped pinned memory
 * (issue 12, case 1). Each iteration launches 5 small kernels on a
 * non-blocking stream, the last of which writes the iteration number into
 * mapped pinned memory (cudaHostAlloc with cudaHostAllocMapped, written
 * through its cudaHostGetDevicePointer); the host spins on that flag with
 * no CUDA call, then calls cudaStreamSynchronize. Work held back until the
 * sync would never let the flag change: after TIMEOUT_S seconds of
 * spinning the program says so and exits 3, so that a test fails instead
 * of hanging. Prints checksums of the buffers and of the flags seen.
 */
#include <stdbool.h>
#include <time.h>

#include "scenario.h"

#define N 4096
#define ITERS 200
#define TIMEOUT_S 30

/* Seconds on the monotonic clock. */
static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Spins, with no CUDA call, until *flag == want; false after TIMEOUT_S seconds. */
static bool wait_for_flag(const int *flag, int want)
{
    double start = now_s();
    for (unsigned long spins = 0;; spins++) {
        if (__atomic_load_n(flag, __ATOMIC_ACQUIRE) == want)
            return true;
        if (spins % 4096 == 0 && now_s() - start > TIMEOUT_S)
            return false;
    }
}

/* 200 iterations of 5 kernels, a host spin on the flag the last one writes, and a sync. */
int main(void)
{
    scenario_begin("host_flag_wait");
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    int *flag_dev = NULL, *flag = mapped_flag(&flag_dev);
    float *x = dev_floats(N), *y = dev_floats(N);
    k_fill_on(x, 1.0f, N, s);
    k_fill_on(y, 0.0f, N, s);
    CK(cudaStreamSynchronize(s));
    unsigned long flag_sum = 0;
    for (int it = 0; it < ITERS; it++) {
        k_axpy_on(0.5f, x, y, N, s);
        k_scale_on(y, 0.5f, N, s);
        k_add_step_on(x, 0.125f, it, N, s);
        k_scale_on(x, 0.75f, N, s);
        k_poke_on(flag_dev, it, s);
        if (!wait_for_flag(flag, it)) {
            printf("error: iteration %d: the flag is still %d after %d s of waiting for %d\n", it,
                   __atomic_load_n(flag, __ATOMIC_ACQUIRE), TIMEOUT_S, it);
            exit(3);
        }
        flag_sum += (unsigned long)__atomic_load_n(flag, __ATOMIC_ACQUIRE);
        CK(cudaStreamSynchronize(s));
    }
    printf("flags seen: %d, sum %lu\n", ITERS, flag_sum);
    show("x", x, N);
    show("y", y, N);
    CK(cudaFreeHost(flag));
    return scenario_end();
}
