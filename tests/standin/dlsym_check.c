/* SPDX-License-Identifier: MIT */
/*
 * tests/standin/dlsym_check: what the shim's dlsym and cuGetProcAddress
 * hand out, run with the shim preloaded (tests/standin/driver.sh):
 * libcuda's work functions come back as the shim's exports (their _ptsz
 * twins for the per-thread flag), everything else untouched; RTLD_NEXT
 * still resolves relative to the caller; an unknown version is handed
 * out as it is; the allocations the fake cuBLAS uses are wrapped in every
 * version. With the argument "capture" (tests/standin/capture_library.sh),
 * only the driver's capture queries: every version and flavour of
 * cuStreamIsCapturing and cuStreamGetCaptureInfo comes back as the shim's
 * export of the same name, so that the shim can hide its own captures.
 */
#define _GNU_SOURCE
#include <dlfcn.h>

#include <cuda.h>

#include "../check.h"

typedef CUresult (*get_proc_fn)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);

/* Asks get_proc for symbol; NULL if it fails. */
static void *proc(get_proc_fn get_proc, const char *symbol, int version, cuuint64_t flags)
{
    void *fn = NULL;
    CUdriverProcAddressQueryResult status;
    return get_proc(symbol, &fn, version, flags, &status) == CUDA_SUCCESS ? fn : NULL;
}

/* What get_proc hands out for symbol at a version and flags, and the export of the shim expected for it. */
struct handed_out {
    const char *symbol;
    int version;
    cuuint64_t flags;
    const char *shim_export;
};

#define PT CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM

/* The allocations and frees the fake cuBLAS asks for (already wrapped: driver_hooks.def's WORK). */
static const struct handed_out allocations[] = {
    {"cuMemAlloc", 13000, 0, "cuMemAlloc_v2"},
    {"cuMemFree", 13000, 0, "cuMemFree_v2"},
    {"cuMemAllocAsync", 13000, 0, "cuMemAllocAsync"},
    {"cuMemAllocAsync", 13000, PT, "cuMemAllocAsync_ptsz"},
    {"cuMemFreeAsync", 13000, 0, "cuMemFreeAsync"},
    {"cuMemFreeAsync", 13000, PT, "cuMemFreeAsync_ptsz"},
    {"cuMemHostAlloc", 13000, 0, "cuMemHostAlloc"},
    {"cuMemFreeHost", 13000, 0, "cuMemFreeHost"},
};

/* Every version and flavour of the capture queries (issue 12: the shim must answer them itself). */
static const struct handed_out capture_queries[] = {
    {"cuStreamIsCapturing", 13000, 0, "cuStreamIsCapturing"},
    {"cuStreamIsCapturing", 13000, PT, "cuStreamIsCapturing_ptsz"},
    {"cuStreamGetCaptureInfo", 13000, 0, "cuStreamGetCaptureInfo_v3"},
    {"cuStreamGetCaptureInfo", 13000, PT, "cuStreamGetCaptureInfo_v3_ptsz"},
    {"cuStreamGetCaptureInfo", 12030, 0, "cuStreamGetCaptureInfo_v3"},
    {"cuStreamGetCaptureInfo", 11030, 0, "cuStreamGetCaptureInfo_v2"},
    {"cuStreamGetCaptureInfo", 11030, PT, "cuStreamGetCaptureInfo_v2_ptsz"},
    {"cuStreamGetCaptureInfo", 10010, 0, "cuStreamGetCaptureInfo"},
    {"cuStreamGetCaptureInfo", 10010, PT, "cuStreamGetCaptureInfo_ptsz"},
};

/* Checks that dlsym and get_proc hand out the shim's export for each entry (n of them). */
static void check_handed_out(void *shim, void *libcuda, get_proc_fn get_proc, const struct handed_out *h, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        void *wrapper = dlsym(shim, h[i].shim_export);
        if (wrapper == NULL)
            fprintf(stderr, "dlsym_check: the shim exports no %s\n", h[i].shim_export);
        CHECK(wrapper != NULL);
        CHECK(dlsym(libcuda, h[i].shim_export) == wrapper);
        void *got = proc(get_proc, h[i].symbol, h[i].version, h[i].flags);
        if (got != wrapper)
            fprintf(stderr, "dlsym_check: cuGetProcAddress(%s, %d, %s) is not the shim's %s\n", h[i].symbol,
                    h[i].version, h[i].flags ? "per-thread" : "default", h[i].shim_export);
        CHECK(got == wrapper);
    }
}

/* Checks each rule (with "capture": the capture queries only); exits nonzero on a failure. */
int main(int argc, char **argv)
{
    void *shim = dlopen("libreprise.so", RTLD_LAZY | RTLD_NOLOAD);
    CHECK(shim != NULL); /* run preloaded */
    /* RTLD_NEXT from the program: the next object is the preloaded shim. */
    CHECK(dlsym(RTLD_NEXT, "cudaGetLastError") == dlsym(shim, "cudaGetLastError"));
    CHECK(dlsym(RTLD_NEXT, "cudaGetLastError") != NULL);

    void *libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    CHECK(libcuda != NULL);
    get_proc_fn get_proc = (get_proc_fn)dlsym(libcuda, "cuGetProcAddress_v2");
    CHECK(get_proc == (get_proc_fn)dlsym(shim, "cuGetProcAddress_v2"));
    if (argc > 1 && strcmp(argv[1], "capture") == 0) {
        check_handed_out(shim, libcuda, get_proc, capture_queries, sizeof capture_queries / sizeof *capture_queries);
        return check_result("dlsym_check capture");
    }
    check_handed_out(shim, libcuda, get_proc, allocations, sizeof allocations / sizeof *allocations);
    /* Not a work function: libcuda's own. */
    void *device_pointer = proc(get_proc, "cuMemHostGetDevicePointer", 13000, 0);
    CHECK(device_pointer != NULL && device_pointer == dlsym(libcuda, "cuMemHostGetDevicePointer_v2"));
    CHECK(dlsym(libcuda, "cuGetProcAddress") == dlsym(shim, "cuGetProcAddress"));
    CHECK(dlsym(libcuda, "cuLaunchKernel") == dlsym(shim, "cuLaunchKernel"));
    CHECK(dlsym(libcuda, "cuLaunchKernel_ptsz") == dlsym(shim, "cuLaunchKernel_ptsz"));
    /* Not wrapped: handed out untouched; missing: NULL with an error. */
    void *private = dlsym(libcuda, "standin_private_get_proc_address");
    CHECK(private != NULL && private != dlsym(shim, "cuGetProcAddress_v2"));
    CHECK(dlsym(libcuda, "cuNoSuchFunction") == NULL);
    CHECK(dlerror() != NULL);

    CHECK(proc(get_proc, "cuLaunchKernel", 13000, CU_GET_PROC_ADDRESS_DEFAULT) == dlsym(shim, "cuLaunchKernel"));
    CHECK(proc(get_proc, "cuLaunchKernel", 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) ==
          dlsym(shim, "cuLaunchKernel_ptsz"));
    CHECK(proc(get_proc, "cuStreamSynchronize", 13000, CU_GET_PROC_ADDRESS_DEFAULT) ==
          dlsym(shim, "cuStreamSynchronize"));
    CHECK(proc(get_proc, "cuGetProcAddress", 13000, CU_GET_PROC_ADDRESS_DEFAULT) == (void *)get_proc);
    /* A version the shim does not know: libcuda's own function, not a wrapper. */
    void *future = proc(get_proc, "cuLaunchKernel", 99000, CU_GET_PROC_ADDRESS_DEFAULT);
    CHECK(future != NULL && future == dlsym(libcuda, "cuLaunchKernel_v99"));
    /* The driver's errors come back unchanged. */
    void *fn = (void *)1;
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SUCCESS;
    CHECK(get_proc("cuNoSuchFunction", &fn, 13000, 0, &status) == CUDA_ERROR_NOT_FOUND);
    CHECK(fn == NULL && status == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
    CHECK(get_proc(NULL, &fn, 13000, 0, &status) == CUDA_ERROR_INVALID_VALUE);
    return check_result("dlsym_check");
}
