/* SPDX-License-Identifier: MIT */
/*
 * kernels/apps/pdl_chain.cu: a loop of kernels launched with programmatic
 * dependent launch (cudaLaunchKernelEx with
 * cudaLaunchAttributeProgrammaticStreamSerialization), as CUTLASS, llama.cpp
 * and Triton launch on Hopper: each kernel does its independent preamble,
 * waits for its primary (cudaGridDependencySynchronize), then reads what the
 * kernel before it wrote, and lets its own dependent start early
 * (cudaTriggerProgrammaticLaunchCompletion).  A missing or wrong edge in a
 * graph made of them shows as a wrong checksum: every stage reads its
 * predecessor's whole output.
 *
 *   pdl_chain [eager|graph [ITERATIONS [STAGES [N]]]]     (defaults eager, 300, 12, 1<<16)
 *
 * Each iteration: STAGES dependent kernels on one created stream, a copy of
 * the last stage's checksum to the host and one stream sync; graph mode
 * captures one iteration's work once (stream capture makes the programmatic
 * edges) and launches that graph instead, the hand-written graph to compare
 * with.  Prints every 50th iteration's checksum and the last; on stderr the
 * median and mean us per iteration ("us_per_iter", after 20 warm-up
 * iterations).  Exits 77 on a GPU older than sm_90 (no PDL).
 */
#include "common.h"

/* One stage: out[i] = f(in[i], in[(i + shift) % n]) after the primary's writes are visible. */
__global__ void stage(const unsigned *in, unsigned *out, unsigned n, unsigned shift, unsigned salt)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned mix = salt * 2654435761u + i; /* the part that does not depend on the primary */
#if __CUDA_ARCH__ >= 900
    cudaGridDependencySynchronize();
#endif
    if (i < n)
        out[i] = (in[i] ^ (in[(i + shift) % n] >> 3)) * 16777619u + mix;
#if __CUDA_ARCH__ >= 900
    cudaTriggerProgrammaticLaunchCompletion();
#endif
}

/* The checksum of a buffer: one block sums it into *sum after the primary is done. */
__global__ void checksum(const unsigned *in, unsigned n, unsigned long long *sum)
{
#if __CUDA_ARCH__ >= 900
    cudaGridDependencySynchronize();
#endif
    __shared__ unsigned long long part[256];
    unsigned long long s = 0;
    for (unsigned i = threadIdx.x; i < n; i += blockDim.x)
        s += (unsigned long long)in[i] * (i + 1);
    part[threadIdx.x] = s;
    __syncthreads();
    for (unsigned w = 128; w > 0; w >>= 1) {
        if (threadIdx.x < w)
            part[threadIdx.x] += part[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        *sum = part[0];
}

/* Orders doubles, for qsort. */
static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v[0..n) (sorts v). */
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n ? v[n / 2] : 0;
}

/* Launches kernel with PDL on stream, its arguments as cudaLaunchKernelEx takes them. */
template <typename... Args>
static void launch_pdl(void (*kernel)(Args...), dim3 grid, dim3 block, cudaStream_t stream, Args... args)
{
    cudaLaunchAttribute attr;
    attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = grid;
    config.blockDim = block;
    config.stream = stream;
    config.attrs = &attr;
    config.numAttrs = 1;
    CHECK(cudaLaunchKernelEx(&config, kernel, args...));
}

/* One iteration's work on stream: the stages, the checksum and its copy to *host_sum. */
static void iteration(unsigned *const buf[2], unsigned n, int stages, unsigned long long *sum,
                      unsigned long long *host_sum, cudaStream_t stream)
{
    const dim3 block(256), grid((n + 255) / 256);
    for (int s = 0; s < stages; s++)
        launch_pdl(stage, grid, block, stream, (const unsigned *)buf[s & 1], buf[(s + 1) & 1], n,
                   (unsigned)(s * 7 + 1), (unsigned)s);
    launch_pdl(checksum, dim3(1), dim3(256), stream, (const unsigned *)buf[stages & 1], n, sum);
    CHECK(cudaMemcpyAsync(host_sum, sum, sizeof *host_sum, cudaMemcpyDeviceToHost, stream));
}

int main(int argc, char **argv)
{
    const bool graph = argc > 1 && strcmp(argv[1], "graph") == 0;
    const int iterations = argc > 2 ? atoi(argv[2]) : 300;
    const int stages = argc > 3 ? atoi(argv[3]) : 12;
    const unsigned n = argc > 4 ? (unsigned)atoi(argv[4]) : 1u << 16;
    const int warmup = iterations > 40 ? 20 : 0;
    int device = 0, major = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess) {
        fprintf(stderr, "pdl_chain: no usable GPU\n");
        return 77;
    }
    if (major < 9) {
        fprintf(stderr, "pdl_chain: compute capability %d: no programmatic dependent launch\n", major);
        return 77;
    }
    unsigned *buf[2];
    unsigned long long *sum, *host_sum;
    CHECK(cudaMalloc(&buf[0], n * sizeof(unsigned)));
    CHECK(cudaMalloc(&buf[1], n * sizeof(unsigned)));
    CHECK(cudaMalloc(&sum, sizeof *sum));
    CHECK(cudaMallocHost(&host_sum, sizeof *host_sum));
    CHECK(cudaMemset(buf[0], 0x5a, n * sizeof(unsigned)));
    cudaStream_t stream;
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cudaGraphExec_t exec = NULL;
    if (graph) {
        cudaGraph_t g;
        CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
        iteration(buf, n, stages, sum, host_sum, stream);
        CHECK(cudaStreamEndCapture(stream, &g));
        CHECK(cudaGraphInstantiate(&exec, g, 0));
        CHECK(cudaGraphDestroy(g));
    }
    double *us = (double *)malloc(sizeof(double) * (size_t)iterations), loop_start = 0;
    for (int it = 0; it < iterations; it++) {
        if (it == warmup)
            loop_start = now_us();
        double start = now_us();
        if (graph)
            CHECK(cudaGraphLaunch(exec, stream));
        else
            iteration(buf, n, stages, sum, host_sum, stream);
        CHECK(cudaStreamSynchronize(stream));
        us[it] = now_us() - start;
        if (it % 50 == 0 || it == iterations - 1)
            printf("iteration %d checksum %016llx\n", it, *host_sum);
    }
    double loop_us = now_us() - loop_start;
    fprintf(stderr, "pdl_chain: %s: %d iterations of %d PDL stages\n", graph ? "graph" : "eager", iterations, stages);
    fprintf(stderr, "median_us %.1f\n", median(us, iterations));
    fprintf(stderr, "us_per_iter %.2f\n", loop_us / (iterations - warmup));
    if (exec)
        CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaFree(buf[0]));
    CHECK(cudaFree(buf[1]));
    CHECK(cudaFree(sum));
    CHECK(cudaFreeHost(host_sum));
    free(us);
    return 0;
}
