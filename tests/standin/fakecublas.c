/* SPDX-License-Identifier: MIT */
/*
 * tests/standin/fakecublas.c: a fake level-1 BLAS that asks the driver
 * whether its stream is capturing and takes another path when it is, as
 * cuBLAS does (fakecublas.h). Everything it calls is the driver's, found
 * through cuGetProcAddress_v2; its kernels are CPU twins
 * (fakecublas_kernels.c). One library state, used from one host thread,
 * as a cublasHandle_t is.
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>

#include "fakecublas.h"
#include "fakecublas_kernels.h"

typedef CUresult (*get_proc_fn)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);
typedef CUresult (*launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                              CUstream, void **, void **);
typedef CUresult (*info_v3_fn)(CUstream, CUstreamCaptureStatus *, cuuint64_t *, CUgraph *, const CUgraphNode **,
                               const CUgraphEdgeData **, size_t *);
typedef CUresult (*info_v2_fn)(CUstream, CUstreamCaptureStatus *, cuuint64_t *, CUgraph *, const CUgraphNode **,
                               size_t *);
typedef CUresult (*info_v1_fn)(CUstream, CUstreamCaptureStatus *, cuuint64_t *);
typedef CUresult (*is_capturing_fn)(CUstream, CUstreamCaptureStatus *);
typedef CUresult (*alloc_fn)(CUdeviceptr *, size_t);
typedef CUresult (*free_fn)(CUdeviceptr);
typedef CUresult (*alloc_async_fn)(CUdeviceptr *, size_t, CUstream);
typedef CUresult (*free_async_fn)(CUdeviceptr, CUstream);

/* Which capture query the library asks (FAKECUBLAS_QUERY). */
enum query { QUERY_V3, QUERY_V2, QUERY_V1, QUERY_IS_CAPTURING };

static struct {
    launch_fn launch;
    enum query query;
    void *ask;                  /* the capture query, of the query's type */
    alloc_fn alloc;
    free_fn free;
    alloc_async_fn alloc_async;
    free_async_fn free_async;
    CUdeviceptr workspace;      /* for calls outside capture: allocated on the first one */
    CUdeviceptr faults;         /* device counter of the faults its kernels found */
    unsigned last_tag;
    unsigned long captured_calls;
    bool corrupt;
} lib;

/* One call of a routine: its stream, its tag, the path it takes and its workspace. */
struct call {
    CUstream stream;
    unsigned tag;
    bool captured;
    cuuint64_t capture_id;
    CUdeviceptr ws;
};

/* True when environment variable name is "1". */
static bool env_on(const char *name)
{
    const char *v = getenv(name);
    return v && strcmp(v, "1") == 0;
}

/* symbol from get_proc for cudaVersion and flags; NULL when it is not found. */
static void *proc(get_proc_fn get_proc, const char *symbol, int version, cuuint64_t flags)
{
    void *fn = NULL;
    CUdriverProcAddressQueryResult status;
    if (get_proc == NULL || get_proc(symbol, &fn, version, flags, &status) != CUDA_SUCCESS)
        return NULL;
    return fn;
}

/* Reads FAKECUBLAS_QUERY: the query to ask and the cudaVersion that hands out its version. */
static enum query query_of_env(int *version)
{
    const char *q = getenv("FAKECUBLAS_QUERY");
    *version = 13000;
    if (q && strcmp(q, "v2") == 0) {
        *version = 11030;
        return QUERY_V2;
    }
    if (q && strcmp(q, "v1") == 0) {
        *version = 10010;
        return QUERY_V1;
    }
    if (q && strcmp(q, "is_capturing") == 0)
        return QUERY_IS_CAPTURING;
    return QUERY_V3;
}

/* Finds the driver's functions the way cuBLAS does; false when one is missing. */
static bool find_driver(void)
{
    void *libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (libcuda == NULL)
        return false;
    get_proc_fn get_proc = (get_proc_fn)dlsym(libcuda, "cuGetProcAddress_v2");
    get_proc_fn unseen = (get_proc_fn)dlsym(libcuda, "standin_private_get_proc_address");
    cuuint64_t flags =
        env_on("FAKECUBLAS_PER_THREAD") ? CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM : CU_GET_PROC_ADDRESS_DEFAULT;
    int version;
    lib.query = query_of_env(&version);
    lib.ask = proc(env_on("FAKECUBLAS_UNSEEN_QUERY") ? unseen : get_proc,
                   lib.query == QUERY_IS_CAPTURING ? "cuStreamIsCapturing" : "cuStreamGetCaptureInfo", version, flags);
    lib.launch = (launch_fn)proc(get_proc, "cuLaunchKernel", 13000, flags);
    lib.alloc = (alloc_fn)proc(get_proc, "cuMemAlloc", 13000, flags);
    lib.free = (free_fn)proc(get_proc, "cuMemFree", 13000, flags);
    lib.alloc_async = (alloc_async_fn)proc(get_proc, "cuMemAllocAsync", 13000, flags);
    lib.free_async = (free_async_fn)proc(get_proc, "cuMemFreeAsync", 13000, flags);
    lib.corrupt = env_on("FAKECUBLAS_CORRUPT");
    return lib.ask && lib.launch && lib.alloc && lib.free && lib.alloc_async && lib.free_async;
}

/* Asks the driver for stream's capture status and id (the id stays 0 for cuStreamIsCapturing). */
static CUresult ask_capture(CUstream stream, CUstreamCaptureStatus *st, cuuint64_t *id)
{
    *id = 0;
    switch (lib.query) {
    case QUERY_V3: return ((info_v3_fn)lib.ask)(stream, st, id, NULL, NULL, NULL, NULL);
    case QUERY_V2: return ((info_v2_fn)lib.ask)(stream, st, id, NULL, NULL, NULL);
    case QUERY_V1: return ((info_v1_fn)lib.ask)(stream, st, id);
    default: return ((is_capturing_fn)lib.ask)(stream, st);
    }
}

/* The pointer a CUdeviceptr holds. */
static void *dev(CUdeviceptr p)
{
    return (void *)(uintptr_t)p;
}

/* Starts a call on stream: asks whether it captures and takes the workspace of that path. */
static int call_begin(struct call *c, cudaStream_t stream)
{
    if (lib.launch == NULL)
        return FAKECUBLAS_STATUS_NOT_INITIALIZED;
    c->stream = (CUstream)stream;
    c->tag = ++lib.last_tag;
    CUstreamCaptureStatus st;
    if (ask_capture(c->stream, &st, &c->capture_id) != CUDA_SUCCESS || st == CU_STREAM_CAPTURE_STATUS_INVALIDATED)
        return FAKECUBLAS_STATUS_INTERNAL_ERROR;
    c->captured = st == CU_STREAM_CAPTURE_STATUS_ACTIVE;
    if (c->captured) {
        lib.captured_calls++;
        return lib.alloc_async(&c->ws, FAKECUBLAS_WORKSPACE_BYTES, c->stream) == CUDA_SUCCESS
                   ? FAKECUBLAS_STATUS_SUCCESS
                   : FAKECUBLAS_STATUS_ALLOC_FAILED;
    }
    if (lib.workspace == 0 && lib.alloc(&lib.workspace, FAKECUBLAS_WORKSPACE_BYTES) != CUDA_SUCCESS) {
        lib.workspace = 0;
        return FAKECUBLAS_STATUS_ALLOC_FAILED;
    }
    c->ws = lib.workspace;
    return FAKECUBLAS_STATUS_SUCCESS;
}

/* Ends a call whose launches gave status: on the capture path, frees the workspace stream-ordered and fails
 * unless the capture it began in is still active with the same id (it was ended under the library). */
static int call_end(struct call *c, int status)
{
    if (!c->captured)
        return status;
    if (lib.free_async(c->ws, c->stream) != CUDA_SUCCESS && status == FAKECUBLAS_STATUS_SUCCESS)
        status = FAKECUBLAS_STATUS_INTERNAL_ERROR;
    CUstreamCaptureStatus st;
    cuuint64_t id;
    if (ask_capture(c->stream, &st, &id) != CUDA_SUCCESS || st != CU_STREAM_CAPTURE_STATUS_ACTIVE ||
        id != c->capture_id)
        return FAKECUBLAS_STATUS_INTERNAL_ERROR;
    return status;
}

/* Launches a 1-D kernel on the call's stream through the driver. */
static int launch(const struct call *c, const void *kernel, unsigned grid, unsigned block, void **args)
{
    return lib.launch((CUfunction)kernel, grid, 1, 1, block, 1, 1, 0, c->stream, args, NULL) == CUDA_SUCCESS
               ? FAKECUBLAS_STATUS_SUCCESS
               : FAKECUBLAS_STATUS_EXECUTION_FAILED;
}

/* Blocks of FAKECUBLAS_THREADS covering n elements, at least one. */
static unsigned blocks_for(int n)
{
    return n > 0 ? (unsigned)(n + FAKECUBLAS_THREADS - 1) / FAKECUBLAS_THREADS : 1;
}

/* Finds the driver, allocates and zeroes the fault counter. */
int fakecublas_create(void)
{
    if (!find_driver())
        return FAKECUBLAS_STATUS_NOT_INITIALIZED;
    if (lib.alloc(&lib.faults, sizeof(unsigned)) != CUDA_SUCCESS)
        return FAKECUBLAS_STATUS_ALLOC_FAILED;
    unsigned *faults = dev(lib.faults);
    void *args[] = {&faults};
    struct call c = {.stream = NULL};
    return launch(&c, (const void *)fakecublas_zero, 1, 1, args);
}

/* *result = x . y: per-block parts into the workspace, then their sum. */
int fakecublas_sdot(cudaStream_t stream, int n, const float *x, const float *y, float *result)
{
    struct call c;
    int status = call_begin(&c, stream);
    if (status != FAKECUBLAS_STATUS_SUCCESS)
        return status;
    float *ws = dev(c.ws);
    unsigned *faults = dev(lib.faults);
    int nblocks = (int)blocks_for(n);
    if (nblocks > FAKECUBLAS_MAX_BLOCKS)
        nblocks = FAKECUBLAS_MAX_BLOCKS;
    unsigned final_tag = lib.corrupt ? c.tag + 1 : c.tag;
    void *part_args[] = {&x, &y, &n, &ws, &c.tag};
    void *final_args[] = {&ws, &nblocks, &final_tag, &result, &faults};
    status = launch(&c, (const void *)fakecublas_dot_partial, (unsigned)nblocks, FAKECUBLAS_THREADS, part_args);
    if (status == FAKECUBLAS_STATUS_SUCCESS)
        status = launch(&c, (const void *)fakecublas_dot_final, 1, 1, final_args);
    return call_end(&c, status);
}

/* y += *alpha * x: alpha staged into the workspace, then the update. */
int fakecublas_saxpy(cudaStream_t stream, int n, const float *alpha, const float *x, float *y)
{
    if (n <= 0)
        return FAKECUBLAS_STATUS_SUCCESS;
    struct call c;
    int status = call_begin(&c, stream);
    if (status != FAKECUBLAS_STATUS_SUCCESS)
        return status;
    float *ws = dev(c.ws);
    unsigned *faults = dev(lib.faults);
    void *stage_args[] = {&alpha, &ws, &c.tag};
    void *axpy_args[] = {&n, &ws, &c.tag, &x, &y, &faults};
    status = launch(&c, (const void *)fakecublas_stage, 1, 1, stage_args);
    if (status == FAKECUBLAS_STATUS_SUCCESS)
        status = launch(&c, (const void *)fakecublas_axpy_kernel, blocks_for(n), FAKECUBLAS_THREADS, axpy_args);
    return call_end(&c, status);
}

/* x *= *alpha: alpha staged into the workspace, then the scaling. */
int fakecublas_sscal(cudaStream_t stream, int n, const float *alpha, float *x)
{
    if (n <= 0)
        return FAKECUBLAS_STATUS_SUCCESS;
    struct call c;
    int status = call_begin(&c, stream);
    if (status != FAKECUBLAS_STATUS_SUCCESS)
        return status;
    float *ws = dev(c.ws);
    unsigned *faults = dev(lib.faults);
    void *stage_args[] = {&alpha, &ws, &c.tag};
    void *scal_args[] = {&n, &ws, &c.tag, &x, &faults};
    status = launch(&c, (const void *)fakecublas_stage, 1, 1, stage_args);
    if (status == FAKECUBLAS_STATUS_SUCCESS)
        status = launch(&c, (const void *)fakecublas_scal_kernel, blocks_for(n), FAKECUBLAS_THREADS, scal_args);
    return call_end(&c, status);
}

/* Calls that took the capture path. */
unsigned long fakecublas_captured_calls(void)
{
    return lib.captured_calls;
}

/* Reads the fault counter back (a synchronous copy) and frees the library's memory. */
int fakecublas_destroy(unsigned *faults)
{
    if (lib.faults == 0)
        return FAKECUBLAS_STATUS_NOT_INITIALIZED;
    *faults = 0;
    int status = cudaMemcpy(faults, dev(lib.faults), sizeof *faults, cudaMemcpyDeviceToHost) == cudaSuccess
                     ? FAKECUBLAS_STATUS_SUCCESS
                     : FAKECUBLAS_STATUS_EXECUTION_FAILED;
    if ((lib.workspace && lib.free(lib.workspace) != CUDA_SUCCESS) || lib.free(lib.faults) != CUDA_SUCCESS)
        status = FAKECUBLAS_STATUS_INTERNAL_ERROR;
    lib.workspace = lib.faults = 0;
    return status;
}
