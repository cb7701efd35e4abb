/* SPDX-License-Identifier: MIT */
/* dlsym, interposed: asking libcuda for cuGetProcAddress or a wrapped driver function gets the shim's. */
#define _GNU_SOURCE
#include "config.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>

#include "dlsym.h"
#include "driver.h"
#include "real_dlsym.h"

/* The shim's own dlsym, by an address no other object's dlsym can take the place of. */
extern __typeof__(dlsym) shim_dlsym __attribute__((alias("dlsym"), visibility("hidden"), copy(dlsym)));

/* Whether programs' dlsym calls reach the shim's: no object before it in the global scope defines dlsym. */
bool dlsym_interposed(char *who, unsigned who_len)
{
    void *bound = real_dlsym(RTLD_DEFAULT, "dlsym");
    if (bound == (void *)shim_dlsym)
        return true;
    Dl_info info;
    snprintf(who, who_len, "%s", bound && dladdr(bound, &info) && info.dli_fname ? info.dli_fname : "an object");
    return false;
}

/*
 * The exported dlsym.  Every name but a driver function's goes to glibc's
 * as a tail call, so that glibc, which finds the caller by its return
 * address, resolves RTLD_NEXT relative to the program's object and not to
 * the shim (hence the optimize attribute: a call at -O0 would not be a
 * jump).  A driver name is looked up, then swapped for the shim's wrapper
 * if what was found is libcuda's function (shim/driver_door/driver.c).  Nothing here
 * needs the shim initialised: it runs from other libraries' constructors,
 * and from a sanitizer's runtime as it starts (hence uninstrumented).
 */
__attribute__((optimize("O2", "optimize-sibling-calls"))) DLSYM_UNINSTRUMENTED void *dlsym(void *handle,
                                                                                          const char *name)
{
    dlsym_fn fn = real_dlsym_function();
    if (__builtin_expect(fn == NULL, 0))
        return NULL;
    if (name[0] == 'c' && name[1] == 'u' && name[2] >= 'A' && name[2] <= 'Z') /* cuX..., not cuda or cublas */
        return driver_substitute(name, fn(handle, name), "dlsym");
    return fn(handle, name);
}
