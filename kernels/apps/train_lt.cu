/* SPDX-License-Identifier: MIT */
/*
 * train_lt: a training-step loop written directly on cuBLASLt (issue 25):
 * a two-layer MLP trained with Adam on four fixed batches, its five GEMMs
 * (forward and backward) through cublasLtMatmul (bf16 in and out, fp32
 * accumulation; on Hopper cuBLASLt launches its kernels through the driver
 * API, with programmatic dependent launch where its kernels use it), every
 * other operation a kernel of its own, one host sync a step (the loss read
 * back).  Column-major, B samples of width D, hidden width H:
 *
 *     X, T = batch[t % 4]          cudaMemcpyAsync x2 (device to device; the source rotates)
 *     W1b, W2b = bf16(W1, W2)      k_cast x2 (fp32 master weights)
 *     Z1 = W1b X                   cublasLtMatmul, m H, n B, k D
 *     A1 = gelu(Z1 + b1)           k_bias_gelu
 *     Y = W2b A1                   cublasLtMatmul, m D, n B, k H
 *     dY, partial sums of (Y + b2 - T)^2            k_loss
 *     loss = sum of the partials / (D B)            k_loss_reduce<<<1, 256>>> on the LEGACY stream
 *     dW2 = dY A1^T                cublasLtMatmul, m D, n H, k B (B transposed)
 *     dA1 = W2b^T dY               cublasLtMatmul, m H, n B, k D (A transposed)
 *     dZ1 = dA1 gelu'(Z1 + b1)     k_gelu_back
 *     dW1 = dZ1 X^T                cublasLtMatmul, m H, n D, k B (B transposed)
 *     db1, db2 = row sums          k_bias_grad x2
 *     W1, b1, W2, b2 -= Adam       k_adam x4 (the step's bias corrections by value)
 *     probe[t] = W1[j(t)]          k_probe<<<1, 1>>> on the LEGACY stream (t and j by value)
 *     loss to pinned host          cudaMemcpyAsync on the legacy stream, cudaStreamSynchronize(0)
 *
 * the rest on a cudaStreamCreate (blocking) stream: 17 launches of its own
 * and 5 GEMMs a step, 3 copies, one sync.
 *
 *     train_lt.gpu [eager|graph] [STEPS] [B D H]     (default eager 300, 128 512 1024)
 *
 * TRAIN_LT_SHAPES=N (1 to 8, default 1): step t trains on the first
 * B - (t mod N) samples of its batch, so that the step comes in N launch
 * shapes in turn (N = 3, B = 128: the elementwise kernels' grids 512, 508
 * and 504 blocks, k_loss's 256, 254 and 252, the GEMMs' n or k 128, 127 and
 * 126), each GEMM's algorithm chosen once per shape; graph mode captures one
 * graph per shape.  1: every step the same, as before.
 *
 * eager: the calls above, one by one (run it with and without the shim).
 * graph: the hand-written CUDA graph of the same step: after 3 eager steps
 * (kernels loaded, cuBLASLt warmed up) the step is captured once
 * (cudaStreamBeginCapture on the created stream, cuBLASLt inside the
 * capture: its workspace is fixed) and launched each step after the two
 * batch copies; inside a capture nothing may run on the legacy stream, so
 * there k_loss_reduce, k_probe and the loss copy go on the created stream,
 * and the step's scalars (bias corrections, t, j) come from a small struct
 * that the graph's first node copies from pinned host memory, written by
 * the host before each launch.  Both modes compute the same and print the
 * same.
 *
 * Each GEMM's algorithm is chosen once (cublasLtMatmulAlgoGetHeuristic,
 * 32 MiB of workspace); after step 0 every GEMM is checked against the
 * host on 64 entries ("verify gemms ok").  cuBLASLt's and the kernels'
 * results are bit-wise the same on every run of one GPU (fixed orders of
 * summation, no atomics).  stdout: every step's loss (float bits and
 * %.9g), probes every 25 steps, checksums of the final weights, and
 * "verify training ok" when the mean loss of the last 10 steps is below the
 * first 10's: byte-comparable with and without the shim and between the
 * modes.  stderr: the chosen algorithms' workspace, the steady-state loop's
 * time after 30 warm-up steps: "median_us X" (median step) and
 * "us_per_iter X" (the loop's wall time over its steps).  Exit status: 0;
 * 1 a failed call or a wrong result; 77 no GPU.  Built twice by make
 * gpu-programs (train_lt.gpu with the shared runtime, train_lt.static with
 * nvcc's default static runtime), linked with -lcublasLt.
 */
#define LT_PROGRAM "train_lt"
#include "lt_common.h"

#include <algorithm>
#include <cuda_bf16.h>
#include <math.h>
#include <string.h>
#include <time.h>
#include <vector>

#define TL_BATCHES 4
#define TL_WARMUP 30
#define TL_GRAPH_AFTER 3 /* graph mode: eager steps before the capture */
#define TL_THREADS 256
#define TL_LR 1e-3f
#define TL_BETA1 0.9f
#define TL_BETA2 0.999f
#define TL_EPS 1e-8f
#define TL_MAX_SHAPES 8 /* TRAIN_LT_SHAPES at most */

typedef __nv_bfloat16 bf16;


/* The step's scalars, read from device memory by the graph (eager passes them by value instead). */
struct step_params {
    int step;
    int probe_index;
    float bc1, bc2; /* Adam's bias corrections, 1 - beta^(step+1) */
};

/* dst = bf16(src) */
__global__ void k_cast(bf16 *dst, const float *src, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        dst[i] = __float2bfloat16(src[i]);
}

/* The tanh approximation of GELU. */
__device__ static float gelu(float v)
{
    return 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
}

/* Its derivative. */
__device__ static float gelu_grad(float v)
{
    const float u = 0.7978845608f * (v + 0.044715f * v * v * v);
    const float th = tanhf(u);
    return 0.5f * (1.0f + th) + 0.5f * v * (1.0f - th * th) * 0.7978845608f * (1.0f + 3.0f * 0.044715f * v * v);
}

/* a = gelu(z + b[row]) for a rows x cols column-major matrix */
__global__ void k_bias_gelu(bf16 *a, const bf16 *z, const float *b, int rows, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] = __float2bfloat16(gelu(__bfloat162float(z[i]) + b[i % rows]));
}

/* Sums s[0..TL_THREADS) into s[0] in a fixed order (one block of TL_THREADS threads). */
__device__ static void block_sum(float *s)
{
    for (int w = TL_THREADS / 2; w > 0; w /= 2) {
        __syncthreads();
        if ((int)threadIdx.x < w)
            s[threadIdx.x] += s[threadIdx.x + w];
    }
    __syncthreads();
}

/* e = y + b2[row] - t; dy = 2 e / n; partial[block] = the block's sum of e^2 */
__global__ void k_loss(bf16 *dy, float *partial, const bf16 *y, const float *b2, const float *t, int rows, size_t n)
{
    __shared__ float s[TL_THREADS];
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    float e2 = 0.0f;
    if (i < n) {
        const float e = __bfloat162float(y[i]) + b2[i % rows] - t[i];
        dy[i] = __float2bfloat16(2.0f * e / (float)n);
        e2 = e * e;
    }
    s[threadIdx.x] = e2;
    block_sum(s);
    if (threadIdx.x == 0)
        partial[blockIdx.x] = s[0];
}

/* *loss = sum of partial[0..count) / n (one block, a fixed order) */
__global__ void k_loss_reduce(float *loss, const float *partial, int count, float n)
{
    __shared__ float s[TL_THREADS];
    float acc = 0.0f;
    for (int i = threadIdx.x; i < count; i += TL_THREADS)
        acc += partial[i];
    s[threadIdx.x] = acc;
    block_sum(s);
    if (threadIdx.x == 0)
        *loss = s[0] / n;
}

/* dz = da * gelu'(z + b[row]) */
__global__ void k_gelu_back(bf16 *dz, const bf16 *da, const bf16 *z, const float *b, int rows, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        dz[i] = __float2bfloat16(__bfloat162float(da[i]) * gelu_grad(__bfloat162float(z[i]) + b[i % rows]));
}

/* db[r] = sum over the columns of g's row r (one thread a row, columns in order) */
__global__ void k_bias_grad(float *db, const bf16 *g, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    float acc = 0.0f;
    for (int c = 0; c < cols; c++)
        acc += __bfloat162float(g[(size_t)c * rows + r]);
    db[r] = acc;
}

/* The gradient's value as a float. */
__device__ static float grad_value(const bf16 *g, size_t i)
{
    return __bfloat162float(g[i]);
}

/* The gradient's value as a float. */
__device__ static float grad_value(const float *g, size_t i)
{
    return g[i];
}

/* One Adam step on w; the bias corrections by value, or from p when p is given (the graph). */
template <typename G>
__global__ void k_adam(float *w, float *m, float *v, const G *g, size_t n, float bc1, float bc2, const step_params *p)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    if (p != NULL) {
        bc1 = p->bc1;
        bc2 = p->bc2;
    }
    const float gi = grad_value(g, i);
    const float mi = TL_BETA1 * m[i] + (1.0f - TL_BETA1) * gi;
    const float vi = TL_BETA2 * v[i] + (1.0f - TL_BETA2) * gi * gi;
    m[i] = mi;
    v[i] = vi;
    w[i] -= TL_LR * (mi / bc1) / (sqrtf(vi / bc2) + TL_EPS);
}

/* probe[step] = w[index]; by value, or from p when p is given (the graph). */
__global__ void k_probe(float *probe, const float *w, int step, int index, const step_params *p)
{
    if (p != NULL) {
        step = p->step;
        index = p->probe_index;
    }
    probe[step] = w[index];
}

/* Blocks of TL_THREADS covering n. */
static unsigned blocks_for(size_t n)
{
    return (unsigned)((n + TL_THREADS - 1) / TL_THREADS);
}


/* Copies n bf16 values from the device. */
static std::vector<bf16> fetch(const bf16 *d, size_t n)
{
    std::vector<bf16> h(n);
    CHECK(cudaMemcpy(h.data(), d, n * sizeof(bf16), cudaMemcpyDeviceToHost));
    return h;
}

/* Checks D = op(A) op(B) on 64 entries against the host, from the device's operands; false if off. */
static bool gemm_check(const gemm *g, const bf16 *da, const bf16 *db, const bf16 *dd)
{
    const std::vector<bf16> a = fetch(da, (size_t)g->m * g->k), b = fetch(db, (size_t)g->k * g->n),
                            d = fetch(dd, (size_t)g->m * g->n);
    double worst = 0.0;
    for (int s = 0; s < 64; s++) {
        const int row = (s * 397 + 11) % g->m, col = (s * 911 + 5) % g->n;
        double ref = 0.0, mag = 0.0;
        for (int k = 0; k < g->k; k++) {
            const size_t ia = g->ta ? (size_t)row * g->k + k : (size_t)k * g->m + row;
            const size_t ib = g->tb ? (size_t)k * g->n + col : (size_t)col * g->k + k;
            const double t = (double)__bfloat162float(a[ia]) * (double)__bfloat162float(b[ib]);
            ref += t;
            mag += fabs(t);
        }
        const double got = __bfloat162float(d[(size_t)col * g->m + row]);
        worst = std::max(worst, fabs(got - ref) / (1e-2 * fabs(ref) + 1e-3 * mag + 1e-30));
    }
    if (worst > 1.0)
        fprintf(stderr, "train_lt: %s is off the host's by %.3g of the tolerance\n", g->name, worst);
    return worst <= 1.0;
}

/* One launch shape of the step: its batch (samples), the sizes that follow from it, its GEMMs. */
struct shape {
    int B;
    size_t nx, nh;
    unsigned loss_blocks;
    gemm g_z1, g_y, g_dw2, g_da1, g_dw1;
};

/* The device's buffers (sized for the largest batch, B) and the step's fixed pieces. */
struct model {
    int B, D, H;
    size_t nx, nh, nw1, nw2;
    float *w1, *w2, *b1, *b2, *m_w1, *v_w1, *m_w2, *v_w2, *m_b1, *v_b1, *m_b2, *v_b2;
    float *db1, *db2, *t, *t_pool, *partial, *loss, *probe;
    bf16 *w1b, *w2b, *x, *x_pool, *z1, *a1, *y, *dy, *dw2, *da1, *dz1, *dw1;
    step_params *params;
    void *workspace;
    shape shapes[TL_MAX_SHAPES];
    int shape_count;
};

/*
 * Submits one step after the batch copies: on `s`, the legacy stream's kernels and the loss copy on `legacy`
 * (the legacy stream in eager, `s` in the graph); scalars by value, or from p (the graph).
 */
static void submit_step(model *md, const shape *sh, cublasLtHandle_t lt, cudaStream_t s, cudaStream_t legacy, int step,
                        int probe_index, float bc1, float bc2, const step_params *p, float *h_loss)
{
    const unsigned th = TL_THREADS;
    k_cast<<<blocks_for(md->nw1), th, 0, s>>>(md->w1b, md->w1, md->nw1);
    CHECK_LAUNCH();
    k_cast<<<blocks_for(md->nw2), th, 0, s>>>(md->w2b, md->w2, md->nw2);
    CHECK_LAUNCH();
    gemm_run(&sh->g_z1, lt, md->w1b, md->x, md->z1, md->workspace, s);
    k_bias_gelu<<<blocks_for(sh->nh), th, 0, s>>>(md->a1, md->z1, md->b1, md->H, sh->nh);
    CHECK_LAUNCH();
    gemm_run(&sh->g_y, lt, md->w2b, md->a1, md->y, md->workspace, s);
    k_loss<<<sh->loss_blocks, th, 0, s>>>(md->dy, md->partial, md->y, md->b2, md->t, md->D, sh->nx);
    CHECK_LAUNCH();
    k_loss_reduce<<<1, th, 0, legacy>>>(md->loss, md->partial, (int)sh->loss_blocks, (float)sh->nx);
    CHECK_LAUNCH();
    gemm_run(&sh->g_dw2, lt, md->dy, md->a1, md->dw2, md->workspace, s);
    gemm_run(&sh->g_da1, lt, md->w2b, md->dy, md->da1, md->workspace, s);
    k_gelu_back<<<blocks_for(sh->nh), th, 0, s>>>(md->dz1, md->da1, md->z1, md->b1, md->H, sh->nh);
    CHECK_LAUNCH();
    gemm_run(&sh->g_dw1, lt, md->dz1, md->x, md->dw1, md->workspace, s);
    k_bias_grad<<<blocks_for(md->H), th, 0, s>>>(md->db1, md->dz1, md->H, sh->B);
    CHECK_LAUNCH();
    k_bias_grad<<<blocks_for(md->D), th, 0, s>>>(md->db2, md->dy, md->D, sh->B);
    CHECK_LAUNCH();
    k_adam<bf16><<<blocks_for(md->nw1), th, 0, s>>>(md->w1, md->m_w1, md->v_w1, md->dw1, md->nw1, bc1, bc2, p);
    CHECK_LAUNCH();
    k_adam<float><<<blocks_for(md->H), th, 0, s>>>(md->b1, md->m_b1, md->v_b1, md->db1, (size_t)md->H, bc1, bc2, p);
    CHECK_LAUNCH();
    k_adam<bf16><<<blocks_for(md->nw2), th, 0, s>>>(md->w2, md->m_w2, md->v_w2, md->dw2, md->nw2, bc1, bc2, p);
    CHECK_LAUNCH();
    k_adam<float><<<blocks_for(md->D), th, 0, s>>>(md->b2, md->m_b2, md->v_b2, md->db2, (size_t)md->D, bc1, bc2, p);
    CHECK_LAUNCH();
    k_probe<<<1, 1, 0, legacy>>>(md->probe, md->w1, step, probe_index, p);
    CHECK_LAUNCH();
    CHECK(cudaMemcpyAsync(h_loss, md->loss, sizeof(float), cudaMemcpyDeviceToHost, legacy));
}

/* cudaMalloc'd floats, set from init_value (scale 0: zeros). */
static float *device_floats(size_t n, uint32_t salt, float scale)
{
    std::vector<float> h(n);
    for (size_t i = 0; i < n; i++)
        h[i] = scale == 0.0f ? 0.0f : init_value(i, salt, scale);
    float *d;
    CHECK(cudaMalloc(&d, n * sizeof(float)));
    CHECK(cudaMemcpy(d, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    return d;
}

/* cudaMalloc'd bf16 values, uninitialised. */
static bf16 *device_bf16(size_t n)
{
    bf16 *d;
    CHECK(cudaMalloc(&d, n * sizeof(bf16)));
    return d;
}

/* A positive integer argument, or exits with the usage. */
static int int_arg(const char *text)
{
    char *end;
    long v = strtol(text, &end, 10);
    if (*end != '\0' || v < 1 || v > 1 << 20) {
        fprintf(stderr, "usage: train_lt.gpu [eager|graph] [STEPS] [B D H]\n");
        exit(1);
    }
    return (int)v;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "eager";
    const bool graph = strcmp(mode, "graph") == 0;
    if (!graph && strcmp(mode, "eager") != 0) {
        fprintf(stderr, "usage: train_lt.gpu [eager|graph] [STEPS] [B D H]\n");
        return 1;
    }
    const int steps = argc > 2 ? int_arg(argv[2]) : 300;
    if (steps <= TL_WARMUP + 10) {
        fprintf(stderr, "train_lt: STEPS must be above %d\n", TL_WARMUP + 10);
        return 1;
    }
    model md;
    memset(&md, 0, sizeof md);
    md.B = argc > 5 ? int_arg(argv[3]) : 128;
    md.D = argc > 5 ? int_arg(argv[4]) : 512;
    md.H = argc > 5 ? int_arg(argv[5]) : 1024;
    const char *shapes_env = getenv("TRAIN_LT_SHAPES");
    md.shape_count = shapes_env ? atoi(shapes_env) : 1;
    if (md.shape_count < 1 || md.shape_count > TL_MAX_SHAPES || md.shape_count > md.B) {
        fprintf(stderr, "train_lt: TRAIN_LT_SHAPES=%s is not valid (expected 1 to %d, at most B)\n", shapes_env,
                TL_MAX_SHAPES);
        return 1;
    }
    require_gpu();
    md.nx = (size_t)md.D * md.B, md.nh = (size_t)md.H * md.B, md.nw1 = (size_t)md.H * md.D, md.nw2 = md.nw1;
    fprintf(stderr, "train_lt: mode %s, %d steps, B %d D %d H %d, %d shape%s\n", mode, steps, md.B, md.D, md.H,
            md.shape_count, md.shape_count == 1 ? "" : "s");

    md.w1 = device_floats(md.nw1, 0x85ebca6bu, 2.0f / sqrtf((float)md.D));
    md.w2 = device_floats(md.nw2, 0xc2b2ae35u, 2.0f / sqrtf((float)md.H));
    md.b1 = device_floats(md.H, 0x27d4eb2fu, 0.1f);
    md.b2 = device_floats(md.D, 0x165667b1u, 0.1f);
    float **zeros[] = {&md.m_w1, &md.v_w1, &md.m_w2, &md.v_w2};
    for (float **z : zeros)
        *z = device_floats(md.nw1, 0, 0.0f);
    md.m_b1 = device_floats(md.H, 0, 0.0f), md.v_b1 = device_floats(md.H, 0, 0.0f);
    md.m_b2 = device_floats(md.D, 0, 0.0f), md.v_b2 = device_floats(md.D, 0, 0.0f);
    md.db1 = device_floats(md.H, 0, 0.0f), md.db2 = device_floats(md.D, 0, 0.0f);
    md.partial = device_floats(blocks_for(md.nx), 0, 0.0f);
    md.loss = device_floats(1, 0, 0.0f);
    md.probe = device_floats(steps, 0, 0.0f);
    md.t = device_floats(md.nx, 0, 0.0f);
    /* The batches: X random; the target T a fixed function of X (a shuffle of its rows, squashed). */
    {
        std::vector<bf16> xs((size_t)TL_BATCHES * md.nx);
        std::vector<float> ts((size_t)TL_BATCHES * md.nx);
        for (size_t i = 0; i < xs.size(); i++)
            xs[i] = __float2bfloat16(init_value(i, 0x9e3779b9u, 2.0f));
        for (int bt = 0; bt < TL_BATCHES; bt++)
            for (int c = 0; c < md.B; c++)
                for (int r = 0; r < md.D; r++) {
                    const size_t base = (size_t)bt * md.nx + (size_t)c * md.D;
                    ts[base + r] = 0.5f * tanhf(2.0f * __bfloat162float(xs[base + (size_t)(r * 7 + 3) % md.D]));
                }
        md.x_pool = device_bf16(xs.size());
        CHECK(cudaMalloc(&md.t_pool, ts.size() * sizeof(float)));
        CHECK(cudaMemcpy(md.x_pool, xs.data(), xs.size() * sizeof(bf16), cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(md.t_pool, ts.data(), ts.size() * sizeof(float), cudaMemcpyHostToDevice));
    }
    md.w1b = device_bf16(md.nw1), md.w2b = device_bf16(md.nw2), md.x = device_bf16(md.nx);
    md.z1 = device_bf16(md.nh), md.a1 = device_bf16(md.nh), md.y = device_bf16(md.nx), md.dy = device_bf16(md.nx);
    md.dw2 = device_bf16(md.nw2), md.da1 = device_bf16(md.nh), md.dz1 = device_bf16(md.nh), md.dw1 = device_bf16(md.nw1);
    CHECK(cudaMalloc(&md.params, sizeof(step_params)));
    CHECK(cudaMalloc(&md.workspace, LT_WORKSPACE_BYTES));

    cublasLtHandle_t lt;
    LT(cublasLtCreate, (&lt));
    cublasLtMatmulPreference_t pref = lt_preference();
    for (int k = 0; k < md.shape_count; k++) {
        shape *sh = &md.shapes[k];
        sh->B = md.B - k;
        sh->nx = (size_t)md.D * sh->B, sh->nh = (size_t)md.H * sh->B;
        sh->loss_blocks = blocks_for(sh->nx);
        gemm_init(&sh->g_z1, "Z1 = W1 X", lt, pref, md.H, sh->B, md.D, false, false);
        gemm_init(&sh->g_y, "Y = W2 A1", lt, pref, md.D, sh->B, md.H, false, false);
        gemm_init(&sh->g_dw2, "dW2 = dY A1^T", lt, pref, md.D, md.H, sh->B, false, true);
        gemm_init(&sh->g_da1, "dA1 = W2^T dY", lt, pref, md.H, sh->B, md.D, true, false);
        gemm_init(&sh->g_dw1, "dW1 = dZ1 X^T", lt, pref, md.H, md.D, sh->B, false, true);
    }

    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    float *h_loss;
    step_params *h_params;
    CHECK(cudaHostAlloc(&h_loss, sizeof(float), cudaHostAllocDefault));
    CHECK(cudaHostAlloc(&h_params, sizeof(step_params), cudaHostAllocDefault));
    cudaGraphExec_t execs[TL_MAX_SHAPES] = {NULL};
    std::vector<float> losses(steps);
    std::vector<double> times;
    double b1 = 1.0, b2 = 1.0, loop_began = 0.0;
    for (int step = 0; step < steps; step++) {
        if (step == TL_WARMUP)
            loop_began = now_us();
        const double began = now_us();
        b1 *= TL_BETA1, b2 *= TL_BETA2;
        const float bc1 = (float)(1.0 - b1), bc2 = (float)(1.0 - b2);
        const int probe_index = (int)(((size_t)step * 104729u) % md.nw1);
        const int batch = step % TL_BATCHES;
        const int which = step % md.shape_count;
        const shape *sh = &md.shapes[which];
        /* The batch's first sh->B samples (columns): the first sh->nx values of its D x B block. */
        CHECK(cudaMemcpyAsync(md.x, md.x_pool + (size_t)batch * md.nx, sh->nx * sizeof(bf16), cudaMemcpyDeviceToDevice,
                              s));
        CHECK(cudaMemcpyAsync(md.t, md.t_pool + (size_t)batch * md.nx, sh->nx * sizeof(float), cudaMemcpyDeviceToDevice,
                              s));
        cudaGraphExec_t &exec = execs[which];
        if (graph && step >= TL_GRAPH_AFTER && exec == NULL) {
            /* Captured after a few eager steps, as CUDA graphs are (kernels loaded, cuBLASLt warmed up); one a shape. */
            cudaGraph_t g;
            CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
            CHECK(cudaMemcpyAsync(md.params, h_params, sizeof(step_params), cudaMemcpyHostToDevice, s));
            submit_step(&md, sh, lt, s, s, 0, 0, 1.0f, 1.0f, md.params, h_loss);
            CHECK(cudaStreamEndCapture(s, &g));
            CHECK(cudaGraphInstantiate(&exec, g, 0));
            CHECK(cudaGraphDestroy(g));
        }
        if (exec != NULL) {
            *h_params = step_params{step, probe_index, bc1, bc2};
            CHECK(cudaGraphLaunch(exec, s));
            CHECK(cudaStreamSynchronize(s));
        } else {
            submit_step(&md, sh, lt, s, (cudaStream_t)0, step, probe_index, bc1, bc2, NULL, h_loss);
            CHECK(cudaStreamSynchronize(0));
        }
        losses[step] = *h_loss;
        if (step >= TL_WARMUP)
            times.push_back(now_us() - began);
        if (step == 0) {
            const bool ok = gemm_check(&sh->g_z1, md.w1b, md.x, md.z1) && gemm_check(&sh->g_y, md.w2b, md.a1, md.y) &&
                            gemm_check(&sh->g_dw2, md.dy, md.a1, md.dw2) &&
                            gemm_check(&sh->g_da1, md.w2b, md.dy, md.da1) && gemm_check(&sh->g_dw1, md.dz1, md.x, md.dw1);
            if (!ok) {
                printf("verify gemms FAILED\n");
                return 1;
            }
            printf("verify gemms ok\n");
        }
    }
    const double loop_us = now_us() - loop_began;
    CHECK(cudaGetLastError());

    std::vector<float> probe(steps), w1(md.nw1), w2(md.nw2);
    CHECK(cudaMemcpy(probe.data(), md.probe, steps * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(w1.data(), md.w1, md.nw1 * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(w2.data(), md.w2, md.nw2 * sizeof(float), cudaMemcpyDeviceToHost));
    for (int step = 0; step < steps; step++)
        printf("step %d loss 0x%08x %.9g\n", step, float_bits(losses[step]), losses[step]);
    for (int step = 24; step < steps; step += 25)
        printf("probe %d 0x%08x %.9g\n", step, float_bits(probe[step]), probe[step]);
    print_checksum("w1", w1.data(), md.nw1 * sizeof(float));
    print_checksum("w2", w2.data(), md.nw2 * sizeof(float));
    double first = 0.0, last = 0.0;
    bool finite = true;
    for (int i = 0; i < 10; i++) {
        first += losses[i];
        last += losses[steps - 1 - i];
    }
    for (int step = 0; step < steps; step++)
        finite = finite && isfinite(losses[step]);
    if (!finite || !(last < first)) {
        printf("verify training FAILED\n");
        fprintf(stderr, "train_lt: the loss did not fall (first 10 steps %.6g, last 10 %.6g)\n", first / 10, last / 10);
        return 1;
    }
    printf("verify training ok\n");
    std::sort(times.begin(), times.end());
    fprintf(stderr, "median_us %.1f\n", times[times.size() / 2]);
    fprintf(stderr, "us_per_iter %.2f\n", loop_us / (steps - TL_WARMUP));

    for (int k = 0; k < md.shape_count; k++) {
        if (execs[k] != NULL)
            CHECK(cudaGraphExecDestroy(execs[k]));
        shape *sh = &md.shapes[k];
        gemm *gemms[] = {&sh->g_z1, &sh->g_y, &sh->g_dw2, &sh->g_da1, &sh->g_dw1};
        for (gemm *g : gemms)
            gemm_fini(g);
    }
    LT(cublasLtMatmulPreferenceDestroy, (pref));
    LT(cublasLtDestroy, (lt));
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFreeHost(h_loss));
    CHECK(cudaFreeHost(h_params));
    return 0;
}
