/* SPDX-License-Identifier: MIT */
/* Calling the program's own runtime from inside the shim: the unhooked functions. */
#include "config.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>

#include "libcuda.h"
#include "real_dlsym.h"
#include "runtime.h"

static const char *const runtime_names[RT_COUNT] = {
#define RT(name, params, args) [RT_ID_##name] = #name,
#include "runtime.def"
#undef RT
};

static void *_Atomic runtime_functions[RT_COUNT];

__thread unsigned runtime_calls_known __attribute__((tls_model("initial-exec")));

/* The runtime's function called name, or NULL; looked for where the hooked ones are. */
static void *runtime_lookup(const char *name)
{
    void *fn = NULL;
    /* Any hooked function's real address tells which object the runtime is. */
    Dl_info info;
    void *anchor = real_function(HOOK_ID_cudaGetLastError);
    if (anchor && dladdr(anchor, &info) && info.dli_fname) {
        void *handle = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
        if (handle) {
            fn = real_dlsym(handle, name);
            dlclose(handle);
        }
    }
    if (fn == NULL)
        fn = real_dlsym(RTLD_NEXT, name);
    (void)dlerror();
    return fn;
}

/* The runtime's function for id, or NULL; found once, where the hooked ones are. */
void *runtime_function(enum runtime_id id)
{
    void *fn = atomic_load_explicit(&runtime_functions[id], memory_order_acquire);
    if (__builtin_expect(fn != NULL, 1))
        return fn;
    fn = runtime_lookup(runtime_names[id]);
    if (fn)
        atomic_store_explicit(&runtime_functions[id], fn, memory_order_release);
    return fn;
}

/*
 * A runtime error's name, for logs ("cudaErrorInvalidValue"): the
 * runtime's own cudaGetErrorName, called through a pointer (a process whose
 * runtime is loaded privately, as JAX's plugin loads it, has none to bind
 * at link level).  Without a runtime (a program linked with the static one)
 * every error the shim meets is a driver call's, the codes both share
 * agreeing: the driver's name ("CUDA_ERROR_INVALID_VALUE").
 */
const char *runtime_error_name(cudaError_t error)
{
    typedef const char *(*error_name_fn)(cudaError_t);
    static void *_Atomic error_name;
    static __thread char unknown[32];
    void *fn = atomic_load_explicit(&error_name, memory_order_acquire);
    if (fn == NULL && (fn = runtime_lookup("cudaGetErrorName")) != NULL)
        atomic_store_explicit(&error_name, fn, memory_order_release);
    if (fn == NULL)
        return libcuda_error_name((CUresult)error);
    const char *name = ((error_name_fn)fn)(error);
    if (name)
        return name;
    snprintf(unknown, sizeof unknown, "cudaError %d", (int)error);
    return unknown;
}
