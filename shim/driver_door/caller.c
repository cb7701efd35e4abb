/* SPDX-License-Identifier: MIT */
/* Who made a driver call: the text ranges of the interposed runtime, libcuda and the shim. */
#define _GNU_SOURCE
#include "config.h"

#include <link.h>
#include <pthread.h>

#include "caller.h"
#include "hooks.h"
#include "libcuda.h"
#include "load_counters.h"
#include "real.h"

struct text_range caller_ranges[CALLER_RANGES];
__thread struct caller_seen caller_last_outside __attribute__((tls_model("initial-exec")));

static pthread_mutex_t scan_lock = PTHREAD_MUTEX_INITIALIZER;
static struct load_counters scanned = LOAD_COUNTERS_NEVER; /* the readings before the last scan, under scan_lock */
atomic_uint caller_scanned_generation; /* real_found_generation + 1 at a scan that found libcuda and the shim */

/* One object to find: the one holding address `inside`; its text goes to `range`. */
struct wanted {
    uintptr_t inside;
    uintptr_t lo, hi;
    bool found;
};

struct scan {
    struct wanted wanted[CALLER_RANGES];
};

/* Whether address a lies in one of the object's loaded segments. */
static bool object_holds(const struct dl_phdr_info *info, uintptr_t a)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t start = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && a - start < ph->p_memsz)
            return true;
    }
    return false;
}

/* Notes the executable text of the objects we look for. */
static int scan_object(struct dl_phdr_info *info, size_t size, void *ctx)
{
    struct scan *scan = ctx;
    (void)size;
    for (int w = 0; w < CALLER_RANGES; w++) {
        struct wanted *want = &scan->wanted[w];
        if (want->found || want->inside == 0 || !object_holds(info, want->inside))
            continue;
        want->lo = UINTPTR_MAX;
        for (int i = 0; i < info->dlpi_phnum; i++) {
            const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
            if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
                continue;
            uintptr_t start = info->dlpi_addr + ph->p_vaddr;
            if (start < want->lo)
                want->lo = start;
            if (start + ph->p_memsz > want->hi)
                want->hi = start + ph->p_memsz;
        }
        want->found = want->hi > want->lo;
    }
    return 0;
}

/* Looks the ranges up again if objects were loaded since; true if addr is now inside one. */
bool caller_rescan(uintptr_t addr)
{
    bool complete = true;
    for (int i = 0; i < CALLER_RANGES; i++)
        complete &= atomic_load_explicit(&caller_ranges[i].hi, memory_order_relaxed) != 0;
    unsigned generation = atomic_load_explicit(&real_found_generation, memory_order_acquire);
    if (complete) {
        /* Nothing left to find: callers' next checks stop at the generation compare (caller_is_runtime). */
        atomic_store_explicit(&caller_scanned_generation, generation + 1, memory_order_release);
        return false; /* a direct caller: the common answer, without a lock */
    }
    /*
     * A process without a dynamic runtime (the static one is in the
     * program's text) never completes the ranges: caller_is_runtime comes
     * here only once a runtime function was found since the last scan,
     * which its first hooked call does before any of its driver calls.
     */
    struct load_counters now;
    load_counters_read(&now);
    pthread_mutex_lock(&scan_lock);
    if (load_counters_changed(&scanned, &now) || atomic_load(&caller_scanned_generation) != generation + 1) {
        struct scan scan = {0};
        scan.wanted[CALLER_RUNTIME].inside = (uintptr_t)real_function(HOOK_ID_cudaGetLastError);
        scan.wanted[CALLER_DRIVER].inside = (uintptr_t)libcuda_proc_address(true); /* in libcuda's text */
        scan.wanted[CALLER_SHIM].inside = (uintptr_t)caller_rescan;
        dl_iterate_phdr(scan_object, &scan);
        for (int i = 0; i < CALLER_RANGES; i++)
            if (scan.wanted[i].found && atomic_load(&caller_ranges[i].hi) == 0) {
                /* Written once each, lo first: a reader that sees hi sees lo. */
                atomic_store_explicit(&caller_ranges[i].lo, scan.wanted[i].lo, memory_order_relaxed);
                atomic_store_explicit(&caller_ranges[i].hi, scan.wanted[i].hi, memory_order_release);
            }
        scanned = now;
        /* The runtime's range cannot appear before its functions are found (generation + 1: 0 is "never"). */
        if (atomic_load(&caller_ranges[CALLER_DRIVER].hi) && atomic_load(&caller_ranges[CALLER_SHIM].hi))
            atomic_store_explicit(&caller_scanned_generation, generation + 1, memory_order_release);
    }
    pthread_mutex_unlock(&scan_lock);
    return caller_in_ranges(addr);
}
