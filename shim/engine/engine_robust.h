/* SPDX-License-Identifier: MIT */
/* The robust path: a region's occurrence captured from its start, and at its end the graph updated (or made) and launched. */
#ifndef REPRISE_ENGINE_ROBUST_H
#define REPRISE_ENGINE_ROBUST_H

#include "engine_tracker.h"

#pragma GCC visibility push(hidden)

/* Starts a robust-path capture on the region's first stream; false (passing through) if the runtime refuses. */
bool start_recapture(struct tracker *t, cudaStream_t stream);

/* Ends the capture of a complete occurrence on the robust path: update (or make) the graph, launch it; true if so. */
bool finish_recapture(struct tracker *t);

#pragma GCC visibility pop

#endif
