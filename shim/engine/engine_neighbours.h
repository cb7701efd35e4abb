/* SPDX-License-Identifier: MIT */
/* Why nothing repeats: each thread's sequences compared with their neighbours, gathered for the exit summary. */
#ifndef REPRISE_ENGINE_NEIGHBOURS_H
#define REPRISE_ENGINE_NEIGHBOURS_H

#include "engine_tracker.h"

#pragma GCC visibility push(hidden)

/* Sequences a thread explains call by call in the debug log where they differ from their neighbour. */
#define NEIGHBOURS_EXPLAIN_PER_THREAD 16

/*
 * At the end of a sequence that ran eagerly, a sighting of seen: compared with its neighbour, for the exit summary;
 * at REPRISE_LOG=debug the first few that differ are explained, every call that differs.
 */
void note_neighbours(struct tracker *t, const struct region *seen);

#pragma GCC visibility pop

#endif
