/* SPDX-License-Identifier: MIT */
/* Driver calls from outside the interposed runtime: counted in observe mode, boundaries in auto mode. */
#ifndef REPRISE_DIRECT_CALLS_H
#define REPRISE_DIRECT_CALLS_H

#include <stdbool.h>
#include <stdint.h>

#include "driver_table.h"

/*
 * A wrapped driver function called by someone other than the runtime or
 * the shim, on stream (NULL: none), from return address caller.  True if
 * the call goes into the shim's capture: call engine_direct_done once it
 * is forwarded.
 */
bool direct_call(enum driver_id id, const void *stream, const void *caller);

/*
 * A wrapped driver function of an ordered kind (driver_kind_ordered) the
 * runtime called for one of its functions the shim does not hook (an array
 * or batch copy, a prefetch, external semaphores: runtime_calls_known is
 * 0), on stream: a boundary for the thread, as a library's call is, so
 * that it runs after the work held back before it.  Auto mode only; true
 * as direct_call's.
 */
bool unhooked_runtime_call(enum driver_id id, const void *stream);

/*
 * Counts a direct call of driver function id that the engine takes as a
 * node call (when counting); target: the kernel a launch runs, as regions
 * name it (kernel_twin_of), else 0.
 */
void direct_count(enum driver_id id, const void *stream, uint64_t target);

/* Whether a direct call of driver function id is a host sync (a wait, a synchronous copy or set): it ends a stretch. */
bool direct_call_ends_stretch(enum driver_id id);

/* Observe mode: a direct call of wait function id (DRIVER_KIND_SYNC) that began at start returned. */
void direct_wait_done(enum driver_id id, uint64_t start);

#endif
