/* SPDX-License-Identifier: MIT */
/* The real libcuda, found by name: the wrapped functions (driver_hooks.def) and the back end's own (device.def). */
#define _GNU_SOURCE
#include "config.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "libcuda.h"
#include "real_dlsym.h"

void *_Atomic libcuda_wrapped[DRIVER_COUNT];
void *_Atomic libcuda_device[DEVICE_FN_COUNT];
static void *_Atomic proc_address, *_Atomic proc_address_v2;
static atomic_bool resolved;
static pthread_mutex_t resolve_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *const device_names[DEVICE_FN_COUNT] = {
#define DEVICE_FN(name, params) [DEVICE_ID_##name] = #name,
#include "device.def"
#undef DEVICE_FN
};

/*
 * Looks every name up in libcuda once it is loaded; false while it is not.
 * Never loads it: a process that has not loaded the driver has no work for
 * the shim, and loading it would change what the program does.
 */
bool libcuda_resolve(void)
{
    if (atomic_load_explicit(&resolved, memory_order_acquire))
        return true;
    void *handle = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (handle == NULL) {
        (void)dlerror();
        return false;
    }
    pthread_mutex_lock(&resolve_lock);
    if (!atomic_load(&resolved)) {
        for (int id = 0; id < DRIVER_COUNT; id++)
            atomic_store(&libcuda_wrapped[id], real_dlsym(handle, driver_table[id].name));
        for (int id = 0; id < DEVICE_FN_COUNT; id++)
            atomic_store(&libcuda_device[id], real_dlsym(handle, device_names[id]));
        atomic_store(&proc_address, real_dlsym(handle, "cuGetProcAddress"));
        atomic_store(&proc_address_v2, real_dlsym(handle, "cuGetProcAddress_v2"));
        (void)dlerror(); /* leave no stale error for the program's own dlerror() */
        atomic_store_explicit(&resolved, true, memory_order_release);
    }
    pthread_mutex_unlock(&resolve_lock);
    dlclose(handle);
    return true;
}

/* The real cuGetProcAddress of libcuda, either version (NULL while libcuda is not loaded). */
void *libcuda_proc_address(bool v2)
{
    return libcuda_resolve() ? atomic_load(v2 ? &proc_address_v2 : &proc_address) : NULL;
}

/* A driver result's name, for logs ("CUDA_ERROR_INVALID_VALUE"). */
const char *libcuda_error_name(CUresult result)
{
    static __thread char unknown[32];
    const char *name = NULL;
    if (DEVICE_CALL(cuGetErrorName, result, &name) == CUDA_SUCCESS && name)
        return name;
    snprintf(unknown, sizeof unknown, "CUresult %d", (int)result);
    return unknown;
}

/* Makes context current on this thread if another is (or none); true if it switched (*previous: back to). */
bool libcuda_context_enter(CUcontext context, CUcontext *previous)
{
    *previous = NULL;
    return context != NULL && DEVICE_CALL(cuCtxGetCurrent, previous) == CUDA_SUCCESS && *previous != context &&
           DEVICE_CALL(cuCtxSetCurrent, context) == CUDA_SUCCESS;
}

/* Makes previous current again if libcuda_context_enter switched. */
void libcuda_context_leave(bool switched, CUcontext previous)
{
    if (switched)
        (void)DEVICE_CALL(cuCtxSetCurrent, previous);
}
