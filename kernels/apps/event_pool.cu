/* SPDX-License-Identifier: MIT */
/*
 * event_pool: the same work every iteration, ordered across two streams
 * through a pool of events as JAX's runtime orders its buffers: each
 * iteration records the next event of a pool of 8 (a different one each
 * time, the same one every 8th iteration) on the work stream, makes the
 * second stream wait for it, and syncs the second stream.  Iteration it,
 * on two cudaStreamCreateWithFlags (non-blocking) streams:
 *
 *     a = mix(a, salt(it, 0))                 k_mix on work
 *     a = xorshift_add(a, b)                  k_xorshift_add on work
 *     a = mix(a, salt(it, 1))                 k_mix on work
 *     cudaEventRecord(pool[it % 8], work)     (cudaEventDisableTiming events)
 *     cudaStreamWaitEvent(consumer, pool[it % 8])
 *     b = neighbour(b, a)                     k_neighbour on consumer
 *     b = mix(b, salt(it, 2))                 k_mix on consumer
 *     cudaStreamSynchronize(consumer)
 *
 * 8 calls an iteration, 5 of them launches, one host sync.
 *
 *     event_pool.gpu [ITERS]      (default 10000)
 *
 * stdout: checksums of a and b and whether they match the CPU reference
 * (the same integer arithmetic), "launches N", "records N": the same on
 * every run, with and without the shim.  stderr: the loop after 50 warm-up
 * iterations: "median_us X" (median iteration) and "us_per_iter X".  Exit
 * status: 0; 1 a failed call or a wrong result; 77 no GPU.  Built by make
 * gpu-programs (event_pool.gpu, event_pool.static); a member of
 * tools/dev/bench-zoo.
 */
#include "common.h"

#include <vector>

#define EP_N 1024
#define EP_POOL 8
#define EP_WARMUP 50

/* The CPU reference of iterations [0, iters). */
static void reference(uint32_t *a, uint32_t *b, int n, int iters)
{
    for (int it = 0; it < iters; it++) {
        for (int i = 0; i < n; i++)
            a[i] = op_mix(a[i], loop_salt(it, 0), (uint32_t)i);
        for (int i = 0; i < n; i++)
            a[i] = op_xorshift_add(a[i], b[i]);
        for (int i = 0; i < n; i++)
            a[i] = op_mix(a[i], loop_salt(it, 1), (uint32_t)i);
        for (int i = 0; i < n; i++)
            b[i] = op_neighbour(b[i], a[(i + 1) % n]);
        for (int i = 0; i < n; i++)
            b[i] = op_mix(b[i], loop_salt(it, 2), (uint32_t)i);
    }
}

int main(int argc, char **argv)
{
    const int iters = iterations_arg(argc, argv, 10000, EP_WARMUP, "event_pool.gpu");
    require_gpu();
    loop_buffers lb;
    loop_buffers_init(&lb, EP_N);
    const int n = EP_N, blocks = (n + LOOP_THREADS - 1) / LOOP_THREADS;
    uint32_t *d_a = lb.d_a, *d_b = lb.d_b;
    cudaStream_t work, consumer;
    CHECK(cudaStreamCreateWithFlags(&work, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&consumer, cudaStreamNonBlocking));
    cudaEvent_t pool[EP_POOL];
    for (cudaEvent_t &e : pool)
        CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));

    long launches = 0, records = 0;
    std::vector<double> times;
    double loop_began = 0.0;
    for (int it = 0; it < iters; it++) {
        if (it == EP_WARMUP)
            loop_began = now_us();
        const double began = now_us();
        k_mix<<<blocks, LOOP_THREADS, 0, work>>>(d_a, loop_salt(it, 0), n);
        CHECK_LAUNCH();
        k_xorshift_add<<<blocks, LOOP_THREADS, 0, work>>>(d_a, d_b, n);
        CHECK_LAUNCH();
        k_mix<<<blocks, LOOP_THREADS, 0, work>>>(d_a, loop_salt(it, 1), n);
        CHECK_LAUNCH();
        cudaEvent_t ready = pool[it % EP_POOL];
        CHECK(cudaEventRecord(ready, work));
        CHECK(cudaStreamWaitEvent(consumer, ready, 0));
        k_neighbour<<<blocks, LOOP_THREADS, 0, consumer>>>(d_b, d_a, n);
        CHECK_LAUNCH();
        k_mix<<<blocks, LOOP_THREADS, 0, consumer>>>(d_b, loop_salt(it, 2), n);
        CHECK_LAUNCH();
        CHECK(cudaStreamSynchronize(consumer));
        launches += 5, records++;
        if (it >= EP_WARMUP)
            times.push_back(now_us() - began);
    }
    const double loop_us = now_us() - loop_began;
    CHECK(cudaStreamSynchronize(work));
    reference(lb.r_a, lb.r_b, n, iters);
    loop_buffers_finish(&lb);
    printf("launches %ld\n", launches);
    printf("records %ld\n", records);
    print_loop_times(times.data(), times.size(), loop_us);

    for (cudaEvent_t e : pool)
        CHECK(cudaEventDestroy(e));
    CHECK(cudaStreamDestroy(work));
    CHECK(cudaStreamDestroy(consumer));
    return 0;
}
