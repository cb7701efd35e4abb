/* SPDX-License-Identifier: MIT */
/*
 * module_unload: a program that loads its kernels at run time, as Triton,
 * XLA or torch.compile do, and unloads and loads them again while it runs
 * (issue 24, case 1). Written against the driver API only (driver_scenario.h).
 *
 * Five phases of 10 iterations each (4 launches, a reduction, an async copy
 * of the sum into pinned memory, cuStreamSynchronize: a shim learns such a
 * loop and replays it as a graph within a phase), each on kernels freshly
 * obtained: from a module (cuModuleLoadData, or SCENARIO_MODULE's file with
 * cuModuleLoad), from a second module after the first was unloaded, from a
 * third asked for its kernels in the other order, then from two libraries in
 * turn (cuLibraryLoadData or cuLibraryLoadFromFile, cuLibraryGetKernel,
 * cuKernelGetFunction), each unloaded before the next phase. On the stand-in
 * with STANDIN_REUSE_HANDLES=1 the kernels of a later phase get the dead
 * handles of an earlier one, in the third phase naming other kernels, with
 * other parameter layouts. Prints every sum and each phase's buffers' hashes;
 * on stderr, a line as each unload is made (tests/standin/lifetimes.sh checks
 * that a graph was replayed before it).
 *
 * MODULE_UNLOAD_SELF_BUG=1 (a negative control): the program itself builds a
 * graph of the first module's kernel and launches it after the unload, which
 * crashes on a GPU and aborts on the stand-in.
 *
 * With the arguments "churn N", N more phases follow, each on a module of
 * its own, loaded before it and unloaded after it (every other one asked
 * for its kernels in the other order), as a library that compiles its
 * kernels at every step loads them (cuDNN's runtime-compiled kernels under
 * a dynamic cache): an interposer that keeps something per kernel must not
 * keep it for every module ever loaded.
 */
#include <stdbool.h>

#include "driver_scenario.h"

#define N 4096
#define ITERATIONS 10

enum { FILL, AXPY, SCALE, ADD_STEP, REDUCE, KERNELS };
static const char *const names[KERNELS] = {"k_fill", "k_axpy", "k_scale", "k_add_step", "k_reduce_sum"};
static CUfunction fn[KERNELS];

/* A module of the kernels: SCENARIO_MODULE's file, or the stand-in's image. */
static CUmodule load_module(void)
{
    CUmodule m = NULL;
    const char *path = getenv("SCENARIO_MODULE");
    if (path)
        CU(cuModuleLoad(&m, path));
    else
        CU(cuModuleLoadData(&m, "stand-in module"));
    return m;
}

/* A library of the kernels, from the same file or image. */
static CUlibrary load_library(void)
{
    CUlibrary lib = NULL;
    const char *path = getenv("SCENARIO_MODULE");
    if (path)
        CU(cuLibraryLoadFromFile(&lib, path, NULL, NULL, 0, NULL, NULL, 0));
    else
        CU(cuLibraryLoadData(&lib, "stand-in library", NULL, NULL, 0, NULL, NULL, 0));
    return lib;
}

/* The kernels of module m, asked for first to last (backwards: last to first). */
static void module_kernels(CUmodule m, bool backwards)
{
    for (int i = 0; i < KERNELS; i++) {
        int k = backwards ? KERNELS - 1 - i : i;
        CU(cuModuleGetFunction(&fn[k], m, names[k]));
    }
}

/* The kernels of library lib, as functions in the context. */
static void library_kernels(CUlibrary lib)
{
    for (int k = 0; k < KERNELS; k++) {
        CUkernel kernel = NULL;
        CU(cuLibraryGetKernel(&kernel, lib, names[k]));
        CU(cuKernelGetFunction(&fn[k], kernel));
    }
}

/* One launch of fn[k] in blocks of 256 threads over n elements. */
static void launch(int k, int n, void **args, CUstream s)
{
    CU(cuLaunchKernel(fn[k], dscen_blocks(n), 1, 1, 256, 1, 1, 0, s, args, NULL));
}

/* Phase `number`: x = 1, y = 0, then ITERATIONS iterations (axpy's factor the phase's own, so that a graph of
 * another phase replayed shows), each ended by a sync and its sum printed. */
static void phase(int number, const char *label, CUstream s, CUdeviceptr x, CUdeviceptr y, CUdeviceptr sum,
                  float *host)
{
    int n = N;
    float one = 1.0f, zero = 0.0f;
    void *fx[] = {&x, &one, &n}, *fy[] = {&y, &zero, &n};
    launch(FILL, N, fx, s);
    launch(FILL, N, fy, s);
    for (int it = 0; it < ITERATIONS; it++) {
        float a = 0.5f + 0.0625f * (float)number, f = 0.875f, step_f = 0.125f;
        int step = it;
        void *axpy[] = {&a, &x, &y, &n}, *scale[] = {&y, &f, &n}, *add[] = {&x, &step_f, &step, &n};
        void *red[] = {&y, &sum, &n};
        launch(AXPY, N, axpy, s);
        launch(SCALE, N, scale, s);
        launch(ADD_STEP, N, add, s);
        CU(cuLaunchKernel(fn[REDUCE], 1, 1, 1, REDUCE_THREADS, 1, 1, 0, s, red, NULL));
        CU(cuMemcpyDtoHAsync(host, sum, sizeof(float), s));
        CU(cuStreamSynchronize(s));
        printf("%s %2d: sum %08x\n", label, it, dscen_bits(*host));
    }
    dscen_show("x", x, N);
    dscen_show("y", y, N);
}

/* The negative control: a graph of module m's k_fill, launched after m is unloaded. */
static void launch_dead_function(CUmodule m, CUdeviceptr x, CUstream s)
{
    CUfunction f = NULL;
    CUgraph g = NULL;
    CUgraphNode node = NULL;
    CUgraphExec e = NULL;
    int n = N;
    float one = 1.0f;
    void *args[] = {&x, &one, &n};
    CUDA_KERNEL_NODE_PARAMS p;
    memset(&p, 0, sizeof p);
    CU(cuModuleGetFunction(&f, m, "k_fill"));
    p.func = f;
    p.gridDimX = dscen_blocks(N), p.gridDimY = p.gridDimZ = 1;
    p.blockDimX = 256, p.blockDimY = p.blockDimZ = 1;
    p.kernelParams = args;
    CU(cuGraphCreate(&g, 0));
    CU(cuGraphAddKernelNode(&node, g, NULL, 0, &p));
    CU(cuGraphInstantiate(&e, g, 0));
    CU(cuModuleUnload(m));
    fprintf(stderr, "module_unload: launching a graph of the unloaded module's function\n");
    CU(cuGraphLaunch(e, s));
    CU(cuStreamSynchronize(s));
}

/* The five phases on one created stream, and the churn's (see the top). */
int main(int argc, char **argv)
{
    int churn = argc > 2 && strcmp(argv[1], "churn") == 0 ? atoi(argv[2]) : 0;
    dscen_begin("module_unload");
    CUstream s = NULL;
    CU(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CUdeviceptr x = dscen_floats(N), y = dscen_floats(N), sum = dscen_floats(1);
    float *host = NULL;
    CU(cuMemAllocHost((void **)&host, sizeof(float)));

    CUmodule m = load_module();
    module_kernels(m, false);
    phase(1, "module 1", s, x, y, sum, host);
    if (getenv("MODULE_UNLOAD_SELF_BUG"))
        launch_dead_function(m, x, s);
    fprintf(stderr, "module_unload: unloading module 1\n");
    CU(cuModuleUnload(m));

    m = load_module();
    module_kernels(m, false);
    phase(2, "module 2", s, x, y, sum, host);
    fprintf(stderr, "module_unload: unloading module 2\n");
    CU(cuModuleUnload(m));

    m = load_module();
    module_kernels(m, true);
    phase(3, "module 3", s, x, y, sum, host);
    fprintf(stderr, "module_unload: unloading module 3\n");
    CU(cuModuleUnload(m));

    CUlibrary lib = load_library();
    library_kernels(lib);
    phase(4, "library 1", s, x, y, sum, host);
    fprintf(stderr, "module_unload: unloading library 1\n");
    CU(cuLibraryUnload(lib));

    lib = load_library();
    library_kernels(lib);
    phase(5, "library 2", s, x, y, sum, host);
    fprintf(stderr, "module_unload: unloading library 2\n");
    CU(cuLibraryUnload(lib));

    for (int k = 0; k < churn; k++) {
        char label[32];
        snprintf(label, sizeof label, "churn %d", k + 1);
        m = load_module();
        module_kernels(m, k % 2 == 1);
        phase(6 + k % 8, label, s, x, y, sum, host);
        CU(cuModuleUnload(m));
    }

    CU(cuMemFreeHost(host));
    CU(cuMemFree(x));
    CU(cuMemFree(y));
    CU(cuMemFree(sum));
    CU(cuStreamDestroy(s));
    return dscen_end();
}
