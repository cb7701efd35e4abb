/* SPDX-License-Identifier: MIT */
/*
 * standin/memory.c: allocations, copies and memsets of the stand-in.
 *
 * All "device" memory is host memory. A sorted table of allocations tells
 * device (cudaMalloc, cudaMallocAsync), pinned (cudaMallocHost,
 * cudaHostAlloc), managed (cudaMallocManaged) and registered __device__
 * symbols apart; anything else is pageable host memory. New device memory
 * is filled with 0xCD bytes, so a program (or a shim) that reads memory
 * nobody wrote sees garbage, not zeros. Pinned memory's device address is
 * its host address (cudaHostGetDevicePointer, as with unified addressing);
 * the first mapped allocation starts the device thread (device_thread.c).
 *
 * Rules measured on the H200 (tests/conformance.c):
 * - pinned memory counts as device-accessible: a HostToDevice copy needs a
 *   device-accessible destination, DeviceToHost a device-accessible
 *   source, DeviceToDevice both; HostToHost and Default take anything;
 *   otherwise cudaErrorInvalidValue. A range that runs past its allocation
 *   is cudaErrorInvalidValue; a kind outside the enum is
 *   cudaErrorInvalidMemcpyDirection.
 * - memset needs device-accessible memory (pageable: cudaErrorInvalidValue).
 * - cudaFree takes only the base of a device/managed allocation, and
 *   cudaFreeHost only the base of a pinned one; both wait for the device.
 * - cudaMemcpyAsync from pageable memory returns before the copy ran but the
 *   bytes are taken at call time (the stand-in copies them into a staging
 *   buffer); cudaMemcpyAsync into pageable memory returns only when the copy
 *   is done (the stand-in runs the queue up to it).
 * - During capture a pageable copy becomes an ordinary memcpy node that
 *   reads the host memory when the graph runs (no staging).
 * Synchronous cudaMemcpy waits for the copy unless both sides are device
 * memory; synchronous cudaMemset waits only for pinned or managed targets
 * (CUDA's "API synchronization behavior" page). Unlike a stream or device
 * synchronisation, a synchronous copy on the legacy stream is no "unsafe"
 * call during another stream's global-mode capture (measured).
 */
#include <stdlib.h>
#include <string.h>

#include <cuda.h>

#include "standin.h"

struct alloc {
    char *base;
    size_t size;
    enum mem_kind kind;
    bool owned;             /* freed by the stand-in (symbols are not) */
};

static struct alloc *table;     /* sorted by base */
static size_t ntable, captable;

/* Index of the first entry whose base is above p. */
static size_t table_upper(const void *p)
{
    size_t lo = 0, hi = ntable;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if ((uintptr_t)table[mid].base <= (uintptr_t)p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Adds an allocation to the table. */
static void table_add(void *base, size_t size, enum mem_kind kind, bool owned)
{
    if (ntable == captable) {
        captable = captable ? captable * 2 : 64;
        table = xrealloc(table, captable * sizeof *table);
    }
    size_t i = table_upper(base);
    memmove(&table[i + 1], &table[i], (ntable - i) * sizeof *table);
    table[i] = (struct alloc){base, size, kind, owned};
    ntable++;
}

/* The table entry whose base is exactly p, or NULL. */
static struct alloc *table_base(const void *p)
{
    size_t i = table_upper(p);
    return i > 0 && table[i - 1].base == p ? &table[i - 1] : NULL;
}

/* Kind of memory at p; base and size of its allocation when tracked. */
enum mem_kind mem_lookup(const void *p, void **base, size_t *size)
{
    size_t i = table_upper(p);
    if (i > 0) {
        struct alloc *a = &table[i - 1];
        if ((uintptr_t)p < (uintptr_t)a->base + a->size ||
            (a->size == 0 && p == a->base)) {
            if (base)
                *base = a->base;
            if (size)
                *size = a->size;
            return a->kind;
        }
    }
    return MEM_PAGEABLE;
}

/* True for memory the device can reach (device, managed, pinned, symbol). */
static bool device_accessible(enum mem_kind k)
{
    return k != MEM_PAGEABLE;
}

/* True for memory that lives on the device only. */
static bool device_only(enum mem_kind k)
{
    return k == MEM_DEVICE || k == MEM_SYMBOL;
}

/* True when [p, p + n) stays inside p's allocation (pageable: unchecked). */
static bool range_fits(const void *p, size_t n)
{
    void *base = NULL;
    size_t size = 0;
    if (mem_lookup(p, &base, &size) == MEM_PAGEABLE)
        return true;
    return (uintptr_t)p - (uintptr_t)base + n <= size;
}

/* Device-side range check for the CPU twins (k_poke). */
int standin_device_range_ok(const void *p, size_t n)
{
    return p && device_accessible(mem_lookup(p, NULL, NULL)) && range_fits(p, n);
}

/* Registers a __device__ variable's CPU twin. */
void standin_register_symbol(const void *addr, size_t size, const char *name)
{
    (void)name;
    table_add((void *)addr, size, MEM_SYMBOL, false);
}

/* Memory class for graph update rules: 1 device side, 0 host side. */
int mem_type_class(const void *p)
{
    enum mem_kind k = mem_lookup(p, NULL, NULL);
    return k == MEM_DEVICE || k == MEM_SYMBOL || k == MEM_MANAGED;
}

/* cudaPointerGetAttributes's body: what the stand-in's table knows of p. */
static cudaError_t pointer_attributes(struct cudaPointerAttributes *a, const void *p)
{
    CHECK(!a, cudaErrorInvalidValue);
    memset(a, 0, sizeof *a);
    switch (mem_lookup(p, NULL, NULL)) {
    case MEM_PAGEABLE:
        a->type = cudaMemoryTypeUnregistered;
        a->device = -2;
        a->hostPointer = (void *)p;
        break;
    case MEM_PINNED:
        a->type = cudaMemoryTypeHost;
        a->hostPointer = a->devicePointer = (void *)p;
        break;
    case MEM_MANAGED:
        a->type = cudaMemoryTypeManaged;
        a->hostPointer = a->devicePointer = (void *)p;
        break;
    case MEM_DEVICE:
    case MEM_SYMBOL:
        a->type = cudaMemoryTypeDevice;
        a->devicePointer = (void *)p;
        break;
    }
    return cudaSuccess;
}

/* cudaPointerGetAttributes. */
cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes, const void *ptr)
{
    API(pointer_attributes(attributes, ptr));
}

/* Allocates size bytes of the given kind (256-byte aligned, 0xCD filled). */
static void *mem_new(size_t size, enum mem_kind kind)
{
    void *p = NULL;
    if (posix_memalign(&p, 256, size ? (size + 255) & ~(size_t)255 : 256) != 0)
        return NULL;
    memset(p, kind == MEM_DEVICE ? 0xcd : 0, size);
    table_add(p, size, kind, true);
    return p;
}

/* Device memory that lives until exit (graph allocation nodes). */
void *mem_alloc_device(size_t n)
{
    return mem_new(n, MEM_DEVICE);
}

/* Frees an allocation now. */
void mem_release(void *ptr)
{
    struct alloc *a = table_base(ptr);
    if (!a)
        return;
    size_t i = (size_t)(a - table);
    if (a->owned)
        free(a->base);
    memmove(&table[i], &table[i + 1], (ntable - i - 1) * sizeof *table);
    ntable--;
}

/* ------------------------------------------------------------ allocation */

/* Allocates memory of a kind after the capture-mode check. */
cudaError_t mem_alloc(void **out, size_t size, enum mem_kind kind)
{
    CHECK(!out, cudaErrorInvalidValue);
    TRY(capture_check_unsafe());
    if (size == 0 && kind == MEM_DEVICE) {
        *out = NULL;
        return cudaSuccess;
    }
    void *p = mem_new(size, kind);
    CHECK(!p, cudaErrorMemoryAllocation);
    *out = p;
    return cudaSuccess;
}

/* cudaMalloc. */
cudaError_t cudaMalloc(void **devPtr, size_t size)
{
    API(mem_alloc(devPtr, size, MEM_DEVICE));
}

/* cudaMallocHost: pinned host memory. */
cudaError_t cudaMallocHost(void **ptr, size_t size)
{
    API(mem_alloc(ptr, size, MEM_PINNED));
}

/* Checks cudaHostAlloc's flags, then allocates pinned memory; mapped memory starts the device thread. */
cudaError_t mem_host_alloc(void **p, size_t size, unsigned flags)
{
    const unsigned known = cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined;
    CHECK(flags & ~known, cudaErrorInvalidValue);
    TRY(mem_alloc(p, size, MEM_PINNED));
    /* The host may now wait for the device by reading this memory, without a call: from here on the
     * device must make progress by itself (device_thread.c). */
    if (flags & cudaHostAllocMapped)
        device_thread_start();
    return cudaSuccess;
}

/* cudaHostAlloc. */
cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags)
{
    API(mem_host_alloc(pHost, size, flags));
}

/* The device address of pinned memory: the host address (one address space, as with UVA). */
cudaError_t mem_host_device_pointer(void **dev, void *host, unsigned flags)
{
    CHECK(!dev || flags != 0, cudaErrorInvalidValue);
    CHECK(mem_lookup(host, NULL, NULL) != MEM_PINNED, cudaErrorInvalidValue);
    *dev = host;
    return cudaSuccess;
}

/* cudaHostGetDevicePointer. */
cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags)
{
    API(mem_host_device_pointer(pDevice, pHost, flags));
}

/* Checks cudaMallocManaged's flags, then allocates managed memory. */
static cudaError_t managed_alloc(void **p, size_t size, unsigned flags)
{
    CHECK(flags != cudaMemAttachGlobal && flags != cudaMemAttachHost, cudaErrorInvalidValue);
    CHECK(size == 0, cudaErrorInvalidValue);
    return mem_alloc(p, size, MEM_MANAGED);
}

/* cudaMallocManaged. */
cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags)
{
    API(managed_alloc(devPtr, size, flags));
}

/* Frees an allocation of an allowed kind after waiting for the device. */
cudaError_t mem_free(void *p, bool host)
{
    TRY(capture_check_unsafe());
    if (!p)
        return cudaSuccess;
    struct alloc *a = table_base(p);
    CHECK(!a || !a->owned, cudaErrorInvalidValue);
    if (host)
        CHECK(a->kind != MEM_PINNED, cudaErrorInvalidValue);
    else
        CHECK(a->kind != MEM_DEVICE && a->kind != MEM_MANAGED, cudaErrorInvalidValue);
    TRY(sched_run_all());
    mem_release(p);
    return cudaSuccess;
}

/* cudaFree: waits for the device, then frees. */
cudaError_t cudaFree(void *devPtr)
{
    API(mem_free(devPtr, false));
}

/* cudaFreeHost: waits for the device, then frees. */
cudaError_t cudaFreeHost(void *ptr)
{
    API(mem_free(ptr, true));
}

/* Stream-ordered allocation: at once outside capture, a node inside. */
cudaError_t mem_malloc_async(void **p, size_t size, cudaStream_t h, bool ptsz)
{
    struct stream *s = NULL;
    CHECK(!p, cudaErrorInvalidValue);
    TRY(stream_get(h, ptsz, &s));
    if (s->cap) {
        CHECK(s->cap->invalidated, cudaErrorStreamCaptureInvalidated);
        /* Simplification: the graph's memory is reserved now, at one
         * address for every launch, and never returned. */
        void *mem = mem_alloc_device(size);
        struct work w = {.kind = W_MEM_ALLOC, .u.mem = {mem, size}};
        TRY(capture_add(s, &w));
        *p = mem;
        return cudaSuccess;
    }
    if (s == stream_legacy())
        TRY(capture_check_legacy());
    *p = size ? mem_new(size, MEM_DEVICE) : NULL;
    return cudaSuccess;
}

/* cudaMallocAsync. */
cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t hStream)
{
    API(mem_malloc_async(devPtr, size, hStream, false));
}

/* cudaMallocAsync, per-thread default stream flavour. */
cudaError_t cudaMallocAsync_ptsz(void **devPtr, size_t size, cudaStream_t hStream)
{
    API(mem_malloc_async(devPtr, size, hStream, true));
}

/* Stream-ordered free: queued outside capture, a node inside. */
cudaError_t mem_free_async(void *p, cudaStream_t h, bool ptsz)
{
    struct stream *s = NULL;
    TRY(stream_get(h, ptsz, &s));
    if (!p)
        return cudaSuccess;
    struct alloc *a = table_base(p);
    CHECK(!a || a->kind != MEM_DEVICE, cudaErrorInvalidValue);
    struct work w = {.kind = s->cap ? W_MEM_FREE : W_FREE, .u.mem = {p, a->size}};
    return stream_submit(s, &w, NULL);
}

/* cudaFreeAsync. */
cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t hStream)
{
    API(mem_free_async(devPtr, hStream, false));
}

/* cudaFreeAsync, per-thread default stream flavour. */
cudaError_t cudaFreeAsync_ptsz(void *devPtr, cudaStream_t hStream)
{
    API(mem_free_async(devPtr, hStream, true));
}

/* ------------------------------------------------------------ copies */

/* Address of byte (x, y, z) of a pitched pointer. */
static char *pitched_at(struct cudaPitchedPtr p, struct cudaPos pos)
{
    return (char *)p.ptr + pos.z * p.pitch * p.ysize + pos.y * p.pitch + pos.x;
}

/* Performs a 3-D copy; staging, when set, replaces the source (packed). */
void copy_run(const struct cudaMemcpy3DParms *p, const void *staging)
{
    const struct cudaExtent e = p->extent;
    for (size_t z = 0; z < e.depth; z++)
        for (size_t y = 0; y < e.height; y++) {
            struct cudaPos sp = {p->srcPos.x, p->srcPos.y + y, p->srcPos.z + z};
            struct cudaPos dp = {p->dstPos.x, p->dstPos.y + y, p->dstPos.z + z};
            const char *src = staging ? (const char *)staging + (z * e.height + y) * e.width
                                      : pitched_at(p->srcPtr, sp);
            memmove(pitched_at(p->dstPtr, dp), src, e.width);
        }
}

/* Performs a memset of 1, 2 or 4-byte elements over height rows. */
void set_run(const struct cudaMemsetParams *p)
{
    for (size_t y = 0; y < p->height; y++) {
        char *row = (char *)p->dst + y * p->pitch;
        for (size_t x = 0; x < p->width; x++) {
            if (p->elementSize == 1)
                ((uint8_t *)row)[x] = (uint8_t)p->value;
            else if (p->elementSize == 2)
                ((uint16_t *)row)[x] = (uint16_t)p->value;
            else
                ((uint32_t *)row)[x] = p->value;
        }
    }
}

/* Checks one side of a copy against the copy kind and its allocation. */
static cudaError_t copy_side_ok(const void *p, size_t span, bool device_side)
{
    CHECK(!p, cudaErrorInvalidValue);
    CHECK(device_side && !device_accessible(mem_lookup(p, NULL, NULL)), cudaErrorInvalidValue);
    CHECK(!range_fits(p, span), cudaErrorInvalidValue);
    return cudaSuccess;
}

/* Validates a 2-D copy and describes it as 3-D runtime parameters. */
cudaError_t copy_params_2d(struct cudaMemcpy3DParms *p, void *dst, size_t dpitch,
                           const void *src, size_t spitch, size_t width,
                           size_t height, enum cudaMemcpyKind kind)
{
    CHECK((unsigned)kind > cudaMemcpyDefault, cudaErrorInvalidMemcpyDirection);
    CHECK(height > 1 && (spitch < width || dpitch < width), cudaErrorInvalidPitchValue);
    memset(p, 0, sizeof *p);
    /* A 1-D copy keeps pitch, xsize and ysize at 0, as cudaGraphMemcpyNodeGetParams
     * shows for a captured cudaMemcpyAsync on the H200. */
    if (height == 1) {
        p->srcPtr = (struct cudaPitchedPtr){(void *)src, 0, 0, 0};
        p->dstPtr = (struct cudaPitchedPtr){dst, 0, 0, 0};
    } else {
        p->srcPtr = (struct cudaPitchedPtr){(void *)src, spitch, width, height};
        p->dstPtr = (struct cudaPitchedPtr){dst, dpitch, width, height};
    }
    p->extent = (struct cudaExtent){width, height, 1};
    p->kind = kind;
    if (width == 0 || height == 0)
        return cudaSuccess;
    size_t sspan = spitch * (height - 1) + width, dspan = dpitch * (height - 1) + width;
    TRY(copy_side_ok(src, sspan, kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice));
    TRY(copy_side_ok(dst, dspan, kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice));
    return cudaSuccess;
}

/* Validates user-given 3-D copy parameters (pitched pointers only). */
cudaError_t copy_params_check(const struct cudaMemcpy3DParms *p)
{
    const struct cudaExtent e = p->extent;
    /* Simplification: CUDA arrays are not modelled. */
    CHECK(p->srcArray || p->dstArray, cudaErrorInvalidValue);
    CHECK((unsigned)p->kind > cudaMemcpyDefault, cudaErrorInvalidMemcpyDirection);
    if (e.width == 0 || e.height == 0 || e.depth == 0)
        return cudaSuccess;
    CHECK((e.height > 1 || e.depth > 1) &&
          (p->srcPtr.pitch < p->srcPos.x + e.width || p->dstPtr.pitch < p->dstPos.x + e.width),
          cudaErrorInvalidPitchValue);
    struct cudaPos slast = {p->srcPos.x, p->srcPos.y + e.height - 1, p->srcPos.z + e.depth - 1};
    struct cudaPos dlast = {p->dstPos.x, p->dstPos.y + e.height - 1, p->dstPos.z + e.depth - 1};
    const char *s0 = pitched_at(p->srcPtr, p->srcPos), *d0 = pitched_at(p->dstPtr, p->dstPos);
    size_t sspan = (size_t)(pitched_at(p->srcPtr, slast) - s0) + e.width;
    size_t dspan = (size_t)(pitched_at(p->dstPtr, dlast) - d0) + e.width;
    bool src_dev = p->kind == cudaMemcpyDeviceToHost || p->kind == cudaMemcpyDeviceToDevice;
    bool dst_dev = p->kind == cudaMemcpyHostToDevice || p->kind == cudaMemcpyDeviceToDevice;
    CHECK(!p->srcPtr.ptr || !p->dstPtr.ptr, cudaErrorInvalidValue);
    TRY(copy_side_ok(s0, sspan, src_dev));
    TRY(copy_side_ok(d0, dspan, dst_dev));
    return cudaSuccess;
}

/* Validates user-given memset parameters. */
cudaError_t memset_params_check(const struct cudaMemsetParams *p)
{
    CHECK(p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4,
          cudaErrorInvalidValue);
    if (p->width == 0 || p->height == 0)
        return cudaSuccess;
    CHECK(!p->dst || !device_accessible(mem_lookup(p->dst, NULL, NULL)), cudaErrorInvalidValue);
    size_t row = p->width * p->elementSize;
    CHECK(p->height > 1 && p->pitch < row, cudaErrorInvalidValue);
    CHECK(!range_fits(p->dst, p->pitch * (p->height - 1) + row), cudaErrorInvalidValue);
    return cudaSuccess;
}

/* Queues (or captures) a copy with the host-synchronisation rules above. */
static cudaError_t copy_submit(struct stream *s, struct cudaMemcpy3DParms *p, bool sync_api)
{
    const struct cudaExtent e = p->extent;
    if (e.width == 0 || e.height == 0 || e.depth == 0)
        return cudaSuccess;
    enum mem_kind sk = mem_lookup(p->srcPtr.ptr, NULL, NULL);
    enum mem_kind dk = mem_lookup(p->dstPtr.ptr, NULL, NULL);
    struct work w = {.kind = W_COPY, .u.copy = {.p = *p}};

    if (s->cap) {
        if (sync_api)   /* a synchronous copy would wait for the capture */
            return capture_check_stream_sync(s);
        return stream_submit(s, &w, NULL);
    }
    bool both_device = device_only(sk) && device_only(dk);
    bool wait = sync_api ? !both_device
                         : dk == MEM_PAGEABLE;  /* into pageable: synchronous */
    if (s == stream_legacy())
        TRY(capture_check_legacy());
    if (!wait && sk == MEM_PAGEABLE) {
        /* Pageable source: take the bytes now, as CUDA's staging does. */
        size_t n = e.width * e.height * e.depth;
        char *stage = xmalloc(n);
        for (size_t z = 0; z < e.depth; z++)
            for (size_t y = 0; y < e.height; y++) {
                struct cudaPos sp = {p->srcPos.x, p->srcPos.y + y, p->srcPos.z + z};
                memcpy(stage + (z * e.height + y) * e.width, pitched_at(p->srcPtr, sp), e.width);
            }
        w.u.copy.staging = stage;
    }
    uint64_t op = 0;
    TRY(stream_submit(s, &w, &op));
    return wait ? sched_run_until(op) : cudaSuccess;
}

/* A 1-D or 2-D copy on a stream handle. */
static cudaError_t copy2d(void *dst, size_t dpitch, const void *src, size_t spitch,
                         size_t width, size_t height, enum cudaMemcpyKind kind,
                         cudaStream_t h, bool ptds, bool sync_api)
{
    struct cudaMemcpy3DParms p;
    struct stream *s = NULL;
    TRY(stream_get(h, ptds, &s));
    cudaError_t e = copy_params_2d(&p, dst, dpitch, src, spitch, width, height, kind);
    if (e != cudaSuccess)
        return capture_fail(s, e);
    return copy_submit(s, &p, sync_api);
}

/* cudaMemcpy: on the legacy stream, waits unless device to device. */
cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
    API(copy2d(dst, count, src, count, count, 1, kind, NULL, false, true));
}

/* cudaMemcpy on the per-thread default stream. */
cudaError_t cudaMemcpy_ptds(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
    API(copy2d(dst, count, src, count, count, 1, kind, NULL, true, true));
}

/* cudaMemcpyAsync. */
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream)
{
    API(copy2d(dst, count, src, count, count, 1, kind, stream, false, false));
}

/*
 * cudaMemcpyBatchAsync: not hooked by the shim, and made through the
 * driver (cuMemcpyBatchAsync_v2, looked up by name, so that a preloaded
 * shim's wrapper is the one called), as CUDA's runtime makes its work:
 * the shim then sees runtime work that no hooked call announced.
 */
cudaError_t cudaMemcpyBatchAsync(void *const *dsts, const void *const *srcs, const size_t *sizes, size_t count,
                                 struct cudaMemcpyAttributes *attrs, size_t *attrsIdxs, size_t numAttrs,
                                 cudaStream_t stream)
{
    typedef CUresult (*batch_fn)(CUdeviceptr *, CUdeviceptr *, size_t *, size_t, CUmemcpyAttributes *, size_t *,
                                 size_t, CUstream);
    batch_fn batch = (batch_fn)driver_function("cuMemcpyBatchAsync_v2");
    if (batch == NULL)
        API(cudaErrorNotSupported);
    CUresult r = batch((CUdeviceptr *)dsts, (CUdeviceptr *)srcs, (size_t *)sizes, count, (CUmemcpyAttributes *)attrs,
                       attrsIdxs, numAttrs, (CUstream)stream);
    API(r == CUDA_SUCCESS                            ? cudaSuccess
        : r == CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED ? cudaErrorStreamCaptureUnsupported
                                                     : cudaErrorInvalidValue);
}

/* cudaMemcpyAsync, per-thread default stream flavour. */
cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t count,
                                 enum cudaMemcpyKind kind, cudaStream_t stream)
{
    API(copy2d(dst, count, src, count, count, 1, kind, stream, true, false));
}

/* cudaMemcpy2D. */
cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                         size_t height, enum cudaMemcpyKind kind)
{
    API(copy2d(dst, dpitch, src, spitch, width, height, kind, NULL, false, true));
}

/* cudaMemcpy2D on the per-thread default stream. */
cudaError_t cudaMemcpy2D_ptds(void *dst, size_t dpitch, const void *src, size_t spitch,
                              size_t width, size_t height, enum cudaMemcpyKind kind)
{
    API(copy2d(dst, dpitch, src, spitch, width, height, kind, NULL, true, true));
}

/* cudaMemcpy2DAsync. */
cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                              size_t width, size_t height, enum cudaMemcpyKind kind,
                              cudaStream_t stream)
{
    API(copy2d(dst, dpitch, src, spitch, width, height, kind, stream, false, false));
}

/* cudaMemcpy2DAsync, per-thread default stream flavour. */
cudaError_t cudaMemcpy2DAsync_ptsz(void *dst, size_t dpitch, const void *src, size_t spitch,
                                   size_t width, size_t height, enum cudaMemcpyKind kind,
                                   cudaStream_t stream)
{
    API(copy2d(dst, dpitch, src, spitch, width, height, kind, stream, true, false));
}

/* A copy to or from a registered __device__ symbol. */
static cudaError_t symbol_copy(void *dst, const void *src, const void *symbol, size_t count,
                               size_t offset, enum cudaMemcpyKind kind, bool to_symbol,
                               cudaStream_t h, bool ptds, bool sync_api)
{
    struct alloc *a = table_base(symbol);
    CHECK(!a || a->kind != MEM_SYMBOL, cudaErrorInvalidSymbol);
    enum cudaMemcpyKind ok = to_symbol ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
    CHECK(kind != ok && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault,
          cudaErrorInvalidMemcpyDirection);
    CHECK(offset > a->size || count > a->size - offset, cudaErrorInvalidValue);
    char *at = a->base + offset;
    return copy2d(to_symbol ? at : dst, count, to_symbol ? src : at, count, count, 1, kind,
                  h, ptds, sync_api);
}

/* cudaMemcpyToSymbol. */
cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset,
                               enum cudaMemcpyKind kind)
{
    API(symbol_copy(NULL, src, symbol, count, offset, kind, true, NULL, false, true));
}

/* cudaMemcpyToSymbol on the per-thread default stream. */
cudaError_t cudaMemcpyToSymbol_ptds(const void *symbol, const void *src, size_t count,
                                    size_t offset, enum cudaMemcpyKind kind)
{
    API(symbol_copy(NULL, src, symbol, count, offset, kind, true, NULL, true, true));
}

/* cudaMemcpyFromSymbol. */
cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset,
                                 enum cudaMemcpyKind kind)
{
    API(symbol_copy(dst, NULL, symbol, count, offset, kind, false, NULL, false, true));
}

/* cudaMemcpyFromSymbol on the per-thread default stream. */
cudaError_t cudaMemcpyFromSymbol_ptds(void *dst, const void *symbol, size_t count,
                                      size_t offset, enum cudaMemcpyKind kind)
{
    API(symbol_copy(dst, NULL, symbol, count, offset, kind, false, NULL, true, true));
}

/* cudaMemcpyToSymbolAsync. */
cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count,
                                    size_t offset, enum cudaMemcpyKind kind, cudaStream_t stream)
{
    API(symbol_copy(NULL, src, symbol, count, offset, kind, true, stream, false, false));
}

/* cudaMemcpyToSymbolAsync, per-thread default stream flavour. */
cudaError_t cudaMemcpyToSymbolAsync_ptsz(const void *symbol, const void *src, size_t count,
                                         size_t offset, enum cudaMemcpyKind kind,
                                         cudaStream_t stream)
{
    API(symbol_copy(NULL, src, symbol, count, offset, kind, true, stream, true, false));
}

/* cudaMemcpyFromSymbolAsync. */
cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count,
                                      size_t offset, enum cudaMemcpyKind kind,
                                      cudaStream_t stream)
{
    API(symbol_copy(dst, NULL, symbol, count, offset, kind, false, stream, false, false));
}

/* cudaMemcpyFromSymbolAsync, per-thread default stream flavour. */
cudaError_t cudaMemcpyFromSymbolAsync_ptsz(void *dst, const void *symbol, size_t count,
                                           size_t offset, enum cudaMemcpyKind kind,
                                           cudaStream_t stream)
{
    API(symbol_copy(dst, NULL, symbol, count, offset, kind, false, stream, true, false));
}

/* A peer copy: the stand-in has one device, so both devices must be 0. */
static cudaError_t peer_copy(void *dst, int dstDevice, const void *src, int srcDevice,
                             size_t count, cudaStream_t h, bool sync_api)
{
    CHECK(dstDevice != 0 || srcDevice != 0, cudaErrorInvalidDevice);
    return copy2d(dst, count, src, count, count, 1, cudaMemcpyDeviceToDevice, h, false, sync_api);
}

/* cudaMemcpyPeer. */
cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice, size_t count)
{
    API(peer_copy(dst, dstDevice, src, srcDevice, count, NULL, true));
}

/* cudaMemcpyPeerAsync. */
cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice,
                                size_t count, cudaStream_t stream)
{
    API(peer_copy(dst, dstDevice, src, srcDevice, count, stream, false));
}

/* ------------------------------------------------------------ memsets */

/* A 1-D or 2-D memset of width elements of elem (1, 2 or 4) bytes per row on a stream handle. */
static cudaError_t memset_elems(void *p, size_t pitch, unsigned value, unsigned elem, size_t width,
                                size_t height, cudaStream_t h, bool ptds, bool sync_api)
{
    struct stream *s = NULL;
    TRY(stream_get(h, ptds, &s));
    CHECK(elem != 1 && elem != 2 && elem != 4, cudaErrorInvalidValue);
    if (width == 0 || height == 0)
        return cudaSuccess;
    size_t row = width * elem;
    enum mem_kind k = mem_lookup(p, NULL, NULL);
    if (!p || (height > 1 && pitch < row) || !device_accessible(k) ||
        !range_fits(p, pitch * (height - 1) + row) || ((uintptr_t)p % elem) != 0)
        return capture_fail(s, cudaErrorInvalidValue);
    unsigned v = elem == 1 ? (unsigned char)value : elem == 2 ? (uint16_t)value : value;
    struct work w = {.kind = W_SET, .u.set = {p, height > 1 ? pitch : 0, v, elem, width, height}};
    if (s->cap) {
        if (sync_api)   /* a synchronous memset would wait for the capture */
            return capture_check_stream_sync(s);
        return stream_submit(s, &w, NULL);
    }
    bool wait = sync_api && (k == MEM_PINNED || k == MEM_MANAGED);
    if (s == stream_legacy())
        TRY(capture_check_legacy());
    uint64_t op = 0;
    TRY(stream_submit(s, &w, &op));
    return wait ? sched_run_until(op) : cudaSuccess;
}

/* A 1-D or 2-D byte memset on a stream handle. */
static cudaError_t memset2d(void *p, size_t pitch, int value, size_t width, size_t height,
                            cudaStream_t h, bool ptds, bool sync_api)
{
    return memset_elems(p, pitch, (unsigned char)value, 1, width, height, h, ptds, sync_api);
}

/* cudaMemset: asynchronous unless the target is pinned or managed. */
cudaError_t cudaMemset(void *devPtr, int value, size_t count)
{
    API(memset2d(devPtr, count, value, count, 1, NULL, false, true));
}

/* cudaMemset on the per-thread default stream. */
cudaError_t cudaMemset_ptds(void *devPtr, int value, size_t count)
{
    API(memset2d(devPtr, count, value, count, 1, NULL, true, true));
}

/* cudaMemsetAsync. */
cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream)
{
    API(memset2d(devPtr, count, value, count, 1, stream, false, false));
}

/* cudaMemsetAsync, per-thread default stream flavour. */
cudaError_t cudaMemsetAsync_ptsz(void *devPtr, int value, size_t count, cudaStream_t stream)
{
    API(memset2d(devPtr, count, value, count, 1, stream, true, false));
}

/* cudaMemset2D. */
cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width, size_t height)
{
    API(memset2d(devPtr, pitch, value, width, height, NULL, false, true));
}

/* cudaMemset2D on the per-thread default stream. */
cudaError_t cudaMemset2D_ptds(void *devPtr, size_t pitch, int value, size_t width, size_t height)
{
    API(memset2d(devPtr, pitch, value, width, height, NULL, true, true));
}

/* cudaMemset2DAsync. */
cudaError_t cudaMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width, size_t height,
                              cudaStream_t stream)
{
    API(memset2d(devPtr, pitch, value, width, height, stream, false, false));
}

/* cudaMemset2DAsync, per-thread default stream flavour. */
cudaError_t cudaMemset2DAsync_ptsz(void *devPtr, size_t pitch, int value, size_t width,
                                   size_t height, cudaStream_t stream)
{
    API(memset2d(devPtr, pitch, value, width, height, stream, true, false));
}

/* ------------------------------------------------------------ the driver's entries */

/* A 1-D copy through the driver (cuMemcpy*: the runtime's sync rules). */
cudaError_t standin_driver_memcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                                  cudaStream_t h, bool ptsz, bool sync)
{
    DRIVER_CALL(copy2d(dst, count, src, count, count, 1, kind, h, ptsz, sync));
}

/* A memset of 1, 2 or 4-byte elements through the driver (cuMemsetD8/16/32, D2D). */
cudaError_t standin_driver_memset(void *dst, size_t pitch, unsigned value, unsigned elem, size_t width,
                                  size_t height, cudaStream_t h, bool ptsz, bool sync)
{
    DRIVER_CALL(memset_elems(dst, pitch, value, elem, width, height, h, ptsz, sync));
}

/* The memory type of p, as cudaPointerGetAttributes gives it. */
static cudaError_t memory_type(const void *p, enum cudaMemoryType *type)
{
    struct cudaPointerAttributes a;
    CHECK(!type, cudaErrorInvalidValue);
    TRY(pointer_attributes(&a, p));
    *type = a.type;
    return cudaSuccess;
}

/* The memory type of p through the driver (cuPointerGetAttribute). */
cudaError_t standin_driver_memory_type(const void *p, enum cudaMemoryType *type)
{
    DRIVER_CALL(memory_type(p, type));
}
