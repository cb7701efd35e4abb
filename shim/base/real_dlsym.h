/* SPDX-License-Identifier: MIT */
/* glibc's own dlsym, found without calling dlsym (the shim's would answer): for whoever looks names up. */
#ifndef REPRISE_REAL_DLSYM_H
#define REPRISE_REAL_DLSYM_H

#include <stdatomic.h>
#include <stddef.h>

typedef void *(*dlsym_fn)(void *, const char *);

/*
 * For the functions the exported dlsym runs through: a sanitizer's runtime
 * (tools/dev/sanitize-check) calls dlsym while it starts, before instrumented code
 * can run (ASan's shadow memory is not mapped yet).
 */
#define DLSYM_UNINSTRUMENTED __attribute__((no_sanitize("address", "undefined", "thread")))

/* glibc's dlsym once found (real_dlsym_function). */
extern _Atomic(dlsym_fn) real_dlsym_cached __attribute__((visibility("hidden")));

/* Finds glibc's dlsym by version, newest first, and keeps it; NULL only if it cannot be found. */
DLSYM_UNINSTRUMENTED dlsym_fn real_dlsym_find(void);

/* glibc's dlsym: one load once found (the shim's exported dlsym tail-calls it). */
static inline DLSYM_UNINSTRUMENTED dlsym_fn real_dlsym_function(void)
{
    dlsym_fn fn = atomic_load_explicit(&real_dlsym_cached, memory_order_acquire);
    return __builtin_expect(fn != NULL, 1) ? fn : real_dlsym_find();
}

/* glibc's own dlsym (NULL only if it cannot be found, which glibc rules out). */
static inline void *real_dlsym(void *handle, const char *name)
{
    dlsym_fn fn = real_dlsym_function();
    return fn ? fn(handle, name) : NULL;
}

#endif
