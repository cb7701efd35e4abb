/* Ordering a group of streams around their first one with the shim's own events, which the program never sees. */
#ifndef REPRISE_STREAM_ORDER_H
#define REPRISE_STREAM_ORDER_H

#include <cuda_runtime_api.h>

#include "driver_api.h"

/* Creates *event (no timing) through libcuda unless it exists already. */
CUresult private_event(cudaEvent_t *event);

/* Makes streams[0] wait for the work so far on streams[1..count), through events[1..count) (created if missing). */
CUresult streams_join_first(const cudaStream_t *streams, unsigned count, cudaEvent_t *events);

/* Makes streams[1..count) wait for the work so far on streams[0], through *after (created if missing). */
CUresult streams_follow_first(const cudaStream_t *streams, unsigned count, cudaEvent_t *after);

/* Destroys a private event (NULL: nothing). */
void private_event_destroy(cudaEvent_t event);

#endif
