/* SPDX-License-Identifier: MIT */
/* What the user keeps out of graphs: kernels by name, streams by kind, priority or id (REPRISE_EXCLUDE_*). */
#ifndef REPRISE_EXCLUSIONS_H
#define REPRISE_EXCLUSIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "hooks.h"
#include "signature.h"

/* Reads REPRISE_EXCLUDE_STREAMS (already checked by the options); called once at init in auto mode. */
void exclusions_configure(void);

/*
 * Whether a region with these call signatures must not be graphed because
 * REPRISE_EXCLUDE_KERNELS or REPRISE_EXCLUDE_STREAMS names one of its
 * kernels or streams; if so, why says which.
 */
bool region_excluded(const struct call_sig *sigs, unsigned count, char *why, size_t why_len);

/* Whether REPRISE_EXCLUDE_KERNELS names the kernel a launch through api names as func. */
bool kernel_excluded(const void *func, enum hook_id api);

/* Names a region's streams as REPRISE_EXCLUDE_STREAMS can: "stream 7 (non_blocking), stream 1 (legacy)". */
void describe_streams(const struct call_sig *sigs, unsigned count, char *buf, size_t len);

#endif
