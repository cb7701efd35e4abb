/* SPDX-License-Identifier: MIT */
/*
 * bench_suite: the workloads of issue 5's benchmark suite in one program.
 *
 *     bench_suite.gpu WORKLOAD eager|graph [ITERS]
 *
 * eager: the program's own stream calls, one by one (run it with and
 *        without the shim).
 * graph: the same iteration captured once by hand (stream capture on a
 *        non-blocking stream) and replayed: what a hand-written graph reaches.
 *
 * Workloads (each iteration ends in a host sync unless said):
 *   loop20_empty loop100_empty loop400_empty   K empty kernels
 *   loop20_small loop100_small loop400_small   K small integer "axpy" kernels over 4096 words
 *   fork3         fork onto three streams with events, join
 *   jacobi        2 sweeps + a difference per iteration; every 10 iterations a
 *                 reduction copied to pinned host memory + sync (graph: one
 *                 graph per 10 iterations); time reported per iteration
 *   pingpong      20 kernels whose pointer arguments swap every iteration
 *                 (graph: two hand-written graphs, alternating)
 *   syncfree      ITERS (10000) iterations of 4 kernels, one sync at the end:
 *                 total time / iterations
 *   malloc_each   cudaMalloc + cudaFree inside each iteration (graph: "na")
 *   long_kernels  2 kernels of a few hundred microseconds each
 *   handover      two host threads on one stream: the program's thread issues
 *                 20 kernels, hands over (a condition variable, no CUDA call),
 *                 a second thread issues 20 more and syncs the stream (graph:
 *                 one hand-written graph per thread, each launching its own)
 *   hostgap       20 one-block kernels of a few microseconds, each followed by
 *                 a few microseconds of host work (BENCH_SUITE_GAP_US, 4), as a
 *                 framework's dispatcher between launches (graph: the host work,
 *                 then the iteration's graph); also prints gpu_busy_us (the
 *                 kernels' own time per iteration, from %globaltimer) and
 *                 gpu_span_us (first kernel's start to last kernel's end)
 *
 * Prints "median_us X" (median host wall time per iteration after the
 * warm-up iterations) and "checksum HEX" (FNV-1a of the result buffers),
 * the same in both modes: both run the same kernels on the same data in the
 * same order, and all arithmetic is integer or exactly repeated.
 * Exit status: 0, 1 on a CUDA error or bad arguments, 77 without a GPU.
 */
#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <string.h>
#include <time.h>

#include "common.h"

#define N_SMALL 4096
#define THREADS 256

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int blocks(int n)
{
    return (n + THREADS - 1) / THREADS;
}

/* ---- kernels ---- */

__global__ void k_empty(void) {}

/* y[i] = a * x[i] + y[i], wrapping uint32 */
__global__ void k_iaxpy(uint32_t a, const uint32_t *x, uint32_t *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

/* out[i] = out[i] * 3 + in[i] ^ salt */
__global__ void k_pp(uint32_t *out, const uint32_t *in, uint32_t salt, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = out[i] * 3u + (in[i] ^ salt);
}

/* c[i] = a[i] + b[i] + d[i] */
__global__ void k_sum3(uint32_t *c, const uint32_t *a, const uint32_t *b, const uint32_t *d, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = c[i] * 5u + a[i] + b[i] + d[i];
}

/* v[i] = 0.5 * (u[i-1] + u[i+1]) inside, v = u on the boundary */
__global__ void k_jacobi(float *v, const float *u, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0 || i == n - 1)
        v[i] = u[i];
    else if (i < n)
        v[i] = 0.5f * (u[i - 1] + u[i + 1]);
}

/* d[i] = |u[i] - v[i]| */
__global__ void k_absdiff(float *d, const float *u, const float *v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        d[i] = fabsf(u[i] - v[i]);
}

/* *out = max over d (one block of THREADS, a fixed order: deterministic) */
__global__ void k_maxreduce(float *out, const float *d, int n)
{
    __shared__ float s[THREADS];
    float m = 0.0f;
    for (int i = threadIdx.x; i < n; i += THREADS)
        m = fmaxf(m, d[i]);
    s[threadIdx.x] = m;
    __syncthreads();
    for (int w = THREADS / 2; w > 0; w /= 2) {
        if (threadIdx.x < w)
            s[threadIdx.x] = fmaxf(s[threadIdx.x], s[threadIdx.x + w]);
        __syncthreads();
    }
    if (threadIdx.x == 0)
        *out = s[0];
}

/* A fixed amount of dependent integer work per thread: a few hundred us on an H200. */
__global__ void k_long(uint32_t *a, int rounds, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uint32_t x = a[i];
    for (int r = 0; r < rounds; r++)
        x = (x * 1664525u + 1013904223u) ^ (x >> 7);
    a[i] = x;
}

/* The GPU's clock in nanoseconds (coarse on some GPUs, enough for microseconds). */
__device__ static inline unsigned long long global_ns(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* One block of dependent integer work on a[0..blockDim), timed: its start and end in ts[2*slot], ts[2*slot+1]. */
__global__ void k_busy(uint32_t *a, int rounds, unsigned long long *ts, unsigned *next_slot, unsigned slots)
{
    __shared__ unsigned slot;
    if (threadIdx.x == 0) {
        slot = atomicAdd(next_slot, 1u);
        if (slot < slots)
            ts[2 * slot] = global_ns();
    }
    __syncthreads();
    uint32_t x = a[threadIdx.x];
    for (int r = 0; r < rounds; r++)
        x = (x * 1664525u + 1013904223u) ^ (x >> 7);
    a[threadIdx.x] = x;
    __syncthreads();
    if (threadIdx.x == 0 && slot < slots)
        ts[2 * slot + 1] = global_ns();
}

/* ---- state ---- */

static cudaStream_t s, s1, s2, s3;
static cudaEvent_t ev_fork, ev1, ev2, ev3;
static uint32_t *ua, *ub, *uc, *ud;
static float *fu, *fv, *fd, *fres;
static float *h_res; /* pinned */
static std::vector<float> residuals;
static int jacobi_n = 16384;
static int long_rounds = 60000;
static int gap_rounds = 800;      /* k_busy: a few microseconds on an H200 */
static double gap_host_us = 4.0;  /* host work after each hostgap kernel */
static unsigned long long *gap_ts; /* k_busy's timestamps, two per kernel */
static unsigned *gap_next_slot;
static unsigned gap_slots;

static void init_u32(uint32_t *d, int n, uint32_t seed)
{
    std::vector<uint32_t> h(n);
    for (int i = 0; i < n; i++)
        h[i] = (uint32_t)i * 2654435761u + seed;
    CHECK(cudaMemcpy(d, h.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));
}

static uint64_t hash_device(const void *d, size_t bytes, uint64_t h)
{
    std::vector<unsigned char> buf(bytes);
    CHECK(cudaMemcpy(buf.data(), d, bytes, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < bytes; i++) {
        h ^= buf[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* ---- one iteration's stream work (no host sync), per workload ---- */

static void it_loop(int k, bool empty)
{
    for (int j = 0; j < k; j++) {
        if (empty) {
            k_empty<<<1, 1, 0, s>>>();
        } else {
            uint32_t a = (j % 3 == 0) ? 3u : 0x9E3779B9u;
            uint32_t *in = (j & 1) ? ua : ub, *out = (j & 1) ? ub : ua;
            k_iaxpy<<<blocks(N_SMALL), THREADS, 0, s>>>(a, in, out, N_SMALL);
        }
    }
}

static void it_fork3(void)
{
    k_iaxpy<<<blocks(N_SMALL), THREADS, 0, s>>>(7u, uc, ud, N_SMALL);
    CHECK(cudaEventRecord(ev_fork, s));
    CHECK(cudaStreamWaitEvent(s1, ev_fork, 0));
    CHECK(cudaStreamWaitEvent(s2, ev_fork, 0));
    CHECK(cudaStreamWaitEvent(s3, ev_fork, 0));
    k_pp<<<blocks(N_SMALL), THREADS, 0, s1>>>(ua, ud, 11u, N_SMALL);
    k_pp<<<blocks(N_SMALL), THREADS, 0, s1>>>(ua, ud, 12u, N_SMALL);
    k_pp<<<blocks(N_SMALL), THREADS, 0, s2>>>(ub, ud, 21u, N_SMALL);
    k_pp<<<blocks(N_SMALL), THREADS, 0, s2>>>(ub, ud, 22u, N_SMALL);
    k_pp<<<blocks(N_SMALL), THREADS, 0, s3>>>(uc, ud, 31u, N_SMALL);
    k_pp<<<blocks(N_SMALL), THREADS, 0, s3>>>(uc, ud, 32u, N_SMALL);
    CHECK(cudaEventRecord(ev1, s1));
    CHECK(cudaEventRecord(ev2, s2));
    CHECK(cudaEventRecord(ev3, s3));
    CHECK(cudaStreamWaitEvent(s, ev1, 0));
    CHECK(cudaStreamWaitEvent(s, ev2, 0));
    CHECK(cudaStreamWaitEvent(s, ev3, 0));
    k_sum3<<<blocks(N_SMALL), THREADS, 0, s>>>(ud, ua, ub, uc, N_SMALL);
}

/* One jacobi iteration; with copy, the residual goes to pinned host memory. */
static void it_jacobi(bool copy)
{
    int n = jacobi_n;
    k_jacobi<<<blocks(n), THREADS, 0, s>>>(fv, fu, n);
    k_jacobi<<<blocks(n), THREADS, 0, s>>>(fu, fv, n);
    k_absdiff<<<blocks(n), THREADS, 0, s>>>(fd, fu, fv, n);
    if (copy) {
        k_maxreduce<<<1, THREADS, 0, s>>>(fres, fd, n);
        CHECK(cudaMemcpyAsync(h_res, fres, sizeof(float), cudaMemcpyDeviceToHost, s));
    }
}
#define JACOBI_K 10
static void it_jacobi_group(void)
{
    for (int j = 0; j < JACOBI_K; j++)
        it_jacobi(j == JACOBI_K - 1);
}

#define PP_KERNELS 20
static void it_pingpong(int parity)
{
    uint32_t *src = parity ? ub : ua, *dst = parity ? ua : ub;
    for (int j = 0; j < PP_KERNELS; j++)
        k_pp<<<blocks(N_SMALL), THREADS, 0, s>>>(dst, src, (uint32_t)(j * 2654435761u), N_SMALL);
}

static void it_syncfree(void)
{
    k_iaxpy<<<blocks(N_SMALL), THREADS, 0, s>>>(3u, ua, ub, N_SMALL);
    k_pp<<<blocks(N_SMALL), THREADS, 0, s>>>(ua, ub, 5u, N_SMALL);
    k_iaxpy<<<blocks(N_SMALL), THREADS, 0, s>>>(0x9E3779B9u, ub, uc, N_SMALL);
    k_pp<<<blocks(N_SMALL), THREADS, 0, s>>>(ub, uc, 9u, N_SMALL);
}

static void it_malloc_each(void)
{
    uint32_t *tmp;
    CHECK(cudaMalloc(&tmp, N_SMALL * sizeof(uint32_t)));
    CHECK(cudaMemsetAsync(tmp, 0, N_SMALL * sizeof(uint32_t), s));
    for (int j = 0; j < 8; j++)
        k_pp<<<blocks(N_SMALL), THREADS, 0, s>>>(tmp, ua, (uint32_t)j, N_SMALL);
    k_iaxpy<<<blocks(N_SMALL), THREADS, 0, s>>>(3u, tmp, ub, N_SMALL);
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaFree(tmp));
}

#define LONG_N (132 * 128)
static void it_long(void)
{
    k_long<<<LONG_N / 128, 128, 0, s>>>(ua, long_rounds, LONG_N);
    k_long<<<LONG_N / 128, 128, 0, s>>>(ub, long_rounds, LONG_N);
}

#define HANDOVER_KERNELS 20
/* One thread's half of a handover iteration: half 0 the program's thread, 1 the second thread. */
static void it_handover_half(int half)
{
    uint32_t *dst = half ? ub : ua, *src = half ? ua : ub;
    for (int j = 0; j < HANDOVER_KERNELS; j++)
        k_pp<<<blocks(N_SMALL), THREADS, 0, s>>>(dst, src, (uint32_t)(j * 40503u + half), N_SMALL);
}

/* Host work standing for a dispatcher's: spins for gap_host_us. */
static void host_work(void)
{
    double until = now_seconds() + gap_host_us * 1e-6;
    while (now_seconds() < until)
        ;
}

#define GAP_KERNELS 20
/* One hostgap iteration's kernels; with_host_work: host work after each. */
static void it_hostgap(bool with_host_work)
{
    for (int j = 0; j < GAP_KERNELS; j++) {
        k_busy<<<1, THREADS, 0, s>>>(uc, gap_rounds, gap_ts, gap_next_slot, gap_slots);
        if (with_host_work)
            host_work();
    }
}

/* ---- driver ---- */

static cudaGraphExec_t capture(void (*fn)(int), int arg)
{
    cudaGraph_t g;
    cudaGraphExec_t exec;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    fn(arg);
    CHECK(cudaStreamEndCapture(s, &g));
    CHECK(cudaGraphInstantiate(&exec, g, 0));
    CHECK(cudaGraphDestroy(g));
    return exec;
}

static std::string workload;
static int loop_k;
static bool loop_empty;

/* The iteration as a function of one int (parity for pingpong), for capture and for eager. */
static void body(int arg)
{
    if (workload.compare(0, 4, "loop") == 0)
        it_loop(loop_k, loop_empty);
    else if (workload == "fork3")
        it_fork3();
    else if (workload == "jacobi")
        it_jacobi_group();
    else if (workload == "pingpong")
        it_pingpong(arg);
    else if (workload == "syncfree")
        it_syncfree();
    else if (workload == "long_kernels")
        it_long();
    else if (workload == "handover")
        it_handover_half(arg);
    else if (workload == "hostgap")
        it_hostgap(false);
}

/*
 * handover's second host thread: at each hand-over issues its half (or
 * launches its graph) on the same stream and syncs it, then hands back.
 */
struct second_thread {
    std::mutex lock;
    std::condition_variable changed;
    int turn = 0; /* 0: the program's thread, 1: the second thread's, -1: quit */
    cudaGraphExec_t exec = nullptr;
    std::thread thread;

    void run()
    {
        std::unique_lock<std::mutex> held(lock);
        for (;;) {
            changed.wait(held, [this] { return turn != 0; });
            if (turn < 0)
                return;
            if (exec)
                CHECK(cudaGraphLaunch(exec, s));
            else
                it_handover_half(1);
            CHECK(cudaStreamSynchronize(s));
            turn = 0;
            changed.notify_all();
        }
    }
    /* Hands over to the second thread and waits for it to hand back. */
    void hand_over()
    {
        std::unique_lock<std::mutex> held(lock);
        turn = 1;
        changed.notify_all();
        changed.wait(held, [this] { return turn == 0; });
    }
    void stop()
    {
        {
            std::lock_guard<std::mutex> held(lock);
            turn = -1;
        }
        changed.notify_all();
        thread.join();
    }
};

/* Median over iterations [first, count) of hostgap's per-iteration GPU busy time and span, in us. */
static void gap_gpu_times(int first, int count, double *busy_median, double *span_median)
{
    unsigned used;
    CHECK(cudaMemcpy(&used, gap_next_slot, sizeof used, cudaMemcpyDeviceToHost));
    std::vector<unsigned long long> ts(2 * (size_t)gap_slots);
    CHECK(cudaMemcpy(ts.data(), gap_ts, ts.size() * sizeof ts[0], cudaMemcpyDeviceToHost));
    std::vector<double> busy, span;
    for (int i = first; i < count && (unsigned)(i + 1) * GAP_KERNELS <= std::min(used, gap_slots); i++) {
        double b = 0;
        for (int j = 0; j < GAP_KERNELS; j++) {
            size_t k = (size_t)i * GAP_KERNELS + j;
            b += (double)(ts[2 * k + 1] - ts[2 * k]);
        }
        size_t k0 = (size_t)i * GAP_KERNELS, k1 = k0 + GAP_KERNELS - 1;
        busy.push_back(b / 1e3);
        span.push_back((double)(ts[2 * k1 + 1] - ts[2 * k0]) / 1e3);
    }
    std::sort(busy.begin(), busy.end());
    std::sort(span.begin(), span.end());
    *busy_median = busy.empty() ? 0 : busy[busy.size() / 2];
    *span_median = span.empty() ? 0 : span[span.size() / 2];
}

static void usage(void)
{
    fprintf(stderr, "usage: bench_suite.gpu WORKLOAD eager|graph [ITERS]\n"
                    "workloads: loop20_empty loop100_empty loop400_empty loop20_small loop100_small\n"
                    "           loop400_small fork3 jacobi pingpong syncfree malloc_each long_kernels\n"
                    "           handover hostgap\n");
    exit(1);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        usage();
    workload = argv[1];
    std::string mode = argv[2];
    if (mode != "eager" && mode != "graph")
        usage();
    bool graph = mode == "graph";
    int iters;
    const char *names[] = {"loop20_empty", "loop100_empty", "loop400_empty", "loop20_small", "loop100_small",
                           "loop400_small", "fork3", "jacobi", "pingpong", "syncfree", "malloc_each",
                           "long_kernels", "handover", "hostgap"};
    bool known = false;
    for (const char *nm : names)
        known = known || workload == nm;
    if (!known)
        usage();
    if (workload.compare(0, 4, "loop") == 0) {
        loop_k = atoi(workload.c_str() + 4);
        loop_empty = workload.find("empty") != std::string::npos;
    }
    iters = workload == "syncfree" ? 10000 : workload == "long_kernels" ? 100 : 300;
    if (argc > 3)
        iters = atoi(argv[3]);
    if (iters < 1)
        usage();
    if (graph && workload == "malloc_each") {
        printf("workload %s mode graph: not applicable\nmedian_us na\nchecksum na\n", workload.c_str());
        return 0;
    }
    require_gpu();
    if (getenv("BENCH_SUITE_LONG_ROUNDS"))
        long_rounds = atoi(getenv("BENCH_SUITE_LONG_ROUNDS"));
    if (getenv("BENCH_SUITE_GAP_US"))
        gap_host_us = atof(getenv("BENCH_SUITE_GAP_US"));
    if (getenv("BENCH_SUITE_GAP_ROUNDS"))
        gap_rounds = atoi(getenv("BENCH_SUITE_GAP_ROUNDS"));

    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&s3, cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&ev_fork, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&ev1, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&ev2, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&ev3, cudaEventDisableTiming));
    size_t ubytes = LONG_N * sizeof(uint32_t); /* >= N_SMALL words */
    CHECK(cudaMalloc(&ua, ubytes));
    CHECK(cudaMalloc(&ub, ubytes));
    CHECK(cudaMalloc(&uc, ubytes));
    CHECK(cudaMalloc(&ud, ubytes));
    init_u32(ua, LONG_N, 1);
    init_u32(ub, LONG_N, 2);
    init_u32(uc, LONG_N, 3);
    init_u32(ud, LONG_N, 4);
    CHECK(cudaMalloc(&fu, jacobi_n * sizeof(float)));
    CHECK(cudaMalloc(&fv, jacobi_n * sizeof(float)));
    CHECK(cudaMalloc(&fd, jacobi_n * sizeof(float)));
    CHECK(cudaMalloc(&fres, sizeof(float)));
    CHECK(cudaMallocHost(&h_res, sizeof(float)));
    {
        std::vector<float> h(jacobi_n);
        for (int i = 0; i < jacobi_n; i++) /* a bump in the middle, exact in binary */
            h[i] = (i == 0 || i == jacobi_n - 1) ? 1.0f : (float)((i * 37) % 256) / 256.0f;
        CHECK(cudaMemcpy(fu, h.data(), jacobi_n * sizeof(float), cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(fv, h.data(), jacobi_n * sizeof(float), cudaMemcpyHostToDevice));
    }
    CHECK(cudaDeviceSynchronize());

    /* jacobi: ITERS iterations are ITERS / 10 timed groups. */
    int units = workload == "jacobi" ? std::max(1, iters / JACOBI_K) : iters;
    int per_unit = workload == "jacobi" ? JACOBI_K : 1;
    int warm = std::max(5, units / 10);

    if (workload == "hostgap") {
        gap_slots = (unsigned)(warm + units) * GAP_KERNELS;
        CHECK(cudaMalloc(&gap_ts, 2 * sizeof(unsigned long long) * gap_slots));
        CHECK(cudaMalloc(&gap_next_slot, sizeof(unsigned)));
        CHECK(cudaMemset(gap_next_slot, 0, sizeof(unsigned)));
        CHECK(cudaDeviceSynchronize());
    }

    cudaGraphExec_t exec[2] = {nullptr, nullptr};
    if (graph) {
        exec[0] = capture(body, 0);
        if (workload == "pingpong" || workload == "handover")
            exec[1] = capture(body, 1);
    }
    second_thread second;
    if (workload == "handover") {
        second.exec = exec[1];
        second.thread = std::thread([&second] { second.run(); });
    }
    auto unit = [&](int u) {
        int parity = u & 1;
        if (graph && workload == "hostgap")
            for (int j = 0; j < GAP_KERNELS; j++)
                host_work(); /* the host work comes first: it decides what the graph then runs */
        if (graph)
            CHECK(cudaGraphLaunch(exec[workload == "pingpong" ? parity : 0], s));
        else if (workload == "malloc_each")
            it_malloc_each();
        else if (workload == "hostgap")
            it_hostgap(true);
        else
            body(workload == "handover" ? 0 : parity);
        if (workload == "handover")
            second.hand_over();
    };

    std::vector<double> us;
    double median;
    if (workload == "syncfree") {
        for (int u = 0; u < warm; u++)
            unit(u);
        CHECK(cudaStreamSynchronize(s));
        double t0 = now_seconds();
        for (int u = 0; u < units; u++)
            unit(warm + u);
        CHECK(cudaStreamSynchronize(s));
        median = (now_seconds() - t0) * 1e6 / units;
    } else {
        us.reserve(units);
        for (int u = 0; u < warm + units; u++) {
            double t0 = now_seconds();
            unit(u);
            CHECK(cudaStreamSynchronize(s));
            double t = (now_seconds() - t0) * 1e6;
            if (workload == "jacobi")
                residuals.push_back(*h_res);
            if (u >= warm)
                us.push_back(t / per_unit);
        }
        std::sort(us.begin(), us.end());
        median = us[us.size() / 2];
    }
    if (workload == "handover")
        second.stop();
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    double gap_busy = 0, gap_span = 0;
    if (workload == "hostgap")
        gap_gpu_times(warm, warm + units, &gap_busy, &gap_span); /* a capture runs no kernel: no slot */

    uint64_t h = 0xcbf29ce484222325ull;
    if (workload == "jacobi") {
        h = hash_device(fu, jacobi_n * sizeof(float), h);
        for (float r : residuals) {
            const unsigned char *p = (const unsigned char *)&r;
            for (size_t i = 0; i < sizeof r; i++) {
                h ^= p[i];
                h *= 0x100000001b3ull;
            }
        }
    } else if (!loop_empty) {
        h = hash_device(ua, ubytes, h);
        h = hash_device(ub, ubytes, h);
        h = hash_device(uc, ubytes, h);
        h = hash_device(ud, ubytes, h);
    }
    printf("workload %s mode %s iters %d warmup %d\n", workload.c_str(), mode.c_str(), units * per_unit,
           warm * per_unit);
    if (!us.empty())
        printf("median_us %.3f q1_us %.3f q3_us %.3f\n", median, us[us.size() / 4], us[us.size() * 3 / 4]);
    else
        printf("median_us %.3f\n", median);
    if (workload == "hostgap")
        printf("gpu_busy_us %.3f gpu_span_us %.3f\n", gap_busy, gap_span);
    printf("checksum %016llx\n", (unsigned long long)h);
    for (cudaGraphExec_t e : exec)
        if (e)
            CHECK(cudaGraphExecDestroy(e));
    return 0;
}
