/* SPDX-License-Identifier: MIT */
/*
 * lt_gemm: a loop of cuBLASLt GEMMs (bf16 in and out, fp32 accumulation)
 * interleaved with the program's own kernels, one sync an iteration: the
 * shape of an MLP's inference written directly on cuBLASLt (a member of the
 * zoo, tests/gpu/zoo.sh).  On Hopper cuBLASLt picks, for these sizes,
 * kernels it launches with programmatic dependent launch, through the driver
 * API.  Each iteration, column-major matrices:
 *
 *     H = X W1            cublasLtMatmul, m 1024, n 2048, k 1024
 *     H = gelu(H)         k_gelu (own kernel)
 *     Y = H W2            cublasLtMatmul, m 1024, n 1024, k 2048
 *     X = X/2 + tanh(Y)/2 k_update (own kernel)
 *     hist[it] = X[j(it)] k_probe<<<1, 1>>> (own kernel: it and j by value)
 *
 * then a sync.  Two phases run the same work from the same X:
 *
 *     legacy   everything on the legacy default stream; cudaStreamSynchronize(0)
 *     mixed    the GEMMs, k_gelu and k_update on a created blocking stream
 *              (cudaStreamCreate), k_probe on the legacy stream (it waits for
 *              that stream's work, implicitly); cudaDeviceSynchronize()
 *
 *     lt_gemm.gpu [legacy|mixed|both]        (default both)
 *
 * The algorithm of each GEMM is chosen once (cublasLtMatmulAlgoGetHeuristic,
 * 32 MiB of workspace); cuBLASLt's results are bit-wise the same on every
 * run of one GPU, so the two phases must print the same checksums ("verify
 * phases ok"), and the first GEMM is checked against the host on 256
 * entries.  stdout: probes (float bits) every 10 iterations and the
 * checksums of X and H after each phase: byte-comparable with and without
 * the shim.  stderr: the median iteration time (median_us).  Exit status: 0;
 * 1 a failed call or a wrong result; 77 no GPU.  Built twice by make
 * gpu-programs (lt_gemm.gpu, lt_gemm.static), linked with -lcublasLt.
 */
#define LT_PROGRAM "lt_gemm"
#include "lt_common.h"

#include <algorithm>
#include <cuda_bf16.h>
#include <math.h>
#include <string.h>
#include <time.h>
#include <vector>

#define LT_M 1024
#define LT_K1 1024
#define LT_N1 2048
#define LT_N2 1024 /* Y is LT_M x LT_N2 = LT_M x LT_K1: X's shape */
#define LT_ITERS 50

__global__ void k_gelu(__nv_bfloat16 *h, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float v = __bfloat162float(h[i]);
        h[i] = __float2bfloat16(0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v))));
    }
}

__global__ void k_update(__nv_bfloat16 *x, const __nv_bfloat16 *y, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = __float2bfloat16(0.5f * __bfloat162float(x[i]) + 0.5f * tanhf(__bfloat162float(y[i])));
}

__global__ void k_probe(float *hist, int it, const __nv_bfloat16 *x, size_t j)
{
    hist[it] = __bfloat162float(x[j]);
}

static std::vector<__nv_bfloat16> init_matrix(size_t n, uint32_t salt, float scale)
{
    std::vector<__nv_bfloat16> v(n);
    for (size_t i = 0; i < n; i++)
        v[i] = __float2bfloat16(init_value(i, salt, scale));
    return v;
}


int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "both";
    const bool run_legacy = strcmp(which, "legacy") == 0 || strcmp(which, "both") == 0;
    const bool run_mixed = strcmp(which, "mixed") == 0 || strcmp(which, "both") == 0;
    if (!run_legacy && !run_mixed) {
        fprintf(stderr, "usage: %s [legacy|mixed|both]\n", argv[0]);
        return 1;
    }
    require_gpu();
    const size_t nx = (size_t)LT_M * LT_K1, nh = (size_t)LT_M * LT_N1, nw1 = (size_t)LT_K1 * LT_N1, nw2 = (size_t)LT_N1 * LT_N2;
    const std::vector<__nv_bfloat16> x0 = init_matrix(nx, 0x9e3779b9u, 1.0f);
    const std::vector<__nv_bfloat16> w1 = init_matrix(nw1, 0x85ebca6bu, 0.125f);
    const std::vector<__nv_bfloat16> w2 = init_matrix(nw2, 0xc2b2ae35u, 0.125f);
    __nv_bfloat16 *d_x, *d_h, *d_y, *d_w1, *d_w2;
    float *d_hist;
    void *workspace;
    CHECK(cudaMalloc(&d_x, nx * sizeof(__nv_bfloat16)));
    CHECK(cudaMalloc(&d_h, nh * sizeof(__nv_bfloat16)));
    CHECK(cudaMalloc(&d_y, nx * sizeof(__nv_bfloat16)));
    CHECK(cudaMalloc(&d_w1, nw1 * sizeof(__nv_bfloat16)));
    CHECK(cudaMalloc(&d_w2, nw2 * sizeof(__nv_bfloat16)));
    CHECK(cudaMalloc(&d_hist, LT_ITERS * sizeof(float)));
    CHECK(cudaMalloc(&workspace, LT_WORKSPACE_BYTES));
    CHECK(cudaMemcpy(d_w1, w1.data(), nw1 * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_w2, w2.data(), nw2 * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice));

    cublasLtHandle_t lt;
    LT(cublasLtCreate, (&lt));
    cublasLtMatmulPreference_t pref = lt_preference();
    gemm g1, g2;
    gemm_init(&g1, "H = X W1", lt, pref, LT_M, LT_N1, LT_K1, false, false);
    gemm_init(&g2, "Y = H W2", lt, pref, LT_M, LT_N2, LT_N1, false, false);

    /* The first GEMM against the host, on 256 entries of H = X0 W1. */
    CHECK(cudaMemcpy(d_x, x0.data(), nx * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice));
    gemm_run(&g1, lt, d_x, d_w1, d_h, workspace, 0);
    CHECK(cudaStreamSynchronize(0));
    std::vector<__nv_bfloat16> h(nh);
    CHECK(cudaMemcpy(h.data(), d_h, nh * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost));
    double worst = 0.0;
    for (int s = 0; s < 256; s++) {
        const int row = (s * 397) % LT_M, col = (s * 911) % LT_N1;
        double ref = 0.0, mag = 0.0;
        for (int k = 0; k < LT_K1; k++) {
            const double t = (double)__bfloat162float(x0[(size_t)k * LT_M + row]) *
                             (double)__bfloat162float(w1[(size_t)col * LT_K1 + k]);
            ref += t;
            mag += fabs(t);
        }
        const double got = __bfloat162float(h[(size_t)col * LT_M + row]);
        worst = std::max(worst, fabs(got - ref) / (1e-2 * fabs(ref) + 1e-4 * mag + 1e-6));
    }
    if (worst > 1.0) {
        printf("verify gemm FAILED\n");
        fprintf(stderr, "lt_gemm: the first GEMM is off the host's by %.3g of the tolerance\n", worst);
        return 1;
    }
    printf("verify gemm ok\n");

    cudaStream_t created;
    CHECK(cudaStreamCreate(&created));
    const unsigned threads = 256;
    const unsigned blocks_x = (unsigned)((nx + threads - 1) / threads), blocks_h = (unsigned)((nh + threads - 1) / threads);
    std::vector<double> times;
    std::vector<__nv_bfloat16> x_end[2];
    for (int phase = 0; phase < 2; phase++) {
        if ((phase == 0 && !run_legacy) || (phase == 1 && !run_mixed))
            continue;
        const char *name = phase == 0 ? "legacy" : "mixed";
        cudaStream_t s = phase == 0 ? (cudaStream_t)0 : created;
        CHECK(cudaMemcpy(d_x, x0.data(), nx * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice));
        CHECK(cudaMemset(d_hist, 0, LT_ITERS * sizeof(float)));
        for (int it = 0; it < LT_ITERS; it++) {
            const double began = now_us();
            gemm_run(&g1, lt, d_x, d_w1, d_h, workspace, s);
            k_gelu<<<blocks_h, threads, 0, s>>>(d_h, nh);
            CHECK_LAUNCH();
            gemm_run(&g2, lt, d_h, d_w2, d_y, workspace, s);
            k_update<<<blocks_x, threads, 0, s>>>(d_x, d_y, nx);
            CHECK_LAUNCH();
            k_probe<<<1, 1>>>(d_hist, it, d_x, ((size_t)it * 104729u) % nx); /* the legacy stream, in both */
            CHECK_LAUNCH();
            if (phase == 0)
                CHECK(cudaStreamSynchronize(0));
            else
                CHECK(cudaDeviceSynchronize());
            times.push_back(now_us() - began);
        }
        std::vector<float> hist(LT_ITERS);
        x_end[phase].resize(nx);
        CHECK(cudaMemcpy(hist.data(), d_hist, LT_ITERS * sizeof(float), cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(x_end[phase].data(), d_x, nx * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(h.data(), d_h, nh * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost));
        CHECK(cudaGetLastError());
        for (int it = 9; it < LT_ITERS; it += 10)
            printf("%s probe %d 0x%08x %.9g\n", name, it, float_bits(hist[it]), hist[it]);
        char label[32];
        snprintf(label, sizeof label, "%s_x", name);
        print_checksum(label, x_end[phase].data(), nx * sizeof(__nv_bfloat16));
        snprintf(label, sizeof label, "%s_h", name);
        print_checksum(label, h.data(), nh * sizeof(__nv_bfloat16));
        bool finite = true;
        for (size_t i = 0; i < nx; i++)
            finite = finite && isfinite(__bfloat162float(x_end[phase][i]));
        if (!finite) {
            printf("verify %s FAILED\n", name);
            fprintf(stderr, "lt_gemm: %s: X is not finite at the end\n", name);
            return 1;
        }
    }
    if (run_legacy && run_mixed) {
        if (memcmp(x_end[0].data(), x_end[1].data(), nx * sizeof(__nv_bfloat16)) != 0) {
            printf("verify phases FAILED\n");
            fprintf(stderr, "lt_gemm: the legacy and the mixed phase end with different X\n");
            return 1;
        }
        printf("verify phases ok\n");
    }
    std::sort(times.begin(), times.end());
    fprintf(stderr, "median_us %.1f\n", times[times.size() / 2]);

    gemm_fini(&g1);
    gemm_fini(&g2);
    LT(cublasLtMatmulPreferenceDestroy, (pref));
    LT(cublasLtDestroy, (lt));
    CHECK(cudaStreamDestroy(created));
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_h));
    CHECK(cudaFree(d_y));
    CHECK(cudaFree(d_w1));
    CHECK(cudaFree(d_w2));
    CHECK(cudaFree(d_hist));
    CHECK(cudaFree(workspace));
    return 0;
}
