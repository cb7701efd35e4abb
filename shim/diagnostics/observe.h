/* SPDX-License-Identifier: MIT */
/* Counting what passes through: per function and per stream. */
#ifndef REPRISE_OBSERVE_H
#define REPRISE_OBSERVE_H

#include <stdint.h>

#include "activity.h"
#include "call.h"
#include "driver_table.h"
#include "hooks.h"
#include "monotonic.h"
#include "verdict.h"

/* Counts one call of hook id acting on stream (STREAM_NONE: device-wide). */
void observe_call(enum hook_id id, cudaStream_t stream);

/*
 * Counts one call of driver function id from outside the runtime, and what
 * it does (kind), on stream; target: the kernel a launch runs (as regions
 * name it), else 0.
 */
void observe_driver_call(enum driver_id id, enum call_kind kind, cudaStream_t stream, uint64_t target);

/* A node call (CALL_KINDS_NODE) that began at start (monotonic_ns) has returned: its time is submission time. */
void observe_node_done(uint64_t start);

/* A host sync that began at start has returned: the span since the last one ends, the next begins. */
void observe_sync_done(uint64_t start);

/* Whether observe mode times calls of kind: node calls and host syncs. */
static inline bool observe_times(enum call_kind kind)
{
    return call_kind_in(kind, CALL_KINDS_NODE | CALL_KINDS_HOST_SYNC);
}

/* A timed call (observe_times) of kind that began at start has returned. */
static inline void observe_timed(enum call_kind kind, uint64_t start)
{
    if (call_kind_in(kind, CALL_KINDS_NODE))
        observe_node_done(start);
    else
        observe_sync_done(start);
}

/* How many calls of driver function id from outside the runtime were seen. */
unsigned long long observe_driver_calls(enum driver_id id);

/* Counts a call a communication library (NCCL, NVSHMEM) made that could have been a node: always passed through. */
void observe_communication_call(void);

/* How many such calls of communication libraries were seen, in any mode but off. */
unsigned long long observe_communication_calls(void);

/* How many times hook id was called. */
unsigned long long observe_hook_calls(enum hook_id id);

/* Calls fn for each stream seen (STREAM_NONE for device-wide calls), in no particular order. */
void observe_each_stream(void (*fn)(cudaStream_t stream, const struct activity_counts *counts, void *ctx),
                         void *ctx);

/* The whole program's profile, for the verdict. */
void observe_profile(struct program_profile *profile);

#endif
