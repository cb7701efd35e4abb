/* SPDX-License-Identifier: MIT */
/* Waits that streams owe a graph launched on another stream: made only when something next reaches them. */
#ifndef REPRISE_OWED_WAITS_H
#define REPRISE_OWED_WAITS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "driver_api.h"

/*
 * A fast-path graph that uses several streams is launched on the first;
 * the program's later work on the others must follow it.  Rather than
 * making every other stream wait for the launch at once (a driver call
 * each, at every replay), each of them *owes* that wait: it is made
 * (settled) just before the first call that could extend or observe the
 * stream is forwarded, or dropped when the stream's next use is the same
 * graph launched again (its joins see that it follows already).  The
 * table is global (another thread may submit on the stream); the check
 * before a forwarded call costs a relaxed load while nothing is owed.
 */

#pragma GCC visibility push(hidden)
/* How many streams owe a wait now (read without the table's lock). */
extern atomic_uint owed_wait_count;
#pragma GCC visibility pop

/* What one stream owes: a wait on event, recorded on origin right after a graph launch there. */
struct owed_wait {
    cudaEvent_t event;   /* NULL: nothing owed */
    cudaStream_t origin;
    uint64_t version;    /* which noting of the wait (0: none): tells whether it changed since it was looked up */
};

/* owed_waits_settle's slow path: something is owed somewhere. */
void owed_waits_settle_slow(cudaStream_t stream);

/*
 * Before a call on stream is forwarded (anything that could extend or
 * observe it, its destruction included): the stream makes the wait it owes.
 * The legacy stream: every blocking stream's (its implicit barrier); the
 * per-thread default stream and NULL (device-wide calls): nothing.
 */
static inline void owed_waits_settle(cudaStream_t stream)
{
    if (__builtin_expect(atomic_load_explicit(&owed_wait_count, memory_order_relaxed) != 0, 0))
        owed_waits_settle_slow(stream);
}

/* Every owed wait is made now (before held-back work is submitted one by one, on whichever streams). */
void owed_waits_settle_all(void);

/* Before event is destroyed: the streams that owe a wait on it make it now. */
void owed_waits_settle_event(cudaEvent_t event);

/*
 * Before a graph launch on launch: makes it follow what each of
 * streams[0..count) owes, into owed[] (event NULL: nothing).  A wait
 * recorded on launch itself it follows already; one recorded elsewhere it
 * waits for now (counted in *waits), under the table's lock, so that the
 * event cannot be destroyed meanwhile.  Returns the first error.
 */
CUresult owed_waits_follow(const cudaStream_t *streams, unsigned count, cudaStream_t launch, struct owed_wait *owed,
                           unsigned *waits);

/*
 * After a graph launch on origin in context, recorded in event: each streams[i] with
 * owe[i] owes a wait on it (blocking[i]: a blocking stream, which the
 * legacy stream's work must settle).  seen[i] is what the launch's joins
 * found the stream owing (owed_waits_lookup): the launch follows it, so it
 * is replaced; a wait noted there since by another thread is made first.
 * A stream the table has no room for waits at once, counted in *waited.
 * Returns the first error of a wait made.
 */
CUresult owed_waits_note(const cudaStream_t *streams, const bool *owe, const bool *blocking, unsigned count,
                         cudaEvent_t event, cudaStream_t origin, CUcontext context, const struct owed_wait *seen,
                         unsigned *waited);

#endif
