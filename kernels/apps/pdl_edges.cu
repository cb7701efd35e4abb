/* SPDX-License-Identifier: MIT */
/*
 * kernels/apps/pdl_edges.cu: programmatic dependent launch where an edge
 * too weak shows in the results (tests/gpu/pdl_edges.sh).  Every kernel
 * lets its dependents start as soon as it has read its input
 * (cudaTriggerProgrammaticLaunchCompletion), then spins for a few
 * microseconds before it writes: a kernel that starts before its primary
 * has completed and reads without waiting reads what was there before.  Those launched with
 * cudaLaunchAttributeProgrammaticStreamSerialization wait for their
 * primary (cudaGridDependencySynchronize) before they read; the others
 * are ordinary launches and read at once, so a programmatic edge where a
 * full one belongs (or none where one belongs) changes a checksum.
 *
 *   pdl_edges [waited|unwaited [ITERATIONS]]      (defaults waited, 200)
 *
 * Each iteration, on one created stream: six stages a -> b -> c -> d -> a
 * -> e -> sum (the second, third and fifth launched as programmatic
 * dependent launches, the others ordinary ones; the last reduces e into
 * one number), a copy of the sum to pinned host memory and a stream sync.
 * Every iteration's sum is compared with a CPU reference of the whole
 * loop (one wrong iteration makes the later ones differ too); every 20th
 * and the last are printed, and the count of iterations whose sum differs.
 * `unwaited` is the negative control: the programmatic dependent launches
 * do not wait for their primary, so on a GPU that starts them early their
 * sums differ (exit 0 all the same); `waited` exits 1 if any differs.
 * Exits 77 without a GPU or on one older than sm_90 (no PDL).
 */
#include "common.h"

#define N (1 << 16)
#define THREADS 256
#define STAGES 5          /* the stage kernels of an iteration; then the checksum */
#define SPIN_CYCLES 20000 /* about 10 us at 2 GHz: the window in which a too-early reader sees stale data */

/* Which launches of an iteration are programmatic dependent launches: stages 1, 2 and 4 (from 0). */
static const bool programmatic_stage[STAGES] = {false, true, true, false, true};

/* out[i] of a stage from in (n elements) and its salt: the arithmetic both the kernel and the reference make. */
__host__ __device__ static inline uint32_t stage_value(const uint32_t *in, uint32_t i, uint32_t salt)
{
    uint32_t a = in[i], b = in[(i + salt) % N];
    return (a ^ (b >> 3)) * 16777619u + salt * 2654435761u + i;
}

/* Lets the dependents start, then spins about SPIN_CYCLES before the writes. */
__device__ static inline void trigger_then_spin(void)
{
#if __CUDA_ARCH__ >= 900
    cudaTriggerProgrammaticLaunchCompletion();
#endif
    long long start = clock64();
    while (clock64() - start < SPIN_CYCLES)
        ;
}

/* One stage: out[i] = stage_value(in, i, salt); waits for its primary first if wait (a programmatic launch's). */
__global__ void stage(const uint32_t *in, uint32_t *out, uint32_t salt, int wait)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
#if __CUDA_ARCH__ >= 900
    if (wait)
        cudaGridDependencySynchronize();
#endif
    uint32_t v = i < N ? stage_value(in, i, salt) : 0;
    trigger_then_spin();
    if (i < N)
        out[i] = v;
}

/* *sum = the sum of in[i] * (i + 1), one block of THREADS; an ordinary launch: reads at once. */
__global__ void checksum(const uint32_t *in, unsigned long long *sum)
{
    __shared__ unsigned long long part[THREADS];
    unsigned long long s = 0;
    for (unsigned i = threadIdx.x; i < N; i += blockDim.x)
        s += (unsigned long long)in[i] * (i + 1);
    part[threadIdx.x] = s;
    __syncthreads();
    for (unsigned w = THREADS / 2; w > 0; w >>= 1) {
        if (threadIdx.x < w)
            part[threadIdx.x] += part[threadIdx.x + w];
        __syncthreads();
    }
    trigger_then_spin();
    if (threadIdx.x == 0)
        *sum = part[0];
}

/* The salt of stage s. */
static uint32_t salt_of(int s)
{
    return (uint32_t)(s * 7 + 1);
}

/* Launches stage s on stream from in to out, as a programmatic dependent launch if its stage says so. */
static void launch_stage(int s, const uint32_t *in, uint32_t *out, bool waited, cudaStream_t stream)
{
    cudaLaunchAttribute attr;
    memset(&attr, 0, sizeof attr);
    attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(N / THREADS);
    config.blockDim = dim3(THREADS);
    config.stream = stream;
    config.attrs = programmatic_stage[s] ? &attr : NULL;
    config.numAttrs = programmatic_stage[s] ? 1 : 0;
    CHECK(cudaLaunchKernelEx(&config, stage, in, out, salt_of(s), programmatic_stage[s] && waited ? 1 : 0));
}

/* The buffers of the chain a -> b -> c -> d -> a -> e, for stage s: its input and its output. */
static void stage_buffers(uint32_t *const buf[5], int s, const uint32_t **in, uint32_t **out)
{
    static const int from[STAGES] = {0, 1, 2, 3, 0}, to[STAGES] = {1, 2, 3, 0, 4};
    *in = buf[from[s]];
    *out = buf[to[s]];
}

/* One iteration on the CPU: the stages over host copies of the buffers; returns the checksum. */
static unsigned long long reference_iteration(uint32_t *const host[5])
{
    for (int s = 0; s < STAGES; s++) {
        const uint32_t *in;
        uint32_t *out;
        stage_buffers(host, s, &in, &out);
        for (uint32_t i = 0; i < N; i++)
            out[i] = stage_value(in, i, salt_of(s));
    }
    unsigned long long sum = 0;
    for (uint32_t i = 0; i < N; i++)
        sum += (unsigned long long)host[4][i] * (i + 1);
    return sum;
}

int main(int argc, char **argv)
{
    const bool waited = !(argc > 1 && strcmp(argv[1], "unwaited") == 0);
    const int iterations = argc > 2 ? atoi(argv[2]) : 200;
    require_gpu();
    int major = 0;
    CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
    if (major < 9) {
        fprintf(stderr, "pdl_edges: compute capability %d: no programmatic dependent launch\n", major);
        return 77;
    }
    int programmatic = 0;
    for (int s = 0; s < STAGES; s++)
        programmatic += programmatic_stage[s];
    printf("per iteration: %d calls, %d launches (%d programmatic dependent launches), 1 copy, 1 stream sync\n",
           STAGES + 2, STAGES + 1, programmatic);
    uint32_t *buf[5], *host[5];
    for (int b = 0; b < 5; b++) {
        CHECK(cudaMalloc(&buf[b], N * sizeof(uint32_t)));
        host[b] = (uint32_t *)malloc(N * sizeof(uint32_t));
        for (uint32_t i = 0; i < N; i++)
            host[b][i] = (uint32_t)(i * 40503u + (uint32_t)b * 977u + 17u);
        CHECK(cudaMemcpy(buf[b], host[b], N * sizeof(uint32_t), cudaMemcpyHostToDevice));
    }
    unsigned long long *sum, *host_sum;
    CHECK(cudaMalloc(&sum, sizeof *sum));
    CHECK(cudaMallocHost(&host_sum, sizeof *host_sum));
    cudaStream_t stream;
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    int differ = 0;
    for (int it = 0; it < iterations; it++) {
        for (int s = 0; s < STAGES; s++) {
            const uint32_t *in;
            uint32_t *out;
            stage_buffers(buf, s, &in, &out);
            launch_stage(s, in, out, waited, stream);
        }
        checksum<<<1, THREADS, 0, stream>>>(buf[4], sum);
        CHECK_LAUNCH();
        CHECK(cudaMemcpyAsync(host_sum, sum, sizeof *host_sum, cudaMemcpyDeviceToHost, stream));
        CHECK(cudaStreamSynchronize(stream));
        unsigned long long want = reference_iteration(host);
        if (*host_sum != want && differ++ == 0)
            fprintf(stderr, "pdl_edges: iteration %d: sum %016llx, the reference %016llx\n", it, *host_sum, want);
        if (it % 20 == 0 || it == iterations - 1)
            printf("iteration %d sum %016llx\n", it, *host_sum);
    }
    printf("%s: %d of %d iterations' sums differ from the reference\n", waited ? "waited" : "unwaited", differ,
           iterations);
    CHECK(cudaStreamDestroy(stream));
    for (int b = 0; b < 5; b++) {
        CHECK(cudaFree(buf[b]));
        free(host[b]);
    }
    CHECK(cudaFree(sum));
    CHECK(cudaFreeHost(host_sum));
    return waited && differ ? 1 : 0;
}
