/* SPDX-License-Identifier: MIT */
/* How many objects the dynamic linker has loaded and unloaded: a cheap "did anything change since?". */
#define _GNU_SOURCE
#include "config.h"

#include <link.h>

#include "load_counters.h"

/* Reads the counters from the first object and stops. */
static int read_counters(struct dl_phdr_info *info, size_t size, void *ctx)
{
    struct load_counters *now = ctx;
    (void)size;
    now->adds = info->dlpi_adds;
    now->subs = info->dlpi_subs;
    return 1;
}

/* Reads the dynamic linker's load and unload counters now. */
void load_counters_read(struct load_counters *now)
{
    *now = (struct load_counters){0};
    dl_iterate_phdr(read_counters, now);
}
