/* Counting what passes through: per function and per stream. */
#ifndef REPRISE_OBSERVE_H
#define REPRISE_OBSERVE_H

#include "activity.h"
#include "hooks.h"
#include "verdict.h"

/* Counts one call of hook id acting on stream (STREAM_NONE: device-wide). */
void observe_call(enum hook_id id, cudaStream_t stream);

/* Counts what a driver call from outside the runtime does (kind), on stream: its own count is foreign.c's. */
void observe_driver_call(enum call_kind kind, cudaStream_t stream);

/* How many times hook id was called. */
unsigned long long observe_hook_calls(enum hook_id id);

/* Calls fn for each stream seen (STREAM_NONE for device-wide calls), in no particular order. */
void observe_each_stream(void (*fn)(cudaStream_t stream, const struct activity_counts *counts, void *ctx),
                         void *ctx);

/* The whole program's profile, for the verdict. */
void observe_profile(struct program_profile *profile);

#endif
