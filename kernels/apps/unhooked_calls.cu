/* SPDX-License-Identifier: MIT */
/*
 * unhooked_calls: runtime functions the shim does not hook, between the
 * launches of a loop.  The runtime makes their work through the driver,
 * where the shim sees it as a call of the runtime's own: a boundary before
 * which the launches held back are submitted (design.md, "Runtime
 * functions the shim does not hook").  Each iteration, on one non-blocking
 * stream, runs six pairs of launches with one of these between two pairs:
 *
 *   cudaMemcpy2DToArrayAsync, cudaMemcpy2DFromArrayAsync (a round trip
 *   through a CUDA array), cudaMemPrefetchAsync (managed memory),
 *   cudaMallocFromPoolAsync (a block that the next pair uses and
 *   cudaFreeAsync returns), cudaMemcpy3DPeerAsync (on one device);
 *
 * then a stream sync.  Every eighth iteration one of them, each in turn,
 * comes one launch earlier, inside a pair: a replay of the pair is then cut
 * short after its first launch, which the shim submits from inside the
 * runtime's call.  Every kernel reads what the one before it wrote, so a
 * launch held back past one of these calls changes the result.
 *
 *     unhooked_calls [ITERS]      (default 80: each call early twice)
 *
 * stdout: the buffers' checksums every 8 iterations and at the end, the
 * same with and without the shim.  Exit 0, 1 on a CUDA error, 77 without
 * a GPU.
 */
#include "common.h"

#define N 1024
#define WIDTH 64 /* the array: WIDTH x (N / WIDTH) floats */

/* dst = dst / 2 + src * a, element by element: each launch depends on the last. */
__global__ void blend(float *dst, const float *src, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        dst[i] = dst[i] * 0.5f + src[i] * a;
}

/* dst = src. */
__global__ void copy(float *dst, const float *src, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        dst[i] = src[i];
}

static void blend_on(float *dst, const float *src, float a, cudaStream_t s)
{
    blend<<<(N + 255) / 256, 256, 0, s>>>(dst, src, a, N);
    CHECK_LAUNCH();
}

/* What the loop works on. */
struct buffers {
    float *x, *y, *z, *m; /* m: managed */
    cudaArray_t array;
    cudaMemPool_t pool;
    cudaStream_t s;
};

/* The unhooked call of place k (0-4) of an iteration. */
static void unhooked(int k, struct buffers *b, float **tmp)
{
    cudaStream_t s = b->s;
    size_t row = WIDTH * sizeof(float), rows = N / WIDTH;
    switch (k) {
    case 0:
        CHECK(cudaMemcpy2DToArrayAsync(b->array, 0, 0, b->y, row, row, rows, cudaMemcpyDeviceToDevice, s));
        break;
    case 1:
        CHECK(cudaMemcpy2DFromArrayAsync(b->z, row, b->array, 0, 0, row, rows, cudaMemcpyDeviceToDevice, s));
        break;
    case 2: {
        struct cudaMemLocation device = {.type = cudaMemLocationTypeDevice, .id = 0};
        CHECK(cudaMemPrefetchAsync(b->m, N * sizeof(float), device, 0, s));
        break;
    }
    case 3:
        CHECK(cudaMallocFromPoolAsync((void **)tmp, N * sizeof(float), b->pool, s));
        break;
    default: {
        struct cudaMemcpy3DPeerParms p = {};
        p.srcPtr = make_cudaPitchedPtr(b->x, N * sizeof(float), N, 1);
        p.dstPtr = make_cudaPitchedPtr(b->z, N * sizeof(float), N, 1);
        p.srcDevice = p.dstDevice = 0;
        p.extent = make_cudaExtent(N * sizeof(float), 1, 1);
        CHECK(cudaMemcpy3DPeerAsync(&p, s));
        break;
    }
    }
}

/* The first or second launch of pair k: each reads what the last wrote. */
static void pair_launch(int k, int second, struct buffers *b, float *tmp)
{
    cudaStream_t s = b->s;
    switch (k) {
    case 0:
        second ? blend_on(b->y, b->x, 0.125f, s) : blend_on(b->x, b->y, 0.25f, s);
        break;
    case 1:
        second ? blend_on(b->y, b->x, 0.25f, s) : blend_on(b->x, b->m, 0.0625f, s);
        break;
    case 2:
        second ? blend_on(b->m, b->x, 0.25f, s) : blend_on(b->x, b->z, 0.25f, s);
        break;
    case 3:
        second ? blend_on(b->x, b->y, 0.125f, s) : blend_on(b->y, b->m, 0.25f, s);
        break;
    case 4:
        if (second) {
            blend_on(b->y, tmp, 0.25f, s);
        } else {
            copy<<<(N + 255) / 256, 256, 0, s>>>(tmp, b->x, N);
            CHECK_LAUNCH();
        }
        break;
    default:
        second ? blend_on(b->x, b->y, 0.25f, s) : blend_on(b->y, b->z, 0.25f, s);
        break;
    }
}

/* Prints the checksums of x, y, z and m, read after a sync. */
static void show(const char *when, struct buffers *b)
{
    static float host[N];
    const float *bufs[] = {b->x, b->y, b->z, b->m};
    const char *names = "xyzm";
    printf("%s:", when);
    for (int i = 0; i < 4; i++) {
        CHECK(cudaMemcpy(host, bufs[i], sizeof host, cudaMemcpyDeviceToHost));
        printf(" %c=%016llx", names[i], (unsigned long long)fnv1a(host, sizeof host));
    }
    printf("\n");
}

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 80;
    require_gpu();
    struct buffers b;
    CHECK(cudaStreamCreateWithFlags(&b.s, cudaStreamNonBlocking));
    CHECK(cudaMalloc(&b.x, N * sizeof(float)));
    CHECK(cudaMalloc(&b.y, N * sizeof(float)));
    CHECK(cudaMalloc(&b.z, N * sizeof(float)));
    CHECK(cudaMallocManaged(&b.m, N * sizeof(float)));
    struct cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
    CHECK(cudaMallocArray(&b.array, &desc, WIDTH, N / WIDTH));
    CHECK(cudaDeviceGetDefaultMemPool(&b.pool, 0));
    static float start[N];
    for (int i = 0; i < N; i++)
        start[i] = (float)(i % 97) / 128.0f;
    CHECK(cudaMemcpy(b.x, start, sizeof start, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(b.y, start, sizeof start, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(b.z, 0, sizeof start));
    for (int i = 0; i < N; i++)
        b.m[i] = (float)(i % 13) / 16.0f;
    CHECK(cudaDeviceSynchronize());

    for (int it = 0; it < iters; it++) {
        /* The unhooked call that comes one launch earlier, inside the pair before it (-1: none). */
        int early = it % 8 == 7 ? it / 8 % 5 : -1;
        float *tmp = NULL;
        for (int k = 0; k < 6; k++) {
            pair_launch(k, 0, &b, tmp);
            if (k == early)
                unhooked(k, &b, &tmp);
            pair_launch(k, 1, &b, tmp);
            if (k != early && k < 5)
                unhooked(k, &b, &tmp);
            if (k == 4)
                CHECK(cudaFreeAsync(tmp, b.s));
        }
        CHECK(cudaStreamSynchronize(b.s));
        if (it % 8 == 7) {
            char when[32];
            snprintf(when, sizeof when, "iteration %d", it + 1);
            show(when, &b);
        }
    }
    show("end", &b);
    CHECK(cudaFreeArray(b.array));
    CHECK(cudaFree(b.m));
    CHECK(cudaFree(b.z));
    CHECK(cudaFree(b.y));
    CHECK(cudaFree(b.x));
    CHECK(cudaStreamDestroy(b.s));
    return 0;
}
