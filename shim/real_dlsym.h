/* glibc's own dlsym, found without calling dlsym (the shim's would answer): for whoever looks names up. */
#ifndef REPRISE_REAL_DLSYM_H
#define REPRISE_REAL_DLSYM_H

#include <stdatomic.h>
#include <stddef.h>

typedef void *(*dlsym_fn)(void *, const char *);

/* glibc's dlsym once found (real_dlsym_function). */
extern _Atomic(dlsym_fn) real_dlsym_cached __attribute__((visibility("hidden")));

/* Finds glibc's dlsym by version, newest first, and keeps it; NULL only if it cannot be found. */
dlsym_fn real_dlsym_find(void);

/* glibc's dlsym: one load once found (the shim's exported dlsym tail-calls it). */
static inline dlsym_fn real_dlsym_function(void)
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
