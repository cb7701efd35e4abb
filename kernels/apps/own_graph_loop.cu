/* SPDX-License-Identifier: MIT */
/*
 * own_graph_loop: a program that runs its own CUDA graph, as programs
 * already tuned with graphs do: a loop of small kernels captured once
 * (cudaStreamBeginCapture on its stream) and launched every iteration with
 * cudaGraphLaunch, a few eager kernels around it (their salts change every
 * iteration), a sync an iteration.  On one cudaStreamCreateWithFlags
 * (non-blocking) stream:
 *
 *     captured once: OG_GRAPH_KERNELS (12) of mix, xorshift_add, neighbour in turn (launch_loop's kernels, fixed salts)
 *     iteration it:
 *         a = mix(a, salt(it + 1, 100))       k_mix, eager
 *         cudaGraphLaunch(graph)              the 12 kernels
 *         b = neighbour(b, a)                 k_neighbour, eager
 *         a = mix(a, salt(it + 1, 101))       k_mix, eager
 *         cudaStreamSynchronize
 *
 * 5 calls an iteration (3 launches, a graph launch, a sync).
 *
 *     own_graph_loop.gpu [ITERS]      (default 5000)
 *
 * stdout: checksums of a and b and whether they match the CPU reference,
 * "launches N" and "graph_launches N": the same on every run, with and
 * without the shim.  stderr: the loop after 50 warm-up iterations:
 * "median_us X" and "us_per_iter X".  Exit status: 0; 1 a failed call or a
 * wrong result; 77 no GPU.  Built by make gpu-programs (own_graph_loop.gpu,
 * own_graph_loop.static); a member of tools/dev/bench-zoo.
 */
#include "common.h"

#include <vector>

#define OG_N 1024
#define OG_GRAPH_KERNELS 12
#define OG_WARMUP 50

/* Launches the graph's kernel j (launch_loop's kernel kinds, salt fixed) on s. */
static void launch_graph_kernel(int j, uint32_t *a, uint32_t *b, int n, int blocks, cudaStream_t s)
{
    switch (loop_kind(j)) {
    case 0: k_mix<<<blocks, LOOP_THREADS, 0, s>>>(a, loop_salt(0, j), n); break;
    case 1: k_xorshift_add<<<blocks, LOOP_THREADS, 0, s>>>(a, b, n); break;
    default: k_neighbour<<<blocks, LOOP_THREADS, 0, s>>>(b, a, n); break;
    }
    CHECK_LAUNCH();
}

/* The CPU reference of iterations [0, iters). */
static void reference(uint32_t *a, uint32_t *b, int n, int iters)
{
    for (int it = 0; it < iters; it++) {
        for (int i = 0; i < n; i++)
            a[i] = op_mix(a[i], loop_salt(it + 1, 100), (uint32_t)i);
        for (int j = 0; j < OG_GRAPH_KERNELS; j++)
            switch (loop_kind(j)) {
            case 0:
                for (int i = 0; i < n; i++)
                    a[i] = op_mix(a[i], loop_salt(0, j), (uint32_t)i);
                break;
            case 1:
                for (int i = 0; i < n; i++)
                    a[i] = op_xorshift_add(a[i], b[i]);
                break;
            default:
                for (int i = 0; i < n; i++)
                    b[i] = op_neighbour(b[i], a[(i + 1) % n]);
                break;
            }
        for (int i = 0; i < n; i++)
            b[i] = op_neighbour(b[i], a[(i + 1) % n]);
        for (int i = 0; i < n; i++)
            a[i] = op_mix(a[i], loop_salt(it + 1, 101), (uint32_t)i);
    }
}

int main(int argc, char **argv)
{
    const int iters = iterations_arg(argc, argv, 5000, OG_WARMUP, "own_graph_loop.gpu");
    require_gpu();
    loop_buffers lb;
    loop_buffers_init(&lb, OG_N);
    const int n = OG_N, blocks = (n + LOOP_THREADS - 1) / LOOP_THREADS;
    uint32_t *d_a = lb.d_a, *d_b = lb.d_b;
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    for (int j = 0; j < OG_GRAPH_KERNELS; j++)
        launch_graph_kernel(j, d_a, d_b, n, blocks, s);
    CHECK(cudaStreamEndCapture(s, &graph));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaGraphDestroy(graph));

    long launches = 0, graph_launches = 0;
    std::vector<double> times;
    double loop_began = 0.0;
    for (int it = 0; it < iters; it++) {
        if (it == OG_WARMUP)
            loop_began = now_us();
        const double began = now_us();
        k_mix<<<blocks, LOOP_THREADS, 0, s>>>(d_a, loop_salt(it + 1, 100), n);
        CHECK_LAUNCH();
        CHECK(cudaGraphLaunch(exec, s));
        k_neighbour<<<blocks, LOOP_THREADS, 0, s>>>(d_b, d_a, n);
        CHECK_LAUNCH();
        k_mix<<<blocks, LOOP_THREADS, 0, s>>>(d_a, loop_salt(it + 1, 101), n);
        CHECK_LAUNCH();
        CHECK(cudaStreamSynchronize(s));
        launches += 3, graph_launches++;
        if (it >= OG_WARMUP)
            times.push_back(now_us() - began);
    }
    const double loop_us = now_us() - loop_began;
    reference(lb.r_a, lb.r_b, n, iters);
    loop_buffers_finish(&lb);
    printf("launches %ld\n", launches);
    printf("graph_launches %ld\n", graph_launches);
    print_loop_times(times.data(), times.size(), loop_us);

    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaStreamDestroy(s));
    return 0;
}
