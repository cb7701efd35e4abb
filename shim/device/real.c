/* SPDX-License-Identifier: MIT */
/* The program's own CUDA runtime functions, found with dlsym. */
#include "config.h"

#include <dlfcn.h>
#include <stdbool.h>

#include "log.h"
#include "real.h"
#include "real_dlsym.h"

void *_Atomic real_functions[HOOK_COUNT];
atomic_uint real_found_generation;
static atomic_bool missing_reported[HOOK_COUNT];

/* Runtimes to look in when RTLD_NEXT finds nothing, newest first. */
static const char *const runtime_sonames[] = {"libcudart.so.13", "libcudart.so.12", "libcudart.so"};

/* Looks up a function of the program's CUDA runtime by name (NULL if it has none). */
void *real_lookup(const char *name)
{
    void *fn = real_dlsym(RTLD_NEXT, name);
    /* A runtime that a library loaded with RTLD_LOCAL (Python extension
       modules are) is not in the global scope RTLD_NEXT searches; its calls
       still reach us because preloaded symbols come first, so look it up by
       name among the objects already loaded. */
    for (unsigned i = 0; fn == NULL && i < sizeof runtime_sonames / sizeof *runtime_sonames; i++) {
        void *handle = dlopen(runtime_sonames[i], RTLD_LAZY | RTLD_NOLOAD);
        if (handle) {
            fn = real_dlsym(handle, name);
            dlclose(handle);
        }
    }
    (void)dlerror(); /* leave no stale error for the program's own dlerror() */
    return fn;
}

/* Looks up the real function (NULL if the runtime does not have it). */
void *real_resolve(enum hook_id id)
{
    return real_lookup_cached(&real_functions[id], hook_table[id].name);
}

/* The runtime's function called name (real_lookup), kept in *slot once found; NULL if it has none. */
void *real_lookup_cached(void *_Atomic *slot, const char *name)
{
    void *fn = atomic_load_explicit(slot, memory_order_acquire);
    if (fn)
        return fn;
    fn = real_lookup(name);
    if (fn) {
        atomic_store_explicit(slot, fn, memory_order_release);
        atomic_fetch_add(&real_found_generation, 1);
    }
    return fn;
}

/* What a wrapper returns when the runtime lacks its function; logs once. */
cudaError_t real_missing(enum hook_id id)
{
    if (!atomic_exchange(&missing_reported[id], true))
        log_always(LOG_ERROR, "%s: not found in the CUDA runtime; returning cudaErrorSharedObjectSymbolNotFound",
                   hook_table[id].name);
    return cudaErrorSharedObjectSymbolNotFound;
}
