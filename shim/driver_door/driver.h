/* SPDX-License-Identifier: MIT */
/* The driver API, seen: wrappers for driver_hooks.def, handed out by cuGetProcAddress and dlsym. */
#ifndef REPRISE_DRIVER_H
#define REPRISE_DRIVER_H

#include <stdbool.h>
#include <stddef.h>

/* What to hand out for name when `how` (dlsym, cudaGetDriverEntryPoint) found `found`: our wrapper if it is libcuda's. */
void *driver_substitute(const char *name, void *found, const char *how);


/* True once a library was handed a work entry point that the table has no wrapper for; names it. */
bool driver_unwrapped_work(char *name, size_t name_len);

#endif
