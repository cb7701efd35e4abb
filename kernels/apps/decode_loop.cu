/* SPDX-License-Identifier: MIT */
/*
 * decode_loop: a decode-like loop (issue 25): a tiny 4-layer transformer
 * (width 256, 4 heads of 64, MLP 1024, vocabulary 4096, fp32, weights
 * from a fixed hash) generating one token an iteration, greedy, batch 1,
 * the way an LLM server's decode step looks to the GPU: its attention
 * covers one more key every iteration, so some launches' grids and some
 * copies' and memsets' sizes grow by one step each iteration.  Iteration t
 * (position t, n = t + 1 keys), all on one cudaStreamCreateWithFlags
 * (non-blocking) stream:
 *
 *     x = E[token t]                          k_embed<<<1, 256>>>
 *     per layer (x4):
 *       xn = rmsnorm(x)                       k_rmsnorm<<<1, 256>>>
 *       q, k, v = Wqkv xn                     k_matvec<<<96, 256>>>
 *       rotate q, k by t; K[t], V[t] = k, v   k_rope_store<<<1, 128>>> (t by value)
 *       Kc = K[0..n)                          cudaMemcpyAsync, n x 1 KiB (device to device: grows)
 *       scores[0..n) = 0                      cudaMemsetAsync, n x 16 bytes (grows)
 *       scores = q . Kc / 8                   k_scores<<<n, 128>>> (one block a key: the grid grows)
 *       p = softmax(scores)                   k_softmax<<<4, 256>>> (n by value)
 *       att = p V                             k_attn_out<<<4, 64>>> (n by value)
 *       x += Wo att                           k_matvec<<<32, 256>>>
 *       xn = rmsnorm(x)                       k_rmsnorm<<<1, 256>>>
 *       h = gelu(Wup xn)                      k_matvec<<<128, 256>>>
 *       x += Wdown h                          k_matvec<<<32, 256>>>
 *     logits = E rmsnorm(x)                   k_rmsnorm, k_matvec<<<512, 256>>>
 *     token t+1 = argmax(logits)              k_argmax<<<1, 1024>>> (into the device's token list)
 *     tokens 0..t+1 to pinned host            cudaMemcpyAsync, (t + 2) x 4 bytes (grows)
 *     cudaStreamSynchronize; the host reads token t+1
 *
 * 53 calls an iteration, one host sync.
 *
 *     decode_loop.gpu [eager|graph] [TOKENS]      (default eager 400)
 *
 * eager: the calls above, one by one (run it with and without the shim).
 * graph: as llama.cpp does: after 2 eager iterations (its kernels loaded),
 * every iteration captured anew
 * (cudaStreamBeginCapture, relaxed mode) into a cudaGraph_t, then
 * cudaGraphExecUpdate of the one executable graph from it, instantiated
 * again only when the update fails, launched, synced.  stderr says how many
 * updates succeeded and how many instantiations there were.
 *
 * Every sum is over a fixed order (warp shuffles, shared-memory trees, one
 * thread's loop): the tokens are bit-wise the same on every run of one
 * GPU, in both modes.  stdout: the generated tokens (16 a line), checksums
 * of the final logits and hidden state, "verify tokens ok" (every token in
 * the vocabulary): byte-comparable with and without the shim and between
 * the modes.  stderr: the steady-state loop's time after 16 warm-up
 * iterations: "median_us X" (median iteration) and "us_per_iter X" (the
 * loop's wall time over its iterations).  Exit status: 0; 1 a failed call
 * or a wrong result; 77 no GPU.  Built by make gpu-programs
 * (decode_loop.gpu, decode_loop.static).
 */
#include "common.h"

#include <algorithm>
#include <math.h>
#include <string.h>
#include <time.h>
#include <vector>

#define DL_LAYERS 4
#define DL_DIM 256
#define DL_HEADS 4
#define DL_HEAD_DIM (DL_DIM / DL_HEADS)
#define DL_FF 1024
#define DL_VOCAB 4096
#define DL_WARMUP 16
#define DL_GRAPH_AFTER 2 /* graph mode: eager iterations before the first capture (kernels loaded) */
#define DL_BOS 1

/* A warp's sum of v, the same order on every run (xor butterfly). */
__device__ static float warp_sum(float v)
{
    for (int o = 16; o > 0; o /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

/* x = E[tokens[t]] */
__global__ void k_embed(float *x, const float *e, const int *tokens, int t)
{
    x[threadIdx.x] = e[(size_t)tokens[t] * DL_DIM + threadIdx.x];
}

/* xn = x / rms(x) * g (one block of DL_DIM threads) */
__global__ void k_rmsnorm(float *xn, const float *x, const float *g)
{
    __shared__ float s[DL_DIM];
    const float v = x[threadIdx.x];
    s[threadIdx.x] = v * v;
    for (int w = DL_DIM / 2; w > 0; w /= 2) {
        __syncthreads();
        if ((int)threadIdx.x < w)
            s[threadIdx.x] += s[threadIdx.x + w];
    }
    __syncthreads();
    xn[threadIdx.x] = v * rsqrtf(s[0] / DL_DIM + 1e-5f) * g[threadIdx.x];
}

/* y[r] = (accumulate ? y[r] : 0) + act(W[r] . x), one warp a row of W (rows x cols, row-major); act: gelu if asked */
__global__ void k_matvec(float *y, const float *w, const float *x, int rows, int cols, int accumulate, int gelu)
{
    const int r = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;
    if (r >= rows)
        return;
    float acc = 0.0f;
    for (int c = lane; c < cols; c += 32)
        acc += w[(size_t)r * cols + c] * x[c];
    acc = warp_sum(acc);
    if (lane != 0)
        return;
    if (gelu)
        acc = 0.5f * acc * (1.0f + tanhf(0.7978845608f * (acc + 0.044715f * acc * acc * acc)));
    y[r] = accumulate ? y[r] + acc : acc;
}

/* Rotates q and k (qkv's first two thirds) by position t, pair by pair; K[t] = k, V[t] = v. */
__global__ void k_rope_store(float *qkv, float *kcache, float *vcache, int t)
{
    const int i = threadIdx.x; /* the pair (2i, 2i+1) of DL_DIM / 2 */
    const float freq = powf(10000.0f, -(float)((2 * i) % DL_HEAD_DIM) / DL_HEAD_DIM);
    float sn, cs;
    sincosf((float)t * freq, &sn, &cs);
    for (int part = 0; part < 2; part++) {
        float *v = qkv + part * DL_DIM + 2 * i;
        const float a = v[0], b = v[1];
        v[0] = a * cs - b * sn;
        v[1] = a * sn + b * cs;
    }
    float *k = kcache + (size_t)t * DL_DIM, *vv = vcache + (size_t)t * DL_DIM;
    k[2 * i] = qkv[DL_DIM + 2 * i];
    k[2 * i + 1] = qkv[DL_DIM + 2 * i + 1];
    vv[2 * i] = qkv[2 * DL_DIM + 2 * i];
    vv[2 * i + 1] = qkv[2 * DL_DIM + 2 * i + 1];
}

/* scores[j][h] = q_h . Kc[j]_h / sqrt(head dim): block j, warp h */
__global__ void k_scores(float *scores, const float *q, const float *kc)
{
    const int j = blockIdx.x, h = threadIdx.x / 32, lane = threadIdx.x % 32;
    const float *kj = kc + (size_t)j * DL_DIM + h * DL_HEAD_DIM;
    const float *qh = q + h * DL_HEAD_DIM;
    float acc = 0.0f;
    for (int c = lane; c < DL_HEAD_DIM; c += 32)
        acc += qh[c] * kj[c];
    acc = warp_sum(acc);
    if (lane == 0)
        scores[j * DL_HEADS + h] += acc * rsqrtf((float)DL_HEAD_DIM);
}

/* scores[.][h] = softmax over the n keys (block h; a fixed order) */
__global__ void k_softmax(float *scores, int n)
{
    __shared__ float s[256];
    const int h = blockIdx.x;
    float m = -INFINITY;
    for (int j = threadIdx.x; j < n; j += blockDim.x)
        m = fmaxf(m, scores[j * DL_HEADS + h]);
    s[threadIdx.x] = m;
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
        __syncthreads();
        if ((int)threadIdx.x < w)
            s[threadIdx.x] = fmaxf(s[threadIdx.x], s[threadIdx.x + w]);
    }
    __syncthreads();
    m = s[0];
    __syncthreads();
    float sum = 0.0f;
    for (int j = threadIdx.x; j < n; j += blockDim.x)
        sum += expf(scores[j * DL_HEADS + h] - m);
    s[threadIdx.x] = sum;
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
        __syncthreads();
        if ((int)threadIdx.x < w)
            s[threadIdx.x] += s[threadIdx.x + w];
    }
    __syncthreads();
    sum = s[0];
    for (int j = threadIdx.x; j < n; j += blockDim.x)
        scores[j * DL_HEADS + h] = expf(scores[j * DL_HEADS + h] - m) / sum;
}

/* att[h][i] = sum over the n keys of p[j][h] V[j][h][i] (block h, thread i; keys in order) */
__global__ void k_attn_out(float *att, const float *p, const float *vcache, int n)
{
    const int h = blockIdx.x, i = threadIdx.x;
    float acc = 0.0f;
    for (int j = 0; j < n; j++)
        acc += p[j * DL_HEADS + h] * vcache[(size_t)j * DL_DIM + h * DL_HEAD_DIM + i];
    att[h * DL_HEAD_DIM + i] = acc;
}

/* tokens[slot] = argmax of the logits (the lowest index among equals; one block of 1024) */
__global__ void k_argmax(int *tokens, const float *logits, int slot)
{
    __shared__ float best[1024];
    __shared__ int at[1024];
    float b = -INFINITY;
    int a = DL_VOCAB;
    for (int i = threadIdx.x; i < DL_VOCAB; i += blockDim.x)
        if (logits[i] > b) {
            b = logits[i];
            a = i;
        }
    best[threadIdx.x] = b;
    at[threadIdx.x] = a;
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
        __syncthreads();
        if ((int)threadIdx.x < w) {
            const float ob = best[threadIdx.x + w];
            const int oa = at[threadIdx.x + w];
            if (ob > best[threadIdx.x] || (ob == best[threadIdx.x] && oa < at[threadIdx.x])) {
                best[threadIdx.x] = ob;
                at[threadIdx.x] = oa;
            }
        }
    }
    __syncthreads();
    if (threadIdx.x == 0)
        tokens[slot] = at[0] < DL_VOCAB ? at[0] : 0;
}

/* One layer's weights and cache. */
struct layer {
    float *wqkv, *wo, *wup, *wdown, *g1, *g2, *kcache, *vcache;
};

/* The model on the device and its scratch buffers. */
struct model {
    layer l[DL_LAYERS];
    float *e, *gf, *x, *xn, *qkv, *kc, *scores, *att, *h, *logits;
    int *tokens;
    int max_ctx;
};

/* cudaMalloc'd floats from init_value, or all `fill` when scale is 0. */
static float *device_floats(size_t n, uint32_t salt, float scale, float fill)
{
    std::vector<float> h(n);
    for (size_t i = 0; i < n; i++)
        h[i] = scale == 0.0f ? fill : init_value(i, salt, scale);
    float *d;
    CHECK(cudaMalloc(&d, n * sizeof(float)));
    CHECK(cudaMemcpy(d, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    return d;
}

/* Blocks of 8 warps covering `rows` rows, one warp a row. */
static unsigned warp_rows(int rows)
{
    return (unsigned)((rows + 7) / 8);
}

/* Submits iteration t (position t, t + 1 keys) on stream s, ending with the token list's copy to h_tokens. */
static void submit_iteration(const model *md, int t, cudaStream_t s, int *h_tokens)
{
    const int n = t + 1;
    k_embed<<<1, DL_DIM, 0, s>>>(md->x, md->e, md->tokens, t);
    CHECK_LAUNCH();
    for (int i = 0; i < DL_LAYERS; i++) {
        const layer *ly = &md->l[i];
        k_rmsnorm<<<1, DL_DIM, 0, s>>>(md->xn, md->x, ly->g1);
        CHECK_LAUNCH();
        k_matvec<<<warp_rows(3 * DL_DIM), 256, 0, s>>>(md->qkv, ly->wqkv, md->xn, 3 * DL_DIM, DL_DIM, 0, 0);
        CHECK_LAUNCH();
        k_rope_store<<<1, DL_DIM / 2, 0, s>>>(md->qkv, ly->kcache, ly->vcache, t);
        CHECK_LAUNCH();
        CHECK(cudaMemcpyAsync(md->kc, ly->kcache, (size_t)n * DL_DIM * sizeof(float), cudaMemcpyDeviceToDevice, s));
        CHECK(cudaMemsetAsync(md->scores, 0, (size_t)n * DL_HEADS * sizeof(float), s));
        k_scores<<<n, 32 * DL_HEADS, 0, s>>>(md->scores, md->qkv, md->kc);
        CHECK_LAUNCH();
        k_softmax<<<DL_HEADS, 256, 0, s>>>(md->scores, n);
        CHECK_LAUNCH();
        k_attn_out<<<DL_HEADS, DL_HEAD_DIM, 0, s>>>(md->att, md->scores, ly->vcache, n);
        CHECK_LAUNCH();
        k_matvec<<<warp_rows(DL_DIM), 256, 0, s>>>(md->x, ly->wo, md->att, DL_DIM, DL_DIM, 1, 0);
        CHECK_LAUNCH();
        k_rmsnorm<<<1, DL_DIM, 0, s>>>(md->xn, md->x, ly->g2);
        CHECK_LAUNCH();
        k_matvec<<<warp_rows(DL_FF), 256, 0, s>>>(md->h, ly->wup, md->xn, DL_FF, DL_DIM, 0, 1);
        CHECK_LAUNCH();
        k_matvec<<<warp_rows(DL_DIM), 256, 0, s>>>(md->x, ly->wdown, md->h, DL_DIM, DL_FF, 1, 0);
        CHECK_LAUNCH();
    }
    k_rmsnorm<<<1, DL_DIM, 0, s>>>(md->xn, md->x, md->gf);
    CHECK_LAUNCH();
    k_matvec<<<warp_rows(DL_VOCAB), 256, 0, s>>>(md->logits, md->e, md->xn, DL_VOCAB, DL_DIM, 0, 0);
    CHECK_LAUNCH();
    k_argmax<<<1, 1024, 0, s>>>(md->tokens, md->logits, t + 1);
    CHECK_LAUNCH();
    CHECK(cudaMemcpyAsync(h_tokens, md->tokens, (size_t)(t + 2) * sizeof(int), cudaMemcpyDeviceToHost, s));
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "eager";
    const bool graph = strcmp(mode, "graph") == 0;
    char *end = NULL;
    const long tokens_arg = argc > 2 ? strtol(argv[2], &end, 10) : 400;
    if ((!graph && strcmp(mode, "eager") != 0) || (end != NULL && *end != '\0') || tokens_arg <= DL_WARMUP + 1 ||
        tokens_arg > 8192) {
        fprintf(stderr, "usage: decode_loop.gpu [eager|graph] [TOKENS (%d..8192)]\n", DL_WARMUP + 2);
        return 1;
    }
    const int iters = (int)tokens_arg;
    require_gpu();
    model md;
    md.max_ctx = iters + 1;
    for (int i = 0; i < DL_LAYERS; i++) {
        const uint32_t salt = 0x1000193u * (uint32_t)(i + 1);
        layer *ly = &md.l[i];
        ly->wqkv = device_floats((size_t)3 * DL_DIM * DL_DIM, salt ^ 0x01u, 2.0f / sqrtf((float)DL_DIM), 0.0f);
        ly->wo = device_floats((size_t)DL_DIM * DL_DIM, salt ^ 0x02u, 1.0f / sqrtf((float)DL_DIM), 0.0f);
        ly->wup = device_floats((size_t)DL_FF * DL_DIM, salt ^ 0x03u, 2.0f / sqrtf((float)DL_DIM), 0.0f);
        ly->wdown = device_floats((size_t)DL_DIM * DL_FF, salt ^ 0x04u, 1.0f / sqrtf((float)DL_FF), 0.0f);
        ly->g1 = device_floats(DL_DIM, 0, 0.0f, 1.0f);
        ly->g2 = device_floats(DL_DIM, 0, 0.0f, 1.0f);
        ly->kcache = device_floats((size_t)md.max_ctx * DL_DIM, 0, 0.0f, 0.0f);
        ly->vcache = device_floats((size_t)md.max_ctx * DL_DIM, 0, 0.0f, 0.0f);
    }
    md.e = device_floats((size_t)DL_VOCAB * DL_DIM, 0x9e3779b9u, 2.0f, 0.0f);
    md.gf = device_floats(DL_DIM, 0, 0.0f, 1.0f);
    md.x = device_floats(DL_DIM, 0, 0.0f, 0.0f);
    md.xn = device_floats(DL_DIM, 0, 0.0f, 0.0f);
    md.qkv = device_floats(3 * DL_DIM, 0, 0.0f, 0.0f);
    md.kc = device_floats((size_t)md.max_ctx * DL_DIM, 0, 0.0f, 0.0f);
    md.scores = device_floats((size_t)md.max_ctx * DL_HEADS, 0, 0.0f, 0.0f);
    md.att = device_floats(DL_DIM, 0, 0.0f, 0.0f);
    md.h = device_floats(DL_FF, 0, 0.0f, 0.0f);
    md.logits = device_floats(DL_VOCAB, 0, 0.0f, 0.0f);
    CHECK(cudaMalloc(&md.tokens, (size_t)(md.max_ctx + 1) * sizeof(int)));
    const int bos = DL_BOS;
    CHECK(cudaMemcpy(md.tokens, &bos, sizeof bos, cudaMemcpyHostToDevice));

    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    int *h_tokens;
    CHECK(cudaHostAlloc(&h_tokens, (size_t)(md.max_ctx + 1) * sizeof(int), cudaHostAllocDefault));
    std::vector<int> generated;
    std::vector<double> times;
    cudaGraphExec_t exec = NULL;
    int updates = 0, instantiations = 0;
    double loop_began = 0.0;
    for (int t = 0; t < iters; t++) {
        if (t == DL_WARMUP)
            loop_began = now_us();
        const double began = now_us();
        if (graph && t >= DL_GRAPH_AFTER) {
            cudaGraph_t g;
            CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
            submit_iteration(&md, t, s, h_tokens);
            CHECK(cudaStreamEndCapture(s, &g));
            if (exec != NULL) {
                cudaGraphExecUpdateResultInfo info;
                if (cudaGraphExecUpdate(exec, g, &info) == cudaSuccess) {
                    updates++;
                } else {
                    (void)cudaGetLastError(); /* the update's error is not the program's */
                    CHECK(cudaGraphExecDestroy(exec));
                    exec = NULL;
                }
            }
            if (exec == NULL) {
                CHECK(cudaGraphInstantiate(&exec, g, 0));
                instantiations++;
            }
            CHECK(cudaGraphDestroy(g));
            CHECK(cudaGraphLaunch(exec, s));
        } else {
            submit_iteration(&md, t, s, h_tokens);
        }
        CHECK(cudaStreamSynchronize(s));
        generated.push_back(h_tokens[t + 1]);
        if (t >= DL_WARMUP)
            times.push_back(now_us() - began);
    }
    const double loop_us = now_us() - loop_began;
    CHECK(cudaGetLastError());

    bool in_range = true;
    for (size_t i = 0; i < generated.size(); i += 16) {
        printf("tokens %zu:", i);
        for (size_t j = i; j < generated.size() && j < i + 16; j++) {
            printf(" %d", generated[j]);
            in_range = in_range && generated[j] >= 0 && generated[j] < DL_VOCAB;
        }
        printf("\n");
    }
    std::vector<float> logits(DL_VOCAB), x(DL_DIM);
    CHECK(cudaMemcpy(logits.data(), md.logits, DL_VOCAB * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(x.data(), md.x, DL_DIM * sizeof(float), cudaMemcpyDeviceToHost));
    print_checksum("tokens", generated.data(), generated.size() * sizeof(int));
    print_checksum("logits", logits.data(), logits.size() * sizeof(float));
    print_checksum("x", x.data(), x.size() * sizeof(float));
    bool finite = true;
    for (float v : logits)
        finite = finite && isfinite(v);
    if (!in_range || !finite) {
        printf("verify tokens FAILED\n");
        fprintf(stderr, "decode_loop: a token out of the vocabulary, or logits not finite\n");
        return 1;
    }
    printf("verify tokens ok\n");
    if (graph)
        fprintf(stderr, "decode_loop: graph: %d executable-graph updates succeeded, %d instantiations\n", updates,
                instantiations);
    std::sort(times.begin(), times.end());
    fprintf(stderr, "median_us %.1f\n", times[times.size() / 2]);
    fprintf(stderr, "us_per_iter %.2f\n", loop_us / (iters - DL_WARMUP));

    if (exec != NULL)
        CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFreeHost(h_tokens));
    return 0;
}
