/* SPDX-License-Identifier: MIT */
/* Why nothing repeats: each thread's sequences compared with their neighbours, gathered for the exit summary. */
#ifndef REPRISE_ENGINE_NEIGHBOURS_H
#define REPRISE_ENGINE_NEIGHBOURS_H

#include "engine_tracker.h"

#pragma GCC visibility push(hidden)

/* At the end of a sequence that ran eagerly, a sighting of seen: compared with its neighbour, for the exit summary. */
void note_neighbours(struct tracker *t, const struct region *seen);

#pragma GCC visibility pop

#endif
