/* SPDX-License-Identifier: MIT */
/* Whether a profiler is attached to the process (Nsight Systems, Nsight Compute). */
#ifndef REPRISE_PROFILER_H
#define REPRISE_PROFILER_H

#include <stdbool.h>
#include <stddef.h>

/* True if a profiler is attached; says how it was recognised in why. */
bool profiler_attached(char *why, size_t why_len);

#endif
