/* Counting what passes through: per function and per stream. */
#ifndef REPRISE_OBSERVE_H
#define REPRISE_OBSERVE_H

#include "activity.h"
#include "driver_table.h"
#include "hooks.h"
#include "verdict.h"

/* Counts one call of hook id acting on stream (STREAM_NONE: device-wide). */
void observe_call(enum hook_id id, cudaStream_t stream);

/* Counts one call of driver function id from outside the runtime, and what it does (kind), on stream. */
void observe_driver_call(enum driver_id id, enum call_kind kind, cudaStream_t stream);

/* How many calls of driver function id from outside the runtime were seen. */
unsigned long long observe_driver_calls(enum driver_id id);

/* How many times hook id was called. */
unsigned long long observe_hook_calls(enum hook_id id);

/* Calls fn for each stream seen (STREAM_NONE for device-wide calls), in no particular order. */
void observe_each_stream(void (*fn)(cudaStream_t stream, const struct activity_counts *counts, void *ctx),
                         void *ctx);

/* The whole program's profile, for the verdict. */
void observe_profile(struct program_profile *profile);

#endif
