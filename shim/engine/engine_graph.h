/* SPDX-License-Identifier: MIT */
/* The fast path's graphs: built from a recorded occurrence, launched with their nodes patched. */
#ifndef REPRISE_ENGINE_GRAPH_H
#define REPRISE_ENGINE_GRAPH_H

#include "engine_tracker.h"

#pragma GCC visibility push(hidden)

/* Builds the graph of the occurrence just recorded. */
void build_graph(struct tracker *t);

/* At the end of a recorded occurrence: its graph is built if an earlier one was recorded whole too, else noted. */
void record_done(struct tracker *t);

/* Launches the graph for a complete replayed occurrence, or submits the calls if that fails; true if launched. */
bool launch_replay(struct tracker *t);

#pragma GCC visibility pop

#endif
