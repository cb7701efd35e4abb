/* SPDX-License-Identifier: MIT */
/*
 * bench_loop: the launch-bound loop of issue 4's speed target.  Each
 * iteration launches KERNELS small kernels (axpy over N floats, alternating
 * between two buffers) on one stream and synchronises; ITERS iterations.
 *
 *     bench_loop.gpu eager|api|graph [KERNELS [ITERS [N]]]
 *
 * eager: plain <<<>>> launches (run it with and without the shim).
 * api:   the same launches through cudaLaunchKernel.
 * graph: the same iteration captured once by hand into a CUDA graph and
 *        launched ITERS times: what a graph written by hand reaches.
 * Prints the median and quartiles of the per-iteration wall time (host
 * clock around launch+sync) and a checksum of the result, which must be the
 * same in both modes.
 */
#include <algorithm>
#include <vector>

#include <time.h>

#include "common.h"

/* Seconds on the monotonic clock. */
static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

__global__ void k_axpy(float a, const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

/* One iteration's launches, with <<<>>> or, if api, with cudaLaunchKernel (no call configuration pushed and popped). */
static void iteration(cudaStream_t s, int kernels, float *x, float *y, int n, bool api)
{
    for (int k = 0; k < kernels; k++) {
        float a = (k % 3 == 0) ? 0.5f : -0.25f;
        float *in = (k & 1) ? x : y, *out = (k & 1) ? y : x;
        if (api) {
            void *args[] = {&a, &in, &out, &n};
            cudaLaunchKernel((const void *)k_axpy, dim3((n + 255) / 256), dim3(256), args, 0, s);
        } else {
            k_axpy<<<(n + 255) / 256, 256, 0, s>>>(a, in, out, n);
        }
    }
}

int main(int argc, char **argv)
{
    require_gpu();
    bool graph = argc > 1 && strcmp(argv[1], "graph") == 0;
    bool api = argc > 1 && strcmp(argv[1], "api") == 0;
    int kernels = argc > 2 ? atoi(argv[2]) : 100;
    int iters = argc > 3 ? atoi(argv[3]) : 1000;
    int n = argc > 4 ? atoi(argv[4]) : 4096;
    std::vector<float> h(n);
    for (int i = 0; i < n; i++)
        h[i] = (float)(i % 17) * 0.125f;
    float *x, *y;
    CHECK(cudaMalloc(&x, n * sizeof(float)));
    CHECK(cudaMalloc(&y, n * sizeof(float)));
    CHECK(cudaMemcpy(x, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(y, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    cudaGraphExec_t exec = nullptr;
    if (graph) {
        cudaGraph_t g;
        CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
        iteration(s, kernels, x, y, n, false);
        CHECK(cudaStreamEndCapture(s, &g));
        CHECK(cudaGraphInstantiate(&exec, g, 0));
        CHECK(cudaGraphDestroy(g));
    }
    std::vector<double> us;
    us.reserve(iters);
    for (int it = 0; it < iters; it++) {
        double t0 = now_seconds();
        if (graph)
            CHECK(cudaGraphLaunch(exec, s));
        else
            iteration(s, kernels, x, y, n, api);
        CHECK(cudaStreamSynchronize(s));
        us.push_back((now_seconds() - t0) * 1e6);
    }
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost));
    std::sort(us.begin(), us.end());
    printf("mode %s kernels %d iters %d\n", graph ? "graph" : api ? "api" : "eager", kernels, iters);
    printf("median_us %.2f q1_us %.2f q3_us %.2f\n", us[us.size() / 2], us[us.size() / 4], us[us.size() * 3 / 4]);
    print_checksum("y", h.data(), n * sizeof(float));
    if (exec)
        CHECK(cudaGraphExecDestroy(exec));
    return 0;
}
