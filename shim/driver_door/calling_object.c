/* SPDX-License-Identifier: MIT */
/* Which object made a driver call, as far as the engine cares: a communication library (NCCL, NVSHMEM) or not. */
#define _GNU_SOURCE
#include "config.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <string.h>

#include "calling_object.h"
#include "cuda_libraries.h"
#include "log.h"

struct calling_object calling_objects[CALLING_OBJECTS_MAX];
atomic_uint calling_object_count;
static pthread_mutex_t learn_lock = PTHREAD_MUTEX_INITIALIZER;

/* What to look for while walking the loaded objects: the one holding address a, its text and its name. */
struct text_search {
    uintptr_t a, lo, hi;
    bool communication;
};

static bool is_communication(const char *path);

/* Notes the executable text of the object one of whose loaded segments holds search->a. */
static int find_text(struct dl_phdr_info *info, size_t size, void *ctx)
{
    struct text_search *search = ctx;
    (void)size;
    bool holds = false;
    for (int i = 0; i < info->dlpi_phnum && !holds; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t start = info->dlpi_addr + ph->p_vaddr;
        holds = ph->p_type == PT_LOAD && search->a - start < ph->p_memsz;
    }
    if (!holds)
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        uintptr_t start = info->dlpi_addr + ph->p_vaddr;
        if (search->lo == 0 || start < search->lo)
            search->lo = start;
        if (start + ph->p_memsz > search->hi)
            search->hi = start + ph->p_memsz;
    }
    search->communication = info->dlpi_name && is_communication(info->dlpi_name);
    return 1;
}

/* Whether a file name is one of the communication libraries'. */
static bool is_communication(const char *path)
{
    static const char *const prefixes[] = {COMMUNICATION_LIBRARIES};
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
        if (strncmp(base, prefixes[i], strlen(prefixes[i])) == 0)
            return true;
    return false;
}

/* Finds (and classifies, logging a communication library once) the object holding a; false if it cannot. */
bool calling_object_learn(uintptr_t a, bool *communication)
{
    struct text_search search = {.a = a};
    dl_iterate_phdr(find_text, &search);
    if (search.hi == 0 || a - search.lo >= search.hi - search.lo)
        return false;
    *communication = search.communication;
    pthread_mutex_lock(&learn_lock);
    unsigned n = atomic_load(&calling_object_count);
    bool known = false;
    for (unsigned i = 0; i < n && !known; i++)
        known = calling_objects[i].lo == search.lo;
    if (!known && n < CALLING_OBJECTS_MAX) {
        calling_objects[n] = (struct calling_object){search.lo, search.hi, search.communication};
        atomic_store_explicit(&calling_object_count, n + 1, memory_order_release);
        if (n + 1 == CALLING_OBJECTS_MAX)
            log_warn("%d objects make driver calls: a communication library (NCCL, NVSHMEM) loaded from now on is "
                     "not recognised, and its launches may be held back",
                     CALLING_OBJECTS_MAX);
        if (search.communication) {
            Dl_info info;
            log_info("%s is a communication library: its driver calls are never held back, and each ends a region",
                     dladdr((void *)a, &info) && info.dli_fname ? info.dli_fname : "an object");
        }
    }
    pthread_mutex_unlock(&learn_lock);
    return true;
}
