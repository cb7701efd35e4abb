/* SPDX-License-Identifier: MIT */
/* Whether a profiler is attached to the process (Nsight Systems, Nsight Compute: the tools inject themselves through the environment). */
#define _GNU_SOURCE
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profiler.h"

/* Variables the NVIDIA tools set in the programs they profile. */
static const char *const profiler_variables[] = {"CUDA_INJECTION64_PATH", "NSYS_PROFILING_SESSION_ID",
                                                 "NV_NSIGHT_INJECTION_TRANSPORT_TYPE"};

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
    /* A loaded CUPTI proves nothing: PyTorch loads it for its own profiler
       whether or not anyone profiles (seen on the H200 with torch 2.11). */
    return false;
}
