/* SPDX-License-Identifier: MIT */
/* Program events recorded inside a fast-path graph: recorded after its launch only when something next observes them. */
#ifndef REPRISE_OWED_RECORDS_H
#define REPRISE_OWED_RECORDS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "driver_api.h"

/*
 * A program event a region records is no record node in its fast-path
 * graph (region_graph.c): the graph's edges carry what the region's own
 * waits on it need.  After each launch the event is *owed* a record on the
 * stream the graph was launched on, right after the graph (no earlier
 * than the program's record, so whatever waits on it stays ordered).  The
 * record is made (settled) just before the first call that could observe
 * the event, or extend that stream, is forwarded; it is dropped when the
 * event's next record is the same graph's again (launched before anything
 * observed it).  Only events created without timing are owed (a timed
 * one keeps its node: cudaEventElapsedTime reads its position), and never
 * on a per-thread default stream (only its thread could name it).  The
 * table is global; the check before a forwarded call costs a relaxed load
 * while nothing is owed.
 */

#pragma GCC visibility push(hidden)
/* How many events are owed a record now (read without the table's lock). */
extern atomic_uint owed_record_count;
/* Host waits and queries forwarded since the start (only counted while something is owed). */
extern atomic_uint owed_record_host_waits;
#pragma GCC visibility pop

/* An event argument of owed_records_settle that stands for every event (a call whose event is not known). */
#define OWED_ANY_EVENT ((cudaEvent_t)(uintptr_t)-1)

/* The settles' slow path: something is owed somewhere (host_observes: see owed_records_observe). */
void owed_records_settle_slow(cudaStream_t stream, cudaEvent_t event, bool host_observes);

/*
 * Before a call is forwarded that extends stream (NULL: none; the legacy
 * stream also every blocking stream's) or waits for or records event
 * (NULL: none; OWED_ANY_EVENT: every owed event): the records owed there
 * are made first.
 */
static inline void owed_records_settle(cudaStream_t stream, cudaEvent_t event)
{
    if (__builtin_expect(atomic_load_explicit(&owed_record_count, memory_order_relaxed) != 0, 0))
        owed_records_settle_slow(stream, event, false);
}

/*
 * Before the host queries or waits for event (OWED_ANY_EVENT: some event):
 * its owed record is made, and, after a host wait or query since it was
 * owed (the program may know the graph done), waited for, so that a query
 * says what it would have said without the shim.  Never in a capture of
 * the program's: the program's own query there would end it anyway.
 */
static inline void owed_records_observe(cudaEvent_t event)
{
    if (__builtin_expect(atomic_load_explicit(&owed_record_count, memory_order_relaxed) != 0, 0))
        owed_records_settle_slow(NULL, event, true);
}

/* Before a host wait or query is forwarded: the records owed so far are then waited for when made. */
static inline void owed_records_host_waits(void)
{
    if (__builtin_expect(atomic_load_explicit(&owed_record_count, memory_order_relaxed) != 0, 0))
        atomic_fetch_add_explicit(&owed_record_host_waits, 1, memory_order_relaxed);
}

/*
 * Before a fast-path graph is launched on streams[0] (of count streams):
 * a record owed on any of them is made now, before the graph, except one
 * of an event the graph records again (records[0..nrecords), as a node
 * or owed again after the launch), which is dropped; a record of an event the graph
 * waits for as one recorded before it (waits[0..nwaits)) is made whatever
 * its stream.  Returns the error of a record that could not be made: it
 * stays owed, and so do those not reached yet; the graph must not be
 * launched (its wait would find the event's previous record), and the
 * occurrence falls back, its calls forwarded after every owed record is
 * tried again (owed_records_settle_all).
 */
CUresult owed_records_before_launch(const cudaStream_t *streams, unsigned count, const cudaEvent_t *records,
                                    unsigned nrecords, const cudaEvent_t *waits, unsigned nwaits);

/*
 * After a fast-path graph was launched on stream in context: events[0..count)
 * are owed a record there (blocking: a blocking stream, which legacy-stream
 * work settles).  An event the table has no room for is recorded at once.
 * Returns the first error of a record made.
 */
CUresult owed_records_note(const cudaEvent_t *events, unsigned count, cudaStream_t stream, CUcontext context,
                           bool blocking);

/* Every owed record is made now (before held-back work is submitted one by one). */
void owed_records_settle_all(void);

#endif
