/* A region's executable graph: built from one recorded occurrence, patched and launched for the next ones. */
#ifndef REPRISE_REGION_GRAPH_H
#define REPRISE_REGION_GRAPH_H

#include <stddef.h>

#include "record.h"

struct region_graph;

/*
 * Builds and instantiates a graph from a recorded occurrence.  NULL if it
 * cannot, with the reason in why and *unsupported true when the region is
 * of a shape graphs cannot keep (too many streams), false for a runtime
 * error.  The legacy stream's implicit barriers with blocking streams
 * become edges, and a graph using it is launched on it.
 */
struct region_graph *region_graph_build(const struct record_list *list, char *why, size_t why_len,
                                        bool *unsupported);

/*
 * Patches whatever differs between the graph and a new occurrence of the
 * same region, then launches it on the region's streams.  Returns the
 * number of nodes patched, or -1 with the runtime's error in *error (nothing
 * was launched; the caller submits the calls one by one instead).
 */
int region_graph_launch(struct region_graph *g, const struct record_list *list, cudaError_t *error);

/* Destroys the graph and everything it owns. */
void region_graph_destroy(struct region_graph *g);

/* How many nodes and streams the graph has, for logs. */
void region_graph_shape(const struct region_graph *g, unsigned *nodes, unsigned *streams);

#endif
