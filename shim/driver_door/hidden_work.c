/* SPDX-License-Identifier: MIT */
/* Whether work the shim cannot see may reach the GPU: driver entry points that escape its wrappers. */
#define _GNU_SOURCE
#include "config.h"

#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "dlsym.h"
#include "driver.h"
#include "driver_table.h"
#include "driver_work.h"
#include "hidden_work.h"
#include "load_counters.h"

/*
 * Libraries reach the driver three ways, and each is seen:
 *  - dlopen("libcuda.so.1") + dlsym(h, "cuGetProcAddress_v2"), then every
 *    entry point from cuGetProcAddress (cuBLAS, cuDNN, the runtime): the
 *    shim's dlsym and cuGetProcAddress hand out its wrappers (shim/driver_door/driver.c);
 *  - dlsym(h, "cuLaunchKernel"): the same;
 *  - linking libcuda (DT_NEEDED): the preloaded shim comes first in the
 *    global scope, so their PLT binds to its exported wrappers.
 * So a loaded cuBLAS no longer stops graphs.  What is not seen, and what
 * this answers true for:
 *  - a work entry point handed out that driver_hooks.def has no wrapper for
 *    (a version it does not know): remembered by shim/driver_door/driver.c;
 *  - an object linking libcuda that imports such a function: its PLT binds
 *    straight to libcuda (found by reading its relocations);
 *  - another object's dlsym before the shim's in the global scope (another
 *    preloaded interposer): the libraries' dlsym calls may never reach ours.
 * Not detectable, and documented in docs/design.md: a library loaded with
 * RTLD_DEEPBIND that links libcuda, and private tables from cuGetExportTable.
 */

/* The symbol index of a relocation's info word. */
#if __ELF_NATIVE_CLASS == 64
#define RELOC_SYMBOL(info) ELF64_R_SYM(info)
#else
#define RELOC_SYMBOL(info) ELF32_R_SYM(info)
#endif

struct scan {
    struct load_counters counters; /* the readings before the scan */
    bool found;
    char who[320];
};

static pthread_mutex_t scan_lock = PTHREAD_MUTEX_INITIALIZER;
static struct scan last = {.counters = LOAD_COUNTERS_NEVER};

/* An address from an object's dynamic section: most are relocated; the few that are not are small. */
static const void *dyn_address(const struct dl_phdr_info *info, ElfW(Addr) value)
{
    return (const void *)(value < info->dlpi_addr ? value + info->dlpi_addr : value);
}

/* Whether an object NEEDs libcuda (links the driver API directly). */
static bool needs_libcuda(const struct dl_phdr_info *info, const ElfW(Dyn) *dyn)
{
    const char *strtab = NULL;
    for (const ElfW(Dyn) *d = dyn; d->d_tag != DT_NULL; d++)
        if (d->d_tag == DT_STRTAB)
            strtab = dyn_address(info, d->d_un.d_ptr);
    if (strtab == NULL)
        return false;
    for (const ElfW(Dyn) *d = dyn; d->d_tag != DT_NULL; d++)
        if (d->d_tag == DT_NEEDED && strncmp(strtab + d->d_un.d_val, "libcuda.so", 10) == 0)
            return true;
    return false;
}

/* The undefined symbol a relocation refers to, if it names a driver work function without a wrapper. */
static const char *unwrapped_symbol(const ElfW(Sym) *symtab, const char *strtab, size_t index)
{
    if (index == 0 || symtab[index].st_shndx != SHN_UNDEF)
        return NULL;
    const char *name = strtab + symtab[index].st_name;
    return driver_symbol_is_work(name) && driver_id_of(name) < 0 ? name : NULL;
}

/* The first driver work function an object imports that the shim has no wrapper for, or NULL. */
static const char *unwrapped_import(const struct dl_phdr_info *info, const ElfW(Dyn) *dyn)
{
    const ElfW(Sym) *symtab = NULL;
    const char *strtab = NULL;
    const char *tables[3] = {NULL, NULL, NULL}; /* DT_JMPREL, DT_RELA, DT_REL */
    size_t sizes[3] = {0, 0, 0};
    bool plt_is_rela = true;
    for (const ElfW(Dyn) *d = dyn; d->d_tag != DT_NULL; d++) {
        switch (d->d_tag) {
        case DT_SYMTAB: symtab = dyn_address(info, d->d_un.d_ptr); break;
        case DT_STRTAB: strtab = dyn_address(info, d->d_un.d_ptr); break;
        case DT_JMPREL: tables[0] = dyn_address(info, d->d_un.d_ptr); break;
        case DT_PLTRELSZ: sizes[0] = d->d_un.d_val; break;
        case DT_PLTREL: plt_is_rela = d->d_un.d_val == DT_RELA; break;
        case DT_RELA: tables[1] = dyn_address(info, d->d_un.d_ptr); break;
        case DT_RELASZ: sizes[1] = d->d_un.d_val; break;
        case DT_REL: tables[2] = dyn_address(info, d->d_un.d_ptr); break;
        case DT_RELSZ: sizes[2] = d->d_un.d_val; break;
        default: break;
        }
    }
    if (symtab == NULL || strtab == NULL)
        return NULL;
    for (int t = 0; t < 3; t++) {
        if (tables[t] == NULL)
            continue;
        bool rela = t == 1 || (t == 0 && plt_is_rela);
        size_t step = rela ? sizeof(ElfW(Rela)) : sizeof(ElfW(Rel));
        for (size_t off = 0; off + step <= sizes[t]; off += step) {
            ElfW(Xword) r_info = rela ? ((const ElfW(Rela) *)(tables[t] + off))->r_info
                                      : ((const ElfW(Rel) *)(tables[t] + off))->r_info;
            const char *name = unwrapped_symbol(symtab, strtab, RELOC_SYMBOL(r_info));
            if (name)
                return name;
        }
    }
    return NULL;
}

/* Checks one loaded object: does it link libcuda and import a work function the shim does not wrap? */
static int check_object(struct dl_phdr_info *info, size_t size, void *ctx)
{
    struct scan *scan = ctx;
    (void)size;
    const char *name = info->dlpi_name ? info->dlpi_name : "";
    const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
    if (strncmp(base, "libcuda.so", 10) == 0 || strncmp(base, "libreprise", 10) == 0)
        return 0;
    const ElfW(Dyn) *dyn = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    if (dyn == NULL || !needs_libcuda(info, dyn))
        return 0;
    const char *import = unwrapped_import(info, dyn);
    if (import == NULL)
        return 0;
    scan->found = true;
    snprintf(scan->who, sizeof scan->who, "%s links the driver and calls %s, which the shim does not wrap",
             *base ? base : "the program", import);
    return 1;
}

/* True if work the shim does not see may reach the GPU; says why in who. */
bool hidden_work_possible(char *who, size_t who_len)
{
    char name[64], other[160];
    if (driver_unwrapped_work(name, sizeof name)) {
        snprintf(who, who_len, "a library was handed %s, which the shim does not wrap", name);
        return true;
    }
    struct load_counters now;
    load_counters_read(&now);
    pthread_mutex_lock(&scan_lock);
    if (load_counters_changed(&last.counters, &now)) {
        struct scan fresh = {0};
        if (!dlsym_interposed(other, sizeof other)) {
            fresh.found = true;
            snprintf(fresh.who, sizeof fresh.who,
                     "dlsym is interposed by %s before the shim: driver entry points may escape it", other);
        } else {
            dl_iterate_phdr(check_object, &fresh);
        }
        fresh.counters = now;
        last = fresh;
    }
    bool found = last.found;
    if (found && who)
        snprintf(who, who_len, "%s", last.who);
    pthread_mutex_unlock(&scan_lock);
    return found;
}
