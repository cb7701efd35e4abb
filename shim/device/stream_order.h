/* SPDX-License-Identifier: MIT */
/* Ordering a group of streams around their first one with the shim's own events, which the program never sees. */
#ifndef REPRISE_STREAM_ORDER_H
#define REPRISE_STREAM_ORDER_H

#include <stdbool.h>

#include <cuda_runtime_api.h>

#include "driver_api.h"
#include "owed_waits.h"

/* Creates *event (no timing) through libcuda unless it exists already. */
CUresult private_event(cudaEvent_t *event);

/* Makes streams[0] wait for the work so far on streams[1..count), through events[1..count) (created if missing). */
CUresult streams_join_first(const cudaStream_t *streams, unsigned count, cudaEvent_t *events);

/* Makes streams[1..count) wait for the work so far on streams[0], through *after (created if missing). */
CUresult streams_follow_first(const cudaStream_t *streams, unsigned count, cudaEvent_t *after);

/* Destroys a private event (NULL: nothing). */
void private_event_destroy(cudaEvent_t event);

/* The most streams a group joined around a graph launch may have (region_graph.c's GRAPH_STREAMS_MAX). */
#define STREAM_JOINS_MAX 16

/*
 * The joins around a fast-path graph's launches on streams[0]: only the
 * cross-stream waits the program's order needs.  Before a launch,
 * streams[0] waits for another stream's earlier work only if it does not
 * follow it already (the stream owes a wait on an earlier launch there and
 * had nothing new since); after it, the other streams owe a wait on it
 * (owed_waits.h), made when something next reaches them.  A graph
 * launched on the legacy stream follows every blocking stream's work by
 * the legacy stream's implicit barrier: it needs no join before it.
 */
struct stream_joins {
    cudaEvent_t before[STREAM_JOINS_MAX]; /* a stream's earlier work, waited for by the launch */
    cudaEvent_t after;                    /* the launch, owed by the other streams */
    bool implied[STREAM_JOINS_MAX];       /* the launch follows its work by the legacy stream's barrier */
    bool blocking[STREAM_JOINS_MAX];      /* a created blocking stream: legacy-stream work settles what it owes */
    struct owed_wait seen[STREAM_JOINS_MAX]; /* what each stream owed when the last launch's joins looked */
    CUcontext context;                    /* the graph's: where another thread makes an owed wait */
    unsigned waits, records;              /* the joins' calls around the last launch, for the log */
};

/* Readies the joins of a graph on streams[0..count) in context: its events and what its streams are; at build. */
CUresult stream_joins_prepare(struct stream_joins *j, const cudaStream_t *streams, unsigned count, CUcontext context);

/* Before a graph launch on streams[0]: it waits for the other streams' earlier work it does not follow yet. */
CUresult stream_joins_before(struct stream_joins *j, const cudaStream_t *streams, unsigned count);

/* After the launch: the other streams owe a wait on it, made when something next reaches them. */
CUresult stream_joins_after(struct stream_joins *j, const cudaStream_t *streams, unsigned count);

/* Destroys the joins' events, once the streams that owe a wait on them have made it. */
void stream_joins_release(struct stream_joins *j);

#endif
