/* Whether work the shim cannot see may reach the GPU: libraries that launch through the driver API. */
#define _GNU_SOURCE
#include "config.h"

#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "hidden_work.h"
#include "driver_launchers.h"

/* Libraries known to launch kernels through the driver API (cuGetProcAddress), not the runtime. */
static const char *const driver_launchers[] = {DRIVER_LAUNCHERS};

struct scan {
    unsigned long long adds, subs;
    bool found;
    char who[256];
};

static pthread_mutex_t scan_lock = PTHREAD_MUTEX_INITIALIZER;
static struct scan last = {.adds = ~0ULL};

/* Whether an object NEEDs libcuda (links the driver API directly). */
static bool needs_libcuda(const struct dl_phdr_info *info)
{
    const ElfW(Dyn) *dyn = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    if (dyn == NULL)
        return false;
    const char *strtab = NULL;
    for (const ElfW(Dyn) *d = dyn; d->d_tag != DT_NULL; d++)
        if (d->d_tag == DT_STRTAB)
            strtab = (const char *)d->d_un.d_ptr;
    if (strtab == NULL)
        return false;
    /* Most objects' dynamic sections are relocated; the few that are not have a small address. */
    if ((uintptr_t)strtab < info->dlpi_addr)
        strtab += info->dlpi_addr;
    for (const ElfW(Dyn) *d = dyn; d->d_tag != DT_NULL; d++)
        if (d->d_tag == DT_NEEDED && strncmp(strtab + d->d_un.d_val, "libcuda.so", 10) == 0)
            return true;
    return false;
}

/* Checks one loaded object. */
static int check_object(struct dl_phdr_info *info, size_t size, void *ctx)
{
    struct scan *scan = ctx;
    (void)size;
    scan->adds = info->dlpi_adds;
    scan->subs = info->dlpi_subs;
    const char *name = info->dlpi_name ? info->dlpi_name : "";
    const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
    bool hit = false;
    for (size_t i = 0; i < sizeof driver_launchers / sizeof *driver_launchers && !hit; i++)
        hit = strncmp(base, driver_launchers[i], strlen(driver_launchers[i])) == 0;
    if (!hit && strncmp(base, "libcudart", 9) != 0 && strncmp(base, "libcuda.so", 10) != 0 &&
        strncmp(base, "libreprise", 10) != 0)
        hit = needs_libcuda(info);
    if (hit) {
        scan->found = true;
        snprintf(scan->who, sizeof scan->who, "%s", *base ? base : "the program");
        return 1;
    }
    return 0;
}

/* Reads the load and unload counters only. */
static int read_counters(struct dl_phdr_info *info, size_t size, void *ctx)
{
    struct scan *scan = ctx;
    (void)size;
    scan->adds = info->dlpi_adds;
    scan->subs = info->dlpi_subs;
    return 1;
}

/* True if a loaded object may submit work the shim does not see; names it in who. */
bool hidden_work_possible(char *who, size_t who_len)
{
    struct scan now = {0};
    dl_iterate_phdr(read_counters, &now);
    pthread_mutex_lock(&scan_lock);
    if (now.adds != last.adds || now.subs != last.subs) {
        struct scan fresh = {0};
        dl_iterate_phdr(check_object, &fresh);
        fresh.adds = now.adds;
        fresh.subs = now.subs;
        last = fresh;
    }
    bool found = last.found;
    if (found && who)
        snprintf(who, who_len, "%s", last.who);
    pthread_mutex_unlock(&scan_lock);
    return found;
}
