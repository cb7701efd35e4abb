/* SPDX-License-Identifier: MIT */
/* A region's graph, either path's: kept (the least recently used evicted), destroyed, or refused and said why. */
#ifndef REPRISE_ENGINE_GRAPH_KEEP_H
#define REPRISE_ENGINE_GRAPH_KEEP_H

#include "engine_tracker.h"

#pragma GCC visibility push(hidden)

/* Fails region r for reason without a graph, saying why in the log (log_why; NULL: not there) and the trace. */
void not_graphed(struct tracker *t, struct region *r, enum fallback_reason reason, const char *log_why,
                 const char *trace_why);

/* Whether the user's policies keep r out of graphs now (a profiler, REPRISE_EXCLUDE_*): then it is failed, and said. */
bool user_refuses(struct tracker *t, struct region *r);

/* Says, the first time only, that region r was crowded out of the graphs kept (regions.h's crowded). */
void say_crowded(const struct region *r);

/* Destroys a region's graph, whichever path made it. */
void destroy_graph_of(struct region *r);

/* Before a program event is destroyed: whether r's graph (either path's) names it in a node, and must go first. */
bool graph_event_ends(struct region *r, cudaEvent_t event);

/* Registers a region's new graph (robust: a region_capture, else a region_graph) and puts it on trial. */
void keep_graph(struct tracker *t, struct region *r, void *graph, bool robust);

#pragma GCC visibility pop

#endif
