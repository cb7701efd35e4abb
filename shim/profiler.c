/* Whether a profiler is attached to the process (Nsight Systems, Nsight Compute, any CUPTI client). */
#define _GNU_SOURCE
#include "config.h"

#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profiler.h"

/* Variables the NVIDIA tools set in the programs they profile. */
static const char *const profiler_variables[] = {"CUDA_INJECTION64_PATH", "NSYS_PROFILING_SESSION_ID",
                                                 "NV_NSIGHT_INJECTION_TRANSPORT_TYPE"};

/* Notes a loaded CUPTI library. */
static int find_cupti(struct dl_phdr_info *info, size_t size, void *ctx)
{
    (void)size;
    const char *name = info->dlpi_name ? info->dlpi_name : "";
    const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
    if (strncmp(base, "libcupti", 8) != 0)
        return 0;
    snprintf(ctx, 256, "%s is loaded", base);
    return 1;
}

/* True if a profiler is attached; says how it was recognised in why. */
bool profiler_attached(char *why, size_t why_len)
{
    for (size_t i = 0; i < sizeof profiler_variables / sizeof *profiler_variables; i++) {
        const char *value = getenv(profiler_variables[i]);
        if (value && *value) {
            snprintf(why, why_len, "%s is set", profiler_variables[i]);
            return true;
        }
    }
    char found[256] = "";
    dl_iterate_phdr(find_cupti, found);
    if (found[0]) {
        snprintf(why, why_len, "%s", found);
        return true;
    }
    return false;
}
