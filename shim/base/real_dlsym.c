/* SPDX-License-Identifier: MIT */
/* glibc's own dlsym, found without calling dlsym (the shim's would answer): for whoever looks names up. */
#define _GNU_SOURCE
#include "config.h"

#include <dlfcn.h>

#include "real_dlsym.h"

_Atomic(dlsym_fn) real_dlsym_cached;

/* Finds glibc's dlsym without calling dlsym (ours would answer): by version, newest first. */
DLSYM_UNINSTRUMENTED dlsym_fn real_dlsym_find(void)
{
    dlsym_fn fn = NULL;
    static const char *const versions[] = {"GLIBC_2.34", "GLIBC_2.2.5", "GLIBC_2.17", "GLIBC_2.0"};
    for (unsigned i = 0; fn == NULL && i < sizeof versions / sizeof *versions; i++)
        fn = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", versions[i]);
    if (fn)
        atomic_store_explicit(&real_dlsym_cached, fn, memory_order_release);
    return fn;
}
