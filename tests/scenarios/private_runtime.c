/* SPDX-License-Identifier: MIT */
/*
 * private_runtime: a program whose CUDA runtime is loaded privately (issue
 * 24, case 3), as JAX's CUDA plugin loads libcudart: dlopen(RTLD_LOCAL |
 * RTLD_NOW), never linked, every function taken with dlsym(handle, ...), so
 * that no cuda* name is in the process's global scope for a preloaded
 * library to bind to. The kernels come the same way, from a plugin of CPU
 * twins linked against the runtime stand-in (tests/standin/libkernels_private.so).
 * Stand-in only (on a GPU the kernels would need a module the runtime loads).
 *
 * A launch loop: 20 iterations of axpy, scale, a step kernel and axpy on a created
 * stream and cudaStreamSynchronize, then the buffers' hashes and the call
 * count. A preloaded shim sees none of it (its runtime wrappers are not what
 * dlsym(handle) finds): it must leave the program alone, whatever it refers
 * to at link level. With the argument `driver`, the launches and syncs go
 * through the driver as XLA's do (cuLaunchKernel and cuStreamSynchronize
 * from dlsym of libcuda.so.1's handle, which a preloaded shim answers with
 * its wrappers): a shim then graphs them, with the runtime out of its sight.
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#define N 4096
#define ITERATIONS 20

/* The runtime's functions, from the private handle. */
static __typeof__(cudaGetErrorName) *rt_error_name;
static __typeof__(cudaStreamCreateWithFlags) *rt_stream_create;
static __typeof__(cudaMalloc) *rt_malloc;
static __typeof__(cudaFree) *rt_free;
static __typeof__(cudaLaunchKernel) *rt_launch;
static __typeof__(cudaStreamSynchronize) *rt_stream_sync;
static __typeof__(cudaMemcpy) *rt_memcpy;
static __typeof__(cudaStreamDestroy) *rt_stream_destroy;

/* The driver's, for the `driver` variant (CUresult is an int; no cuda.h next to the runtime's header). */
typedef int (*launch_fn)(const void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                         unsigned shmem, cudaStream_t s, void **params, void **extra);
typedef int (*sync_fn)(cudaStream_t s);
static launch_fn cu_launch;
static sync_fn cu_stream_sync;

/* The kernels' twins, from the plugin. */
static const void *k_fill, *k_axpy, *k_scale, *k_add_step;

static unsigned long calls, errors;

/* Counts a call and prints it when it failed. */
static cudaError_t check(cudaError_t e, const char *what, int line)
{
    calls++;
    if (e != cudaSuccess) {
        errors++;
        printf("error at line %d: %s: %s\n", line, what, rt_error_name(e));
    }
    return e;
}

/* Checks one runtime call. */
#define CK(call) check((call), #call, __LINE__)

/* dlsym that ends the program when name is missing. */
static void *need(void *handle, const char *name)
{
    void *p = dlsym(handle, name);
    if (p == NULL) {
        fprintf(stderr, "private_runtime: no %s: %s\n", name, dlerror());
        exit(1);
    }
    return p;
}

/* Loads the runtime stand-in and the kernels' plugin privately, and takes what the program uses. */
static void load_privately(bool driver)
{
    void *rt = dlopen(STANDIN_RUNTIME_PATH, RTLD_LOCAL | RTLD_NOW);
    void *kernels = rt ? dlopen(STANDIN_KERNELS_PATH, RTLD_LOCAL | RTLD_NOW) : NULL;
    if (kernels == NULL) {
        fprintf(stderr, "private_runtime: %s\n", dlerror());
        exit(1);
    }
    rt_error_name = need(rt, "cudaGetErrorName");
    rt_stream_create = need(rt, "cudaStreamCreateWithFlags");
    rt_malloc = need(rt, "cudaMalloc");
    rt_free = need(rt, "cudaFree");
    rt_launch = need(rt, "cudaLaunchKernel");
    rt_stream_sync = need(rt, "cudaStreamSynchronize");
    rt_memcpy = need(rt, "cudaMemcpy");
    rt_stream_destroy = need(rt, "cudaStreamDestroy");
    k_fill = need(kernels, "k_fill");
    k_axpy = need(kernels, "k_axpy");
    k_scale = need(kernels, "k_scale");
    k_add_step = need(kernels, "k_add_step");
    void *libcuda = driver ? dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD) : NULL;
    if (driver && libcuda == NULL) {
        fprintf(stderr, "private_runtime: the runtime loaded no libcuda.so.1\n");
        exit(1);
    }
    if (driver) {
        cu_launch = (launch_fn)need(libcuda, "cuLaunchKernel");
        cu_stream_sync = (sync_fn)need(libcuda, "cuStreamSynchronize");
    }
    /* The premise (a preloaded shim exports the name itself). */
    if (dlsym(RTLD_DEFAULT, "cudaLaunchKernel") != NULL && getenv("LD_PRELOAD") == NULL) {
        fprintf(stderr, "private_runtime: the runtime is in the global scope after all\n");
        exit(1);
    }
}

/* A driver result as the runtime's error of the same code (the codes checked here are shared). */
static cudaError_t from_driver(int result)
{
    return (cudaError_t)result;
}

/* One launch of k in blocks of 256 threads over N elements (through the driver when it was loaded). */
static void launch(const void *k, void **args, cudaStream_t s)
{
    dim3 grid = {(N + 255) / 256, 1, 1}, block = {256, 1, 1};
    if (cu_launch)
        CK(from_driver(cu_launch(k, grid.x, 1, 1, block.x, 1, 1, 0, s, args, NULL)));
    else
        CK(rt_launch(k, grid, block, args, 0, s));
}

/* Waits for s (through the driver when it was loaded). */
static void sync_stream(cudaStream_t s)
{
    if (cu_stream_sync)
        CK(from_driver(cu_stream_sync(s)));
    else
        CK(rt_stream_sync(s));
}

/* Prints the FNV-1a hash of n floats of device memory. */
static void show(const char *name, const float *d)
{
    float *h = malloc(N * sizeof(float));
    uint64_t hash = 1469598103934665603ull;
    if (CK(rt_memcpy(h, d, N * sizeof(float), cudaMemcpyDeviceToHost)) == cudaSuccess)
        for (size_t i = 0; i < N * sizeof(float); i++) {
            hash ^= ((const unsigned char *)h)[i];
            hash *= 1099511628211ull;
        }
    printf("%s: h=%016llx\n", name, (unsigned long long)hash);
    free(h);
}

/* The loop on a created stream; `driver`: its launches and syncs through the driver. */
int main(int argc, char **argv)
{
    bool driver = argc > 1 && strcmp(argv[1], "driver") == 0;
    load_privately(driver);
    printf("scenario private_runtime%s\n", driver ? " driver" : "");
    cudaStream_t s = NULL;
    float *x = NULL, *y = NULL;
    int n = N;
    float one = 1.0f, zero = 0.0f;
    CK(rt_stream_create(&s, cudaStreamNonBlocking));
    CK(rt_malloc((void **)&x, N * sizeof(float)));
    CK(rt_malloc((void **)&y, N * sizeof(float)));
    void *fx[] = {&x, &one, &n}, *fy[] = {&y, &zero, &n};
    launch(k_fill, fx, s);
    launch(k_fill, fy, s);
    for (int it = 0; it < ITERATIONS; it++) {
        float a = 0.5f, f = 0.875f, step_f = 0.125f;
        void *axpy[] = {&a, &x, &y, &n}, *scale[] = {&y, &f, &n}, *add[] = {&x, &step_f, &it, &n};
        launch(k_axpy, axpy, s);
        launch(k_scale, scale, s);
        launch(k_add_step, add, s);
        launch(k_axpy, axpy, s);
        sync_stream(s);
    }
    show("x", x);
    show("y", y);
    CK(rt_free(x));
    CK(rt_free(y));
    CK(rt_stream_destroy(s));
    printf("calls %lu errors %lu\n", calls, errors);
    return errors ? 1 : 0;
}
