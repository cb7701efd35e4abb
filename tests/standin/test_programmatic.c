/* SPDX-License-Identifier: MIT */
/*
 * tests/standin/test_programmatic.c: the stand-in runs a programmatic
 * dependency as what it is (docs/standin.md, "Programmatic dependent
 * launch"): a dependent kernel may start before its primary, and only its
 * twin's grid-dependency wait (standin_grid_dependency_sync) waits for the
 * primary.  Each case runs ROUNDS rounds of: x = 0; the primary, k_fill,
 * writes x; the dependent copies x into y; y is read back.  A dependent
 * that copies without waiting reads 0 in some rounds and the primary's
 * value in others (the seeded scheduler picks which starts first), under a
 * programmatic dependent launch through cuLaunchKernelEx or
 * cudaLaunchKernelExC and under a programmatic graph edge; one that waits
 * reads the primary's value in every round, and so does the one that
 * does not wait under a full dependency (an ordinary launch, a launch
 * after a memset, a full graph edge).  What follows the dependent on its
 * stream follows the primary too; a chain of dependents that wait reads
 * the first primary's value at its end.
 */
#include <stdbool.h>
#include <string.h>

#include <cuda.h>

#include "../../kernels/cpu/cpu_kernel.h"
#include "../check.h"

#define N 600
#define ROUNDS 40

/* y[i] = x[i], without waiting for its primary; its own dependents may start at once (which changes nothing) */
void copy_unwaited(const float *x, float *y, int n)
{
    CPU_BLOCK_BEGIN;
    standin_trigger_launch_completion();
    FOR_EACH_THREAD {
        int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
        if (i < n)
            y[i] = x[i];
    }
}
CPU_KERNEL_3(copy_unwaited, const float *, float *, int)

/* y[i] = x[i], once its primary has completed */
void copy_waited(const float *x, float *y, int n)
{
    CPU_BLOCK_BEGIN;
    standin_grid_dependency_sync();
    FOR_EACH_THREAD {
        int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
        if (i < n)
            y[i] = x[i];
    }
}
CPU_KERNEL_3(copy_waited, const float *, float *, int)

/* Rounds whose buffer held the primary's value everywhere, zero everywhere, or anything else. */
struct tally {
    int fresh, stale, other;
};

static CUstream stream;
static CUdeviceptr x, y, z;

/* How a case launches its dependent. */
enum launch_how {
    EX_PROGRAMMATIC, /* cuLaunchKernelEx with CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION */
    EX_PLAIN,        /* cuLaunchKernelEx without attributes */
    EXC_PROGRAMMATIC /* cudaLaunchKernelExC with cudaLaunchAttributeProgrammaticStreamSerialization */
};

/* Counts buffer buf (read back after a stream sync) as fresh (all v), stale (all 0) or other into t. */
static void tally_buffer(CUdeviceptr buf, float v, struct tally *t)
{
    static float host[N];
    CHECK(cuStreamSynchronize(stream) == CUDA_SUCCESS);
    CHECK(cuMemcpyDtoH(host, buf, sizeof host) == CUDA_SUCCESS);
    int fresh = 0, stale = 0;
    for (int i = 0; i < N; i++) {
        fresh += host[i] == v;
        stale += host[i] == 0.0f;
    }
    t->fresh += fresh == N;
    t->stale += stale == N;
    t->other += fresh != N && stale != N;
}

/* x = v on the stream through a kernel: the primary. */
static void fill(CUdeviceptr buf, float v)
{
    int n = N;
    void *args[] = {&buf, &v, &n};
    CHECK(cuLaunchKernel((CUfunction)(void *)k_fill, (N + 255) / 256, 1, 1, 256, 1, 1, 0, stream, args, NULL) ==
          CUDA_SUCCESS);
}

/* Launches copy (from src into dst) on the stream as how says. */
static void launch_copy(void (*copy)(const float *, float *, int), CUdeviceptr src, CUdeviceptr dst,
                        enum launch_how how)
{
    int n = N;
    void *args[] = {&src, &dst, &n};
    if (how == EXC_PROGRAMMATIC) {
        cudaLaunchAttribute attr;
        memset(&attr, 0, sizeof attr);
        attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
        attr.val.programmaticStreamSerializationAllowed = 1;
        cudaLaunchConfig_t c = {{(N + 127) / 128, 1, 1}, {128, 1, 1}, 0, (cudaStream_t)stream, &attr, 1};
        CHECK(cudaLaunchKernelExC(&c, (const void *)copy, args) == cudaSuccess);
        return;
    }
    CUlaunchAttribute attr;
    memset(&attr, 0, sizeof attr);
    attr.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attr.value.programmaticStreamSerializationAllowed = 1;
    CUlaunchConfig c = {(N + 127) / 128, 1, 1, 128, 1, 1, 0, stream, &attr, how == EX_PROGRAMMATIC ? 1 : 0};
    CHECK(cuLaunchKernelEx(&c, (CUfunction)(void *)copy, args, NULL) == CUDA_SUCCESS);
}

/* x = 0, then, after it, the round's primary (a kernel writing v, or a memset if after_memset) and the copy. */
static void stream_round(void (*copy)(const float *, float *, int), enum launch_how how, float v, bool after_memset)
{
    CHECK(cuMemsetD32Async(x, 0, N, stream) == CUDA_SUCCESS);
    CHECK(cuMemsetD32Async(y, 0, N, stream) == CUDA_SUCCESS);
    CHECK(cuStreamSynchronize(stream) == CUDA_SUCCESS);
    if (after_memset) {
        unsigned bits;
        memcpy(&bits, &v, sizeof bits);
        CHECK(cuMemsetD32Async(x, bits, N, stream) == CUDA_SUCCESS);
    } else {
        fill(x, v);
    }
    launch_copy(copy, x, y, how);
}

/*
 * On a stream: a programmatic dependent launch that does not wait reads
 * stale and fresh data in different rounds, through the driver and the
 * runtime, and what follows it on the stream (a copy of x) sees the
 * primary's value; one that waits always reads fresh; so does one that
 * does not wait after an ordinary launch, or after a memset (no kernel:
 * a full dependency).
 */
static void test_stream(void)
{
    struct tally unwaited = {0}, unwaited_exc = {0}, after = {0}, waited = {0}, plain = {0}, memset_first = {0};
    for (int r = 0; r < ROUNDS; r++) {
        float v = (float)(r + 1);
        stream_round(copy_unwaited, EX_PROGRAMMATIC, v, false);
        CHECK(cuMemcpyDtoDAsync(z, x, N * sizeof(float), stream) == CUDA_SUCCESS);
        tally_buffer(y, v, &unwaited);
        tally_buffer(z, v, &after);
        stream_round(copy_unwaited, EXC_PROGRAMMATIC, v, false);
        tally_buffer(y, v, &unwaited_exc);
        stream_round(copy_waited, EX_PROGRAMMATIC, v, false);
        tally_buffer(y, v, &waited);
        stream_round(copy_unwaited, EX_PLAIN, v, false);
        tally_buffer(y, v, &plain);
        stream_round(copy_unwaited, EX_PROGRAMMATIC, v, true);
        tally_buffer(y, v, &memset_first);
    }
    printf("stream: a programmatic dependent launch that does not wait read its primary's output in %d of %d "
           "rounds (cudaLaunchKernelExC: %d), what was there before in %d (%d)\n",
           unwaited.fresh, ROUNDS, unwaited_exc.fresh, unwaited.stale, unwaited_exc.stale);
    CHECK(unwaited.stale > 0 && unwaited.fresh > 0 && unwaited.other == 0);
    CHECK(unwaited_exc.stale > 0 && unwaited_exc.fresh > 0 && unwaited_exc.other == 0);
    CHECK(after.fresh == ROUNDS);
    CHECK(waited.fresh == ROUNDS);
    CHECK(plain.fresh == ROUNDS);
    CHECK(memset_first.fresh == ROUNDS);
}

/* Adds to g a kernel node of func over N elements with args, depending on nothing yet. */
static CUgraphNode kernel_node(CUgraph g, const void *func, void **args)
{
    CUDA_KERNEL_NODE_PARAMS kp = {.func = (CUfunction)(void *)func, .gridDimX = (N + 255) / 256, .gridDimY = 1,
                                  .gridDimZ = 1, .blockDimX = 256, .blockDimY = 1, .blockDimZ = 1,
                                  .kernelParams = args};
    CUgraphNode node = NULL;
    CHECK(cuGraphAddKernelNode(&node, g, NULL, 0, &kp) == CUDA_SUCCESS);
    return node;
}

/* A graph of two kernel nodes: k_fill writing x = 5, then copy from x into y, over a programmatic edge or not. */
static CUgraphExec fill_then_copy(void (*copy)(const float *, float *, int), bool programmatic)
{
    CUgraph g = NULL;
    int n = N;
    float v = 5.0f;
    void *fill_args[] = {&x, &v, &n}, *copy_args[] = {&x, &y, &n};
    CHECK(cuGraphCreate(&g, 0) == CUDA_SUCCESS);
    CUgraphNode primary = kernel_node(g, (const void *)k_fill, fill_args);
    CUgraphNode dependent = kernel_node(g, (const void *)copy, copy_args);
    CUgraphEdgeData edge;
    memset(&edge, 0, sizeof edge);
    edge.from_port = CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC;
    edge.type = CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC;
    CHECK(cuGraphAddDependencies_v2(g, &primary, &dependent, programmatic ? &edge : NULL, 1) == CUDA_SUCCESS);
    CUgraphExec e = NULL;
    CHECK(cuGraphInstantiateWithFlags(&e, g, 0) == CUDA_SUCCESS);
    CHECK(cuGraphDestroy(g) == CUDA_SUCCESS);
    return e;
}

/* ROUNDS launches of e, x and y zeroed before each, into t. */
static void graph_rounds(CUgraphExec e, struct tally *t)
{
    for (int r = 0; r < ROUNDS; r++) {
        CHECK(cuMemsetD32Async(x, 0, N, stream) == CUDA_SUCCESS);
        CHECK(cuMemsetD32Async(y, 0, N, stream) == CUDA_SUCCESS);
        CHECK(cuGraphLaunch(e, stream) == CUDA_SUCCESS);
        tally_buffer(y, 5.0f, t);
    }
    CHECK(cuGraphExecDestroy(e) == CUDA_SUCCESS);
}

/* In a graph: over a programmatic edge, a dependent that does not wait reads stale and fresh data; one that waits, or
 * one that does not over a full edge, reads fresh. */
static void test_graph(void)
{
    struct tally unwaited = {0}, waited = {0}, full = {0};
    graph_rounds(fill_then_copy(copy_unwaited, true), &unwaited);
    graph_rounds(fill_then_copy(copy_waited, true), &waited);
    graph_rounds(fill_then_copy(copy_unwaited, false), &full);
    printf("graph: over a programmatic edge, a dependent that does not wait read its primary's output in %d of %d "
           "rounds, what was there before in %d\n",
           unwaited.fresh, ROUNDS, unwaited.stale);
    CHECK(unwaited.stale > 0 && unwaited.fresh > 0 && unwaited.other == 0);
    CHECK(waited.fresh == ROUNDS);
    CHECK(full.fresh == ROUNDS);
}

/* A chain of programmatic dependent launches that wait (k_fill, copy x to y, copy y to z): z gets the value. */
static void test_chain(void)
{
    struct tally chain = {0};
    for (int r = 0; r < ROUNDS; r++) {
        float v = (float)(r + 1);
        stream_round(copy_waited, EX_PROGRAMMATIC, v, false);
        launch_copy(copy_waited, y, z, EX_PROGRAMMATIC);
        tally_buffer(z, v, &chain);
    }
    CHECK(chain.fresh == ROUNDS);
}

int main(void)
{
    CHECK(cuInit(0) == CUDA_SUCCESS);
    CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS);
    CHECK(cuMemAlloc(&x, N * sizeof(float)) == CUDA_SUCCESS);
    CHECK(cuMemAlloc(&y, N * sizeof(float)) == CUDA_SUCCESS);
    CHECK(cuMemAlloc(&z, N * sizeof(float)) == CUDA_SUCCESS);
    test_stream();
    test_graph();
    test_chain();
    return check_result("test_programmatic");
}
