/* SPDX-License-Identifier: MIT */
/*
 * driver_mixed: driver_loop's shape with everything else a driver-only
 * program does between two synchronisations: launches in the `extra` form
 * (a packed parameter buffer laid out with cuFuncGetParamInfo, as Triton
 * and CuPy launch) and through cuLaunchKernelEx with launch attributes,
 * memsets of 8 and 32-bit elements, an H2D copy from PAGEABLE memory that
 * the program overwrites right after the call (the driver takes the bytes
 * at call time), a host function, and a second
 * stream ordered by events both ways (record on one, wait on the other).
 * 40 iterations; prints both streams' sums every iteration.
 */
#include "driver_scenario.h"

#define N 4096

static CUfunction f_fill, f_axpy, f_scale, f_add_step, f_combine, f_reduce;

/* One launch in the extra form: the arguments packed at cuFuncGetParamInfo's offsets. */
static void launch_extra(CUfunction f, int n, void **args, unsigned nargs, CUstream s)
{
    unsigned char buf[64];
    size_t used = 0;
    memset(buf, 0, sizeof buf);
    for (unsigned i = 0; i < nargs; i++) {
        size_t off = 0, size = 0;
        CU(cuFuncGetParamInfo(f, i, &off, &size));
        if (off + size > sizeof buf)
            return;
        memcpy(buf + off, args[i], size);
        used = off + size;
    }
    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &used, CU_LAUNCH_PARAM_END};
    CU(cuLaunchKernel(f, dscen_blocks(n), 1, 1, 256, 1, 1, 0, s, NULL, extra));
}

/* Host function: counts how often it ran and remembers the iteration it saw last. */
struct tally {
    int runs;
    int last_seen;
    int iteration;  /* written by the host before the call */
};

/* Runs on the stream, in order: reads what the host wrote before queueing it. */
static void host_tally(void *user)
{
    struct tally *t = user;
    t->runs++;
    t->last_seen = t->iteration;
}

int main(void)
{
    dscen_begin("driver_mixed");
    f_fill = dscen_fn("k_fill");
    f_axpy = dscen_fn("k_axpy");
    f_scale = dscen_fn("k_scale");
    f_add_step = dscen_fn("k_add_step");
    f_combine = dscen_fn("k_combine");
    f_reduce = dscen_fn("k_reduce_sum");
    CUstream s, s2;
    CUevent ready, done;
    CU(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CU(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
    CU(cuEventCreate(&ready, CU_EVENT_DISABLE_TIMING));
    CU(cuEventCreate(&done, CU_EVENT_DISABLE_TIMING));

    CUdeviceptr x = dscen_floats(N), y = dscen_floats(N), z = dscen_floats(N), in = dscen_floats(N);
    CUdeviceptr w = dscen_floats(N), sums = dscen_floats(2);
    float *pinned = NULL, *page = malloc(N * sizeof(float));
    CU(cuMemAllocHost((void **)&pinned, 2 * sizeof(float)));
    struct tally tally = {0, -1, 0};
    int n = N;
    CU(cuMemsetD32Async(x, 0x3f800000u, N, s));    /* x = 1.0f */
    CU(cuMemsetD8Async(y, 0, N * sizeof(float), s)); /* y = 0.0f */
    for (int it = 0; it < 40; it++) {
        for (int i = 0; i < N; i++)
            page[i] = (float)((i * 5 + it * 11) % 97) * 0.125f;
        CU(cuMemcpyHtoDAsync(in, page, N * sizeof(float), s));
        memset(page, 0xff, N * sizeof(float)); /* legal at once: the bytes were taken */
        CU(cuMemsetD8Async(z, 0, N * sizeof(float), s));
        for (int k = 0; k < 12; k++) {
            float a = 0.25f + 0.0625f * (float)((it + k) % 5), f = 0.75f, step_f = 0.0625f;
            int step = it * 12 + k;
            void *axpy[] = {&a, &in, &y, &n}, *scale[] = {&y, &f, &n}, *add[] = {&x, &step_f, &step, &n},
                 *comb[] = {&x, &y, &z, &n};
            switch (k % 4) {
            case 0: launch_extra(f_axpy, N, axpy, 4, s); break;
            case 1: dscen_launch(f_scale, N, scale, s); break;
            case 2: launch_extra(f_add_step, N, add, 4, s); break;
            default: dscen_launch(f_combine, N, comb, s); break;
            }
        }
        tally.iteration = it;
        CU(cuLaunchHostFunc(s, host_tally, &tally));
        /* The second stream reads x and y once s has written them; s waits until it has. */
        CU(cuEventRecord(ready, s));
        CU(cuStreamWaitEvent(s2, ready, 0));
        void *comb2[] = {&y, &x, &w, &n};
        /* Through cuLaunchKernelEx, with attributes a graph's kernel node keeps (a priority, a 1x1x1 cluster). */
        CUlaunchAttribute attrs[2] = {{.id = CU_LAUNCH_ATTRIBUTE_PRIORITY}, {.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION}};
        attrs[0].value.priority = 0;
        attrs[1].value.clusterDim.x = attrs[1].value.clusterDim.y = attrs[1].value.clusterDim.z = 1;
        CUlaunchConfig config = {.gridDimX = (unsigned)dscen_blocks(N), .gridDimY = 1, .gridDimZ = 1, .blockDimX = 256,
                                 .blockDimY = 1, .blockDimZ = 1, .hStream = s2, .attrs = attrs, .numAttrs = 2};
        CU(cuLaunchKernelEx(&config, f_combine, comb2, NULL));
        CUdeviceptr sum1 = sums + sizeof(float);
        void *red2[] = {&w, &sum1, &n};
        CU(cuLaunchKernel(f_reduce, 1, 1, 1, REDUCE_THREADS, 1, 1, 0, s2, red2, NULL));
        CU(cuEventRecord(done, s2));
        CU(cuStreamWaitEvent(s, done, 0));
        void *red[] = {&z, &sums, &n};
        CU(cuLaunchKernel(f_reduce, 1, 1, 1, REDUCE_THREADS, 1, 1, 0, s, red, NULL));
        CU(cuMemcpyDtoHAsync(pinned, sums, 2 * sizeof(float), s));
        CU(cuStreamSynchronize(s));
        printf("%2d: sum %08x second %08x host function ran %d (saw %d)\n", it, dscen_bits(pinned[0]),
               dscen_bits(pinned[1]), tally.runs, tally.last_seen);
    }
    dscen_show("x", x, N);
    dscen_show("y", y, N);
    dscen_show("w", w, N);
    free(page);
    CU(cuMemFreeHost(pinned));
    CU(cuEventDestroy(ready));
    CU(cuEventDestroy(done));
    CU(cuStreamDestroy(s));
    CU(cuStreamDestroy(s2));
    return dscen_end();
}
