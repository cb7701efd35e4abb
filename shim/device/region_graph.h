/* SPDX-License-Identifier: MIT */
/* A region's executable graph: built from one recorded occurrence, patched and launched for the next ones. */
#ifndef REPRISE_REGION_GRAPH_H
#define REPRISE_REGION_GRAPH_H

#include <stddef.h>

#include "held_calls.h"

struct region_graph;

/* The most executable instances one graph keeps (REPRISE_GRAPH_INSTANCES's bound). */
#define GRAPH_INSTANCES_MAX 16

/* Which instance a launch used. */
struct graph_launch {
    unsigned instance;  /* its index */
    unsigned instances; /* how many the graph has now */
    bool made;          /* it was made for this launch (a recurring argument set) */
    uint64_t patch_ns;  /* how long patching its nodes took (0: none patched) */
    const char *failed; /* nothing launched: the step that failed, for the log ("patching a node", ...) */
};

/*
 * Builds and instantiates a graph from a recorded occurrence, to keep up
 * to max_instances executable instances of (one per recurring argument
 * set; 1 to GRAPH_INSTANCES_MAX).  NULL if it cannot, with the reason in
 * why and *unsupported true when the region is of a shape graphs cannot
 * keep (too many streams), false for a runtime error.  The legacy stream's
 * implicit barriers with blocking streams become edges, and a graph using
 * it is launched on it.
 */
struct region_graph *region_graph_build(const struct held_list *list, unsigned max_instances, char *why,
                                        size_t why_len, bool *unsupported);

/*
 * Chooses the instance whose arguments are nearest a new occurrence of the
 * same region (one that holds them exactly, or a new one for an argument
 * set seen before, while there is room), patches whatever differs, then
 * launches it on the region's streams; *how says which.  Returns the
 * number of nodes patched, or -1 with the runtime's error in *error
 * (nothing was launched; the caller submits the calls one by one instead).
 */
int region_graph_launch(struct region_graph *g, const struct held_list *list, struct graph_launch *how,
                        cudaError_t *error);

/*
 * At debug level, for a graph's first replays that patch: how many nodes
 * differ from the instance launched last and why (addresses that moved,
 * other parameters, geometry, copies), logged for region.
 */
void region_graph_describe_patches(struct region_graph *g, const struct held_list *list, unsigned region);

/*
 * What a replay compares its launches' parameters with as it records them
 * (engine_fast_hold): the parameter blocks of the instance launched
 * last, node i's at (*at)[i].  They stay put until the graph's next launch.
 */
void region_graph_compare(const struct region_graph *g, const unsigned char **blocks, const uint32_t **at);

/*
 * Whether recorded call i of an occurrence has other arguments than node i
 * holds in the instance launched last: the engine lists such calls as it
 * records them (list->differ), and the launch then compares nothing.
 */
bool region_graph_call_differs(struct region_graph *g, const struct held_list *list, unsigned i);

/*
 * Notes whether recorded call i, a launch, has another geometry (grid,
 * block, shared memory) or kernel than node i in the instance launched
 * last (region_graph_call_differs does too).  From the first such launch
 * on, every launch of g compares every launch node's: the engine
 * calls it for each call it records for g's region, so that a record slot
 * the fast path trusts never holds a geometry or kernel g's nodes do not.
 * An event call naming another event than its place in that instance
 * (a node's, or one the graph records with no node) makes the events vary
 * (region_graph_events_fixed).
 */
void region_graph_note_shape(struct region_graph *g, const struct held_list *list, unsigned i);

/*
 * Whether the fast path may take an event call of g's region that names
 * its record slot's event: every event call the engine recorded for g named
 * the graph's event at its place so far.  Once one named another (a pool's
 * program), every event call goes the engine's way, which checks how its
 * event relates to the sequence's others (the signature's part) and lists
 * it where it differs from its node: a slot's event equal to the call's
 * says nothing of that relation (the slot may be another occurrence's).
 */
bool region_graph_events_fixed(const struct region_graph *g);

/*
 * Before a program event is destroyed: g forgets it where it only
 * remembers it (as untimed); true if a node of g (of an instance, or of the
 * graph new instances are made from) names it, so that g must go first.
 */
bool region_graph_event_ends(struct region_graph *g, cudaEvent_t event);

/* Destroys the graph and everything it owns. */
void region_graph_destroy(struct region_graph *g);

/* How many nodes and streams the graph has, for logs. */
void region_graph_shape(const struct region_graph *g, unsigned *nodes, unsigned *streams);

#endif
