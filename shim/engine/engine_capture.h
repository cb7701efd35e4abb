/* SPDX-License-Identifier: MIT */
/* A thread's robust-path capture: begun, taking calls in, ended (its work run), hidden from the program's queries. */
#ifndef REPRISE_ENGINE_CAPTURE_H
#define REPRISE_ENGINE_CAPTURE_H

#include "engine_tracker.h"

#pragma GCC visibility push(hidden)

/* Begins t's capture on stream (pageable_bytes staged for its copies), counted among the shim's; CUDA_SUCCESS if so. */
CUresult begin_capture(struct tracker *t, cudaStream_t stream, size_t pageable_bytes);

/* Ends t's capture and runs what it holds (see capture_finish), in t's context; nothing is pending after. */
enum capture_outcome end_capture(struct tracker *t, struct region_capture **rc, bool keep, CUresult *error);

/* Ends a robust-path capture early: runs what it holds once, in order (logged if the capture was lost). */
void release_capture(struct tracker *t);

/* Whether t's capture may take call c in: no other thread's call in flight touches what c adds to it. */
bool capture_takes_call(struct tracker *t, const struct call *c);

/* Takes a direct call on stream into t's capture, marked as being forwarded (capture_forwarded); false if it cannot. */
bool capture_takes_direct(struct tracker *t, cudaStream_t stream);

/* Drops t's capture's private streams and events (their context ends; no capture is active). */
void capture_drop_private(struct tracker *t);

/* Why the robust path cannot take a region that starts on stream (the legacy or per-thread default stream). */
const char *robust_path_refusal(cudaStream_t stream);

/* Whether t's capture is under way. */
static inline bool capture_active(const struct tracker *t)
{
    return t->capture.session.active;
}

/* How many streams t's capture takes part in. */
static inline unsigned capture_streams(const struct tracker *t)
{
    return t->capture.session.stream_count;
}

/* Whether a direct call taken into t's capture is being forwarded: the watchdog must not end the capture under it. */
static inline bool capture_forwarding(const struct tracker *t)
{
    return atomic_load_explicit(&t->capture.forwarding, memory_order_relaxed);
}

/* The direct call taken into t's capture was forwarded: the watchdog may end the capture again. */
static inline void capture_forwarded(struct tracker *t)
{
    atomic_store_explicit(&t->capture.forwarding, false, memory_order_relaxed);
}

#pragma GCC visibility pop

#endif
