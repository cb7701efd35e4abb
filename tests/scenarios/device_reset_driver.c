/* SPDX-License-Identifier: MIT */
/*
 * device_reset_driver: device_reset through the driver door (issue 24,
 * case 2), a program written against the driver API only
 * (driver_scenario.h), as one built with the static runtime reaches the GPU.
 *
 * A loop a shim replays as a graph: 12 iterations of axpy, scale and a step
 * kernel on a created stream, a reduction, an async copy of the sum into
 * pinned memory and cuStreamSynchronize, the sum printed each iteration.
 * Then, by default, the buffers' hashes, the call count, and the release of
 * the primary context that dscen_open retained: the last release destroys
 * the context just before main returns. With the argument `middle`,
 * cuDevicePrimaryCtxReset comes between two such loops: the second retains
 * the context again, loads its module again and makes its stream and
 * buffers again (all died with the context).
 *
 * stdout is left fully buffered when redirected: a crash at exit loses what
 * was printed. On stderr, a line as the context is reset or released
 * (tests/standin/lifetimes.sh checks that a graph was replayed before it).
 */
#include <stdbool.h>

#include "driver_scenario.h"

#define N 4096
#define ITERATIONS 12

static CUfunction f_fill, f_axpy, f_scale, f_add_step, f_reduce;

/* The module's kernels (again after a reset: the module died with the context). */
static void find_kernels(void)
{
    f_fill = dscen_fn("k_fill");
    f_axpy = dscen_fn("k_axpy");
    f_scale = dscen_fn("k_scale");
    f_add_step = dscen_fn("k_add_step");
    f_reduce = dscen_fn("k_reduce_sum");
}

/* One launch of f in blocks of 256 threads over n elements. */
static void launch(CUfunction f, int n, void **args, CUstream s)
{
    CU(cuLaunchKernel(f, dscen_blocks(n), 1, 1, 256, 1, 1, 0, s, args, NULL));
}

/* A stream and buffers, x = 1, y = 0, then ITERATIONS iterations of axpy by factor, each ended by a sync and its
 * sum printed. */
static void loop(const char *label, float factor)
{
    CUstream s = NULL;
    CU(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CUdeviceptr x = dscen_floats(N), y = dscen_floats(N), sum = dscen_floats(1);
    float *host = NULL;
    CU(cuMemAllocHost((void **)&host, sizeof(float)));
    int n = N;
    float one = 1.0f, zero = 0.0f;
    void *fx[] = {&x, &one, &n}, *fy[] = {&y, &zero, &n};
    launch(f_fill, N, fx, s);
    launch(f_fill, N, fy, s);
    for (int it = 0; it < ITERATIONS; it++) {
        float a = factor, f = 0.875f, step_f = 0.125f;
        int step = it;
        void *axpy[] = {&a, &x, &y, &n}, *scale[] = {&y, &f, &n}, *add[] = {&x, &step_f, &step, &n};
        void *red[] = {&y, &sum, &n};
        launch(f_axpy, N, axpy, s);
        launch(f_scale, N, scale, s);
        launch(f_add_step, N, add, s);
        CU(cuLaunchKernel(f_reduce, 1, 1, 1, REDUCE_THREADS, 1, 1, 0, s, red, NULL));
        CU(cuMemcpyDtoHAsync(host, sum, sizeof(float), s));
        CU(cuStreamSynchronize(s));
        printf("%s %2d: sum %08x\n", label, it, dscen_bits(*host));
    }
    dscen_show("x", x, N);
    dscen_show("y", y, N);
}

/* The loop, then the last release before returning; `middle`: loop, cuDevicePrimaryCtxReset, loop. */
int main(int argc, char **argv)
{
    bool middle = argc > 1 && strcmp(argv[1], "middle") == 0;
    dscen_open(middle ? "device_reset_driver middle" : "device_reset_driver");
    find_kernels();
    loop("before", 0.5f);
    if (middle) {
        CUcontext ctx = NULL;
        fprintf(stderr, "device_reset_driver: cuDevicePrimaryCtxReset in the middle\n");
        CU(cuDevicePrimaryCtxReset(0));
        CU(cuDevicePrimaryCtxRetain(&ctx, 0));
        CU(cuCtxSetCurrent(ctx));
        const char *path = getenv("SCENARIO_MODULE");
        if (path)
            CU(cuModuleLoad(&dscen_module, path));
        else
            CU(cuModuleLoadData(&dscen_module, "stand-in module"));
        find_kernels();
        loop("after", 0.625f);
    }
    int status = dscen_end();
    if (!middle) {
        fprintf(stderr, "device_reset_driver: releasing the primary context before returning from main\n");
        CU(cuDevicePrimaryCtxRelease(0));
    }
    return status;
}
