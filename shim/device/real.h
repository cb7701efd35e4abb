/* SPDX-License-Identifier: MIT */
/* The program's own CUDA runtime functions, found with dlsym. */
#ifndef REPRISE_REAL_H
#define REPRISE_REAL_H

#include <stdatomic.h>

#include "hooks.h"

extern void *_Atomic real_functions[HOOK_COUNT];

/* Bumped whenever a runtime function is found: a runtime was loaded (or first used) since a reading. */
extern atomic_uint real_found_generation;

/* Looks up a function of the program's CUDA runtime by name (NULL if it has none). */
void *real_lookup(const char *name);

/* The runtime's function called name (real_lookup), kept in *slot once found; NULL if it has none. */
void *real_lookup_cached(void *_Atomic *slot, const char *name);

/* Looks up the real function (NULL if the runtime does not have it). */
void *real_resolve(enum hook_id id);

/* What a wrapper returns when the runtime lacks its function; logs once. */
cudaError_t real_missing(enum hook_id id);

/* The real function, resolved on first use: libcudart may be loaded after us (dlopen). */
static inline void *real_function(enum hook_id id)
{
    void *fn = atomic_load_explicit(&real_functions[id], memory_order_acquire);
    return __builtin_expect(fn != NULL, 1) ? fn : real_resolve(id);
}

#endif
