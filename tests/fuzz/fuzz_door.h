/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_door.h: the two doors of the random program generators
 * (random_program.c, random_threads.c). Every operation that the driver
 * API can make as well (a kernel launch, an async copy of each direction,
 * a memset, a host function, an event record, a stream wait, a stream,
 * event or device synchronisation, a query, a synchronous copy) is made
 * through the runtime (cudaLaunchKernel...) or through the driver
 * (cuLaunchKernel...) as its struct door says, drawn per operation from a
 * generator of its own (door_rnd: a program's shape does not depend on its
 * doors). Both doors do the same work, so a program prints the same
 * whichever it takes (--runtime-only, which forces the runtime door,
 * shows it).
 *
 * A device-to-device copy through the runtime whose copy form is 1 is a
 * cudaMemcpyBatchAsync of one copy (on a stream the program created): a
 * runtime function the shim does not hook, whose work reaches the shim
 * only as the runtime's own driver call (design.md, "Runtime functions
 * the shim does not hook").
 *
 * The driver's entry points come as libraries get theirs: from
 * cuGetProcAddress_v2 (the default flavour, or the per-thread default
 * stream one, which gives the _ptsz twins), so that under LD_PRELOAD they
 * are the reprise shim's wrappers, or as the symbols the program is linked
 * against (cuLaunchKernel, cuLaunchKernel_ptsz...). A launch passes its
 * arguments as kernelParams, or packed at cuFuncGetParamInfo's offsets in
 * `extra` (CU_LAUNCH_PARAM_BUFFER_POINTER, a buffer the program reuses at
 * once: the driver copies it), or through cuLaunchKernelEx without
 * attributes, or with CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
 * (a programmatic dependent launch, as cuBLASLt makes them: the kernels
 * read what the kernel before them wrote, which a programmatic dependent
 * launch may start before, so it is made only of the kernels that wait for
 * it, door_waits_for_primary; any other's form 3 is form 2); a launch
 * through the runtime whose form is 3 is a cudaLaunchKernelExC with that
 * attribute, one whose form is 2 a cudaLaunchKernelExC without attributes;
 * a memset is made of 1, 2 or 4-byte elements; an event record is
 * cuEventRecord or cuEventRecordWithFlags(0). The runtime's special
 * streams become the driver's: the legacy stream NULL or CU_STREAM_LEGACY,
 * the per-thread one CU_STREAM_PER_THREAD, or NULL to a _ptsz twin.
 *
 * The runtime keeps a thread's last launch error (cudaGetLastError); the
 * driver does not. So that a program reads the same either way,
 * door_get_last_error and door_peek_last_error answer as if the driver
 * door's failed launches had been runtime calls (a shadow error per
 * thread, overwritten by any later failure through either door).
 */
#ifndef REPRISE_TESTS_FUZZ_DOOR_H
#define REPRISE_TESTS_FUZZ_DOOR_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "../../kernels/kernels.h"

extern cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
                                      size_t sharedMem, cudaStream_t stream);

/* The per-thread default stream twins: cuda.h declares them only under CUDA_API_PER_THREAD_DEFAULT_STREAM. */
CUresult CUDAAPI cuLaunchKernel_ptsz(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                     CUstream, void **, void **);
CUresult CUDAAPI cuLaunchKernelEx_ptsz(const CUlaunchConfig *, CUfunction, void **, void **);
CUresult CUDAAPI cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr, const void *, size_t, CUstream);
CUresult CUDAAPI cuMemcpyDtoHAsync_v2_ptsz(void *, CUdeviceptr, size_t, CUstream);
CUresult CUDAAPI cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr, CUdeviceptr, size_t, CUstream);
CUresult CUDAAPI cuMemcpyAsync_ptsz(CUdeviceptr, CUdeviceptr, size_t, CUstream);
CUresult CUDAAPI cuMemsetD8Async_ptsz(CUdeviceptr, unsigned char, size_t, CUstream);
CUresult CUDAAPI cuMemsetD16Async_ptsz(CUdeviceptr, unsigned short, size_t, CUstream);
CUresult CUDAAPI cuMemsetD32Async_ptsz(CUdeviceptr, unsigned int, size_t, CUstream);
CUresult CUDAAPI cuLaunchHostFunc_ptsz(CUstream, CUhostFn, void *);
CUresult CUDAAPI cuEventRecord_ptsz(CUevent, CUstream);
CUresult CUDAAPI cuEventRecordWithFlags_ptsz(CUevent, CUstream, unsigned int);
CUresult CUDAAPI cuStreamWaitEvent_ptsz(CUstream, CUevent, unsigned int);
CUresult CUDAAPI cuStreamSynchronize_ptsz(CUstream);
CUresult CUDAAPI cuStreamQuery_ptsz(CUstream);

/* How one operation is made. */
struct door {
    unsigned char driver;  /* 0: the runtime; 1: the driver */
    unsigned char linked;  /* the driver function as linked (else from cuGetProcAddress_v2) */
    unsigned char ptsz;    /* its per-thread default stream twin */
    unsigned char handle;  /* a special stream: the other handle for it (NULL or the explicit one) */
    unsigned char form;    /* a launch: 0 kernelParams, 1 extra, 2 cuLaunchKernelEx (the runtime's: cudaLaunchKernelExC),
                              3 the same, a programmatic dependent launch; a copy: 1 cuMemcpyAsync;
                              a memset: element bytes 1, 2, 4; a record: 1 cuEventRecordWithFlags(0) */
    unsigned char flip;    /* the door changes every `flip` iterations (0: never) */
};

/* --door-mask=BITS: which kinds of call may take the driver door (a minimising aid; default all). */
enum door_class {
    DC_LAUNCH = 1, DC_COPY = 2, DC_MEMSET = 4, DC_HOST_FUNC = 8, DC_RECORD = 16, DC_WAIT = 32,
    DC_STREAM_SYNC = 64, DC_EVENT_SYNC = 128, DC_QUERY = 256, DC_DEVICE_SYNC = 512, DC_SYNC_COPY = 1024,
    DC_PER_THREAD_SYNC = 2048 /* and the sync or query is of the per-thread default stream */
};
static unsigned door_mask = ~0u;
#define DOOR_CLASS(d, c) ((d).driver = (d).driver && (door_mask & (c)) != 0)
/* --all-pdl: every launch a programmatic dependent launch, whatever its kernel (an edge too weak: a check's aid). */
static int door_all_pdl;

/* The door generator (splitmix64, fuzz_random.h's rnd on its own state). */
static uint64_t door_rng;

static inline unsigned door_below(unsigned n)
{
    uint64_t z = (door_rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (unsigned)((z ^ (z >> 31)) % n);
}

/* Seeds the door generator and draws the program's share of driver calls (percent): 0 in a fifth of
 * seeds, 100 in a fifth (every operation that can, through the driver), else 30, 40 or 50. */
static inline unsigned door_seed(uint64_t seed)
{
    door_rng = (seed ^ 0x3c6ef372fe94f82bull) * 0x9e3779b97f4a7c15ull + 11;
    unsigned r = door_below(100);
    if (r < 20)
        return 0;
    if (r < 40)
        return 100;
    return 30 + 10 * door_below(3);
}

/* One operation's door: the driver with share percent; kind 'l' launch, 'c' copy, 'm' memset, 'r' record, else 0. */
static inline struct door door_pick(unsigned share, char kind)
{
    struct door d;
    memset(&d, 0, sizeof d);
    d.driver = door_below(100) < share;
    d.linked = door_below(4) == 0;
    d.ptsz = door_below(3) == 0;
    d.handle = (unsigned char)door_below(2);
    switch (kind) {
    case 'l': {
        unsigned r = door_below(100);
        d.form = r < 20 ? 1 : r < 27 ? 2 : r < 35 ? 3 : 0;
        break;
    }
    case 'c': d.form = door_below(4) == 0; break;
    case 'm': d.form = (unsigned char)(1u << door_below(3)); break;
    case 'r': d.form = door_below(3) == 0; break;
    default: break;
    }
    /* In mixed programs, now and then an operation that changes door every few iterations (seldom: each
       change is a region that no longer matches its graph). */
    if (share > 0 && share < 100 && door_below(1000) < 12)
        d.flip = (unsigned char)(4 + door_below(8));
    return d;
}

/* The door of an operation in iteration it. */
static inline struct door door_at(struct door d, int it)
{
    if (d.flip && it >= 0)
        d.driver ^= (unsigned char)((it / d.flip) & 1);
    return d;
}

/* Whether the operation goes through the driver in some iteration. */
static inline int door_ever_driver(struct door d)
{
    return d.driver || d.flip;
}

/* Prints one door of a call of the given kind (--dump) after space: R runtime (R batch: a device-to-device copy
 * on a created stream is a batch copy), D driver, F changing every few iterations, then how. */
static inline void door_dump(const struct door *d, char kind, const char *space)
{
    if (!door_ever_driver(*d)) {
        printf(kind == 'c' && d->form == 1 ? "%sR batch" : "%sR", space);
        if (kind == 'l' && d->form >= 2)
            printf(d->form == 3 ? " ExC PDL" : " ExC");
        return;
    }
    printf("%s%s%s%s%s", space, d->flip ? "F" : "D", d->linked ? " linked" : " proc", d->ptsz ? " ptsz" : "",
           d->handle ? " handle" : "");
    if (kind == 'l' && d->form)
        printf(d->form == 1 ? " extra" : d->form == 2 ? " Ex" : " Ex PDL");
    if (kind == 'm')
        printf(" D%d", d->form * 8);
    if ((kind == 'c' || kind == 'r') && d->form)
        printf(kind == 'c' ? " cuMemcpyAsync" : " WithFlags");
    if (d->flip)
        printf(" every %d", d->flip);
}

/* ------------------------------------------------------------ the driver's entry points */

enum door_fn {
    DF_LAUNCH, DF_LAUNCH_EX, DF_HTOD, DF_DTOH, DF_DTOD, DF_COPY, DF_SET8, DF_SET16, DF_SET32, DF_HOST_FUNC,
    DF_RECORD, DF_RECORD_FLAGS, DF_WAIT, DF_STREAM_SYNC, DF_STREAM_QUERY, DF_EVENT_SYNC, DF_EVENT_QUERY,
    DF_CTX_SYNC, DF_HTOD_SYNC, DF_DTOH_SYNC, DF_COUNT
};
/* The names cuGetProcAddress_v2 takes. */
static const char *const door_fn_names[DF_COUNT] = {
    "cuLaunchKernel", "cuLaunchKernelEx", "cuMemcpyHtoDAsync", "cuMemcpyDtoHAsync", "cuMemcpyDtoDAsync",
    "cuMemcpyAsync", "cuMemsetD8Async", "cuMemsetD16Async", "cuMemsetD32Async", "cuLaunchHostFunc",
    "cuEventRecord", "cuEventRecordWithFlags", "cuStreamWaitEvent", "cuStreamSynchronize", "cuStreamQuery",
    "cuEventSynchronize", "cuEventQuery", "cuCtxSynchronize", "cuMemcpyHtoD", "cuMemcpyDtoH"};

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic" /* function pointers as void * */
/* The linked symbols: [plain, _ptsz]; the synchronous copies' _ptds twins are not used (legacy-stream rules). */
static void *const door_linked[DF_COUNT][2] = {
    [DF_LAUNCH] = {(void *)cuLaunchKernel, (void *)cuLaunchKernel_ptsz},
    [DF_LAUNCH_EX] = {(void *)cuLaunchKernelEx, (void *)cuLaunchKernelEx_ptsz},
    [DF_HTOD] = {(void *)cuMemcpyHtoDAsync_v2, (void *)cuMemcpyHtoDAsync_v2_ptsz},
    [DF_DTOH] = {(void *)cuMemcpyDtoHAsync_v2, (void *)cuMemcpyDtoHAsync_v2_ptsz},
    [DF_DTOD] = {(void *)cuMemcpyDtoDAsync_v2, (void *)cuMemcpyDtoDAsync_v2_ptsz},
    [DF_COPY] = {(void *)cuMemcpyAsync, (void *)cuMemcpyAsync_ptsz},
    [DF_SET8] = {(void *)cuMemsetD8Async, (void *)cuMemsetD8Async_ptsz},
    [DF_SET16] = {(void *)cuMemsetD16Async, (void *)cuMemsetD16Async_ptsz},
    [DF_SET32] = {(void *)cuMemsetD32Async, (void *)cuMemsetD32Async_ptsz},
    [DF_HOST_FUNC] = {(void *)cuLaunchHostFunc, (void *)cuLaunchHostFunc_ptsz},
    [DF_RECORD] = {(void *)cuEventRecord, (void *)cuEventRecord_ptsz},
    [DF_RECORD_FLAGS] = {(void *)cuEventRecordWithFlags, (void *)cuEventRecordWithFlags_ptsz},
    [DF_WAIT] = {(void *)cuStreamWaitEvent, (void *)cuStreamWaitEvent_ptsz},
    [DF_STREAM_SYNC] = {(void *)cuStreamSynchronize, (void *)cuStreamSynchronize_ptsz},
    [DF_STREAM_QUERY] = {(void *)cuStreamQuery, (void *)cuStreamQuery_ptsz},
    [DF_EVENT_SYNC] = {(void *)cuEventSynchronize, (void *)cuEventSynchronize},
    [DF_EVENT_QUERY] = {(void *)cuEventQuery, (void *)cuEventQuery},
    [DF_CTX_SYNC] = {(void *)cuCtxSynchronize, (void *)cuCtxSynchronize},
    [DF_HTOD_SYNC] = {(void *)cuMemcpyHtoD_v2, (void *)cuMemcpyHtoD_v2},
    [DF_DTOH_SYNC] = {(void *)cuMemcpyDtoH_v2, (void *)cuMemcpyDtoH_v2},
};
#pragma GCC diagnostic pop
static void *door_proc[DF_COUNT][2]; /* from cuGetProcAddress_v2, [default, per-thread default stream] */

/* The kernels a door launches, and their CUfunctions and parameter layouts (door_init). */
#define DOOR_KERNELS 10
#define DOOR_MAX_PARAMS 8
static const void *door_kernels[DOOR_KERNELS];
static CUfunction door_functions[DOOR_KERNELS];
static unsigned door_nparams[DOOR_KERNELS];
static size_t door_param_off[DOOR_KERNELS][DOOR_MAX_PARAMS], door_param_size[DOOR_KERNELS][DOOR_MAX_PARAMS];

/* Gets the driver's entry points and the kernels' CUfunctions; exits 2 if one is missing. Before any thread. */
static inline void door_init(void)
{
    for (int f = 0; f < DF_COUNT; f++)
        for (int pt = 0; pt < 2; pt++) {
            CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
            void *fn = NULL;
            CUresult r = cuGetProcAddress_v2(door_fn_names[f], &fn, 12000,
                                             pt ? CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM
                                                : CU_GET_PROC_ADDRESS_DEFAULT,
                                             &st);
            if (r != CUDA_SUCCESS || fn == NULL || st != CU_GET_PROC_ADDRESS_SUCCESS) {
                fprintf(stderr, "cuGetProcAddress_v2(%s): %d\n", door_fn_names[f], (int)r);
                exit(2);
            }
            door_proc[f][pt] = fn;
        }
    const void *kernels[DOOR_KERNELS] = {
        (const void *)k_fill,    (const void *)k_axpy,   (const void *)k_scale,      (const void *)k_add_step,
        (const void *)k_combine, (const void *)k_reduce_sum, (const void *)k_empty, (const void *)k_apply_coef,
        (const void *)k_big_arg, (const void *)k_poke};
    for (int k = 0; k < DOOR_KERNELS; k++) {
        cudaFunction_t fn = NULL;
        door_kernels[k] = kernels[k];
        if (cudaGetFuncBySymbol(&fn, kernels[k]) != cudaSuccess || fn == NULL) {
            fprintf(stderr, "cudaGetFuncBySymbol: kernel %d\n", k);
            exit(2);
        }
        door_functions[k] = (CUfunction)fn;
        unsigned n = 0;
        while (n < DOOR_MAX_PARAMS &&
               cuFuncGetParamInfo(door_functions[k], n, &door_param_off[k][n], &door_param_size[k][n]) == CUDA_SUCCESS)
            n++;
        door_nparams[k] = n;
    }
}

/* The entry point f of door d. */
static inline void *door_fn(const struct door *d, enum door_fn f)
{
    return d->linked ? door_linked[f][d->ptsz] : door_proc[f][d->ptsz];
}

/* The driver's handle for runtime stream s, as door d names it. */
static inline CUstream door_stream(const struct door *d, cudaStream_t s)
{
    if (s == NULL || s == cudaStreamLegacy)
        return d->ptsz || d->handle ? CU_STREAM_LEGACY : NULL;
    if (s == cudaStreamPerThread)
        return d->ptsz && d->handle ? NULL : CU_STREAM_PER_THREAD;
    return (CUstream)s;
}

/* ------------------------------------------------------------ the last error */

static __thread cudaError_t door_shadow; /* the driver door's last failed launch, not yet read */

/* Notes the result of a launch through either door. */
static inline cudaError_t door_note(cudaError_t e, int driver)
{
    if (e != cudaSuccess && e != cudaErrorNotReady)
        door_shadow = driver ? e : cudaSuccess;
    return e;
}

/* cudaGetLastError, as if the driver door's failed launches had been the runtime's. */
static inline cudaError_t door_get_last_error(void)
{
    cudaError_t e = cudaGetLastError();
    if (door_shadow != cudaSuccess)
        e = door_shadow;
    door_shadow = cudaSuccess;
    return e;
}

/* cudaPeekAtLastError, the same way. */
static inline cudaError_t door_peek_last_error(void)
{
    cudaError_t e = cudaPeekAtLastError();
    return door_shadow != cudaSuccess ? door_shadow : e;
}

/* A driver result as the runtime's error (the codes that occur here are the same numbers). */
static inline cudaError_t door_error(CUresult r)
{
    return (cudaError_t)r;
}

/* ------------------------------------------------------------ the operations */

typedef CUresult (*door_launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                   CUstream, void **, void **);
typedef CUresult (*door_launch_ex_fn)(const CUlaunchConfig *, CUfunction, void **, void **);
typedef CUresult (*door_copy_fn)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
typedef CUresult (*door_htod_fn)(CUdeviceptr, const void *, size_t, CUstream);
typedef CUresult (*door_dtoh_fn)(void *, CUdeviceptr, size_t, CUstream);
typedef CUresult (*door_stream_fn)(CUstream);
typedef CUresult (*door_event_fn)(CUevent);

/* A launch through cudaLaunchKernelExC, a programmatic dependent launch if programmatic. */
static inline cudaError_t door_launch_exc(const void *k, dim3 grid, dim3 block, void **args, size_t shared,
                                          cudaStream_t s, int programmatic)
{
    cudaLaunchAttribute attr;
    memset(&attr, 0, sizeof attr);
    attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t c = {grid, block, shared, s, programmatic ? &attr : NULL, programmatic ? 1u : 0u};
    return cudaLaunchKernelExC(&c, k, args);
}

/* Whether kernel k waits for its primary before it reads or writes (kernels.h): a programmatic dependent launch of
 * any other would race with the kernel before it. */
static inline int door_waits_for_primary(const void *k)
{
    return k == (const void *)k_fill || k == (const void *)k_axpy || k == (const void *)k_scale ||
           k == (const void *)k_empty;
}

/* A kernel launch (via: the runtime's through __cudaLaunchKernel, unless its form is cudaLaunchKernelExC's). */
static inline cudaError_t door_launch(struct door d, const void *k, dim3 grid, dim3 block, void **args, size_t shared,
                                      cudaStream_t s, int via)
{
    DOOR_CLASS(d, DC_LAUNCH);
    if (door_all_pdl)
        d.form = 3;
    else if (d.form == 3 && !door_waits_for_primary(k))
        d.form = 2;
    if (!d.driver && d.form >= 2)
        return door_note(door_launch_exc(k, grid, block, args, shared, s, d.form == 3), 0);
    if (!d.driver)
        return door_note(via ? __cudaLaunchKernel((cudaKernel_t)k, grid, block, args, shared, s)
                             : cudaLaunchKernel(k, grid, block, args, shared, s),
                         0);
    int id = 0;
    while (id < DOOR_KERNELS && door_kernels[id] != k)
        id++;
    if (id == DOOR_KERNELS) {
        fprintf(stderr, "door_launch: unknown kernel\n");
        exit(2);
    }
    CUfunction f = door_functions[id];
    CUstream h = door_stream(&d, s);
    unsigned char buf[4096 + 64] __attribute__((aligned(16)));
    size_t used = 0;
    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &used, CU_LAUNCH_PARAM_END};
    void **params = args, **ex = NULL;
    if (d.form == 1) {
        memset(buf, 0, sizeof buf);
        for (unsigned i = 0; i < door_nparams[id]; i++) {
            size_t off = door_param_off[id][i], size = door_param_size[id][i];
            if (off + size > sizeof buf) {
                fprintf(stderr, "door_launch: parameters too large\n");
                exit(2);
            }
            memcpy(buf + off, args[i], size);
            used = off + size;
        }
        params = NULL, ex = extra;
    }
    CUresult r;
    if (d.form >= 2) {
        CUlaunchConfig c;
        CUlaunchAttribute attr;
        memset(&c, 0, sizeof c);
        memset(&attr, 0, sizeof attr);
        attr.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
        attr.value.programmaticStreamSerializationAllowed = 1;
        c.gridDimX = grid.x, c.gridDimY = grid.y, c.gridDimZ = grid.z;
        c.blockDimX = block.x, c.blockDimY = block.y, c.blockDimZ = block.z;
        c.sharedMemBytes = (unsigned)shared, c.hStream = h;
        if (d.form == 3)
            c.attrs = &attr, c.numAttrs = 1;
        r = ((door_launch_ex_fn)door_fn(&d, DF_LAUNCH_EX))(&c, f, params, ex);
    } else {
        r = ((door_launch_fn)door_fn(&d, DF_LAUNCH))(f, grid.x, grid.y, grid.z, block.x, block.y, block.z,
                                                   (unsigned)shared, h, params, ex);
    }
    if (d.form == 1)
        memset(buf, 0xa5, sizeof buf); /* the driver took the arguments */
    return door_note(door_error(r), 1);
}

/* cudaMemcpyAsync. */
/* A copy through cudaMemcpyBatchAsync: one copy, its source read in stream order. */
static inline cudaError_t door_batch_copy(void *dst, const void *src, size_t bytes, cudaStream_t s)
{
    void *dsts[1] = {dst};
    const void *srcs[1] = {src};
    size_t sizes[1] = {bytes}, attrs_at[1] = {0};
    struct cudaMemcpyAttributes attrs;
    memset(&attrs, 0, sizeof attrs);
    attrs.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    return cudaMemcpyBatchAsync(dsts, srcs, sizes, 1, &attrs, attrs_at, 1, s);
}

static inline cudaError_t door_memcpy(struct door d, void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind,
                                      cudaStream_t s)
{
    DOOR_CLASS(d, DC_COPY);
    /* CUDA's batch copies take no legacy stream; the per-thread one is left out with it. */
    if (!d.driver && d.form == 1 && kind == cudaMemcpyDeviceToDevice && s != NULL && s != cudaStreamLegacy &&
        s != cudaStreamPerThread)
        return door_batch_copy(dst, src, bytes, s);
    if (!d.driver)
        return cudaMemcpyAsync(dst, src, bytes, kind, s);
    CUstream h = door_stream(&d, s);
    CUdeviceptr to = (CUdeviceptr)(uintptr_t)dst, from = (CUdeviceptr)(uintptr_t)src;
    if (kind == cudaMemcpyDefault || d.form == 1)
        return door_error(((door_copy_fn)door_fn(&d, DF_COPY))(to, from, bytes, h));
    switch (kind) {
    case cudaMemcpyHostToDevice: return door_error(((door_htod_fn)door_fn(&d, DF_HTOD))(to, src, bytes, h));
    case cudaMemcpyDeviceToHost: return door_error(((door_dtoh_fn)door_fn(&d, DF_DTOH))(dst, from, bytes, h));
    default: return door_error(((door_copy_fn)door_fn(&d, DF_DTOD))(to, from, bytes, h));
    }
}

/* cudaMemcpy (the legacy stream's rules: the driver's plain synchronous copies). */
static inline cudaError_t door_memcpy_sync(struct door d, void *dst, const void *src, size_t bytes,
                                           enum cudaMemcpyKind kind)
{
    DOOR_CLASS(d, DC_SYNC_COPY);
    if (!d.driver)
        return cudaMemcpy(dst, src, bytes, kind);
    d.ptsz = 0;
    if (kind == cudaMemcpyHostToDevice)
        return door_error(((CUresult(*)(CUdeviceptr, const void *, size_t))door_fn(&d, DF_HTOD_SYNC))(
            (CUdeviceptr)(uintptr_t)dst, src, bytes));
    return door_error(((CUresult(*)(void *, CUdeviceptr, size_t))door_fn(&d, DF_DTOH_SYNC))(
        dst, (CUdeviceptr)(uintptr_t)src, bytes));
}

/* cudaMemsetAsync of bytes (a multiple of 4 at a 4-byte aligned address) to byte value v. */
static inline cudaError_t door_memset(struct door d, void *dst, int v, size_t bytes, cudaStream_t s)
{
    DOOR_CLASS(d, DC_MEMSET);
    if (!d.driver)
        return cudaMemsetAsync(dst, v, bytes, s);
    CUstream h = door_stream(&d, s);
    CUdeviceptr p = (CUdeviceptr)(uintptr_t)dst;
    unsigned b = (unsigned)v & 0xffu;
    if (d.form == 4 && bytes % 4 == 0 && (uintptr_t)dst % 4 == 0)
        return door_error(((CUresult(*)(CUdeviceptr, unsigned, size_t, CUstream))door_fn(&d, DF_SET32))(
            p, b * 0x01010101u, bytes / 4, h));
    if (d.form == 2 && bytes % 2 == 0 && (uintptr_t)dst % 2 == 0)
        return door_error(((CUresult(*)(CUdeviceptr, unsigned short, size_t, CUstream))door_fn(&d, DF_SET16))(
            p, (unsigned short)(b * 0x0101u), bytes / 2, h));
    return door_error(((CUresult(*)(CUdeviceptr, unsigned char, size_t, CUstream))door_fn(&d, DF_SET8))(
        p, (unsigned char)b, bytes, h));
}

/* cudaLaunchHostFunc. */
static inline cudaError_t door_host_func(struct door d, cudaStream_t s, cudaHostFn_t fn, void *data)
{
    DOOR_CLASS(d, DC_HOST_FUNC);
    if (!d.driver)
        return cudaLaunchHostFunc(s, fn, data);
    return door_error(((CUresult(*)(CUstream, CUhostFn, void *))door_fn(&d, DF_HOST_FUNC))(door_stream(&d, s), fn, data));
}

/* cudaEventRecord. */
static inline cudaError_t door_record(struct door d, cudaEvent_t ev, cudaStream_t s)
{
    DOOR_CLASS(d, DC_RECORD);
    if (!d.driver)
        return cudaEventRecord(ev, s);
    if (d.form == 1)
        return door_error(((CUresult(*)(CUevent, CUstream, unsigned))door_fn(&d, DF_RECORD_FLAGS))(
            (CUevent)ev, door_stream(&d, s), 0));
    return door_error(((CUresult(*)(CUevent, CUstream))door_fn(&d, DF_RECORD))((CUevent)ev, door_stream(&d, s)));
}

/* cudaStreamWaitEvent(s, ev, 0). */
static inline cudaError_t door_wait(struct door d, cudaStream_t s, cudaEvent_t ev)
{
    DOOR_CLASS(d, DC_WAIT);
    if (!d.driver)
        return cudaStreamWaitEvent(s, ev, 0);
    return door_error(((CUresult(*)(CUstream, CUevent, unsigned))door_fn(&d, DF_WAIT))(door_stream(&d, s),
                                                                                     (CUevent)ev, 0));
}

/* cudaStreamSynchronize. */
static inline cudaError_t door_stream_sync(struct door d, cudaStream_t s)
{
    DOOR_CLASS(d, DC_STREAM_SYNC);
    if (s == cudaStreamPerThread)
        DOOR_CLASS(d, DC_PER_THREAD_SYNC);
    if (!d.driver)
        return cudaStreamSynchronize(s);
    return door_error(((door_stream_fn)door_fn(&d, DF_STREAM_SYNC))(door_stream(&d, s)));
}

/* cudaStreamQuery. */
static inline cudaError_t door_stream_query(struct door d, cudaStream_t s)
{
    DOOR_CLASS(d, DC_QUERY);
    if (s == cudaStreamPerThread)
        DOOR_CLASS(d, DC_PER_THREAD_SYNC);
    if (!d.driver)
        return cudaStreamQuery(s);
    return door_error(((door_stream_fn)door_fn(&d, DF_STREAM_QUERY))(door_stream(&d, s)));
}

/* cudaEventSynchronize. */
static inline cudaError_t door_event_sync(struct door d, cudaEvent_t ev)
{
    DOOR_CLASS(d, DC_EVENT_SYNC);
    if (!d.driver)
        return cudaEventSynchronize(ev);
    return door_error(((door_event_fn)door_fn(&d, DF_EVENT_SYNC))((CUevent)ev));
}

/* cudaEventQuery. */
static inline cudaError_t door_event_query(struct door d, cudaEvent_t ev)
{
    DOOR_CLASS(d, DC_QUERY);
    if (!d.driver)
        return cudaEventQuery(ev);
    return door_error(((door_event_fn)door_fn(&d, DF_EVENT_QUERY))((CUevent)ev));
}

/* cudaDeviceSynchronize (cuCtxSynchronize). */
static inline cudaError_t door_device_sync(struct door d)
{
    DOOR_CLASS(d, DC_DEVICE_SYNC);
    if (!d.driver)
        return cudaDeviceSynchronize();
    return door_error(((CUresult(*)(void))door_fn(&d, DF_CTX_SYNC))());
}

#endif
