/*
 * tests/standin/dlsym_check: what the shim's dlsym and cuGetProcAddress
 * hand out, run with the shim preloaded (tests/standin/driver.sh):
 * libcuda's work functions come back as the shim's exports (their _ptsz
 * twins for the per-thread flag), everything else untouched; RTLD_NEXT
 * still resolves relative to the caller; an unknown version is handed
 * out as it is.
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

/* Checks each rule; exits nonzero on a failure. */
int main(void)
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
