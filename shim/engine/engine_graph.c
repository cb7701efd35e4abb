/* SPDX-License-Identifier: MIT */
/* The fast path's graphs: built from a recorded occurrence, launched with their nodes patched. */
#include "config.h"

#include <stdio.h>

#include "engine_capture.h"
#include "engine_exit.h"
#include "engine_fallback.h"
#include "engine_graph.h"
#include "engine_graph_keep.h"
#include "engine_watchdog.h"
#include "graph_step.h"
#include "log.h"
#include "region_graph.h"
#include "runtime.h"
#include "settings.h"
#include "trace.h"

/* Builds the graph of the occurrence just recorded. */
void build_graph(struct tracker *t)
{
    struct region *r = t->region;
    char why[256];
    register_exit_hook_once();
    cudaStream_t first = (cudaStream_t)(uintptr_t)r->sigs[0].stream;
    if (shim_options.num[OPT_REPLAY] == REPLAY_ROBUST) {
        /* The robust path chose not to capture it (see start_sequence): it cannot take its first stream. */
        char robust[320];
        snprintf(robust, sizeof robust, "REPRISE_REPLAY=robust, and %s", robust_path_refusal(first));
        not_graphed(t, r, FALLBACK_UNSUPPORTED, robust, "robust path on an uncapturable stream");
        return;
    }
    if (user_refuses(t, r))
        return;
    if (watchdog_refuses(t, r))
        return;
    if (unseen_work_possible(why, sizeof why)) {
        char unseen[640];
        snprintf(unseen, sizeof unseen, "work may reach the GPU unseen: %s%s%s", why,
                 capture_stream_eligible(first) ? "" : "; and the robust path cannot take it: ",
                 capture_stream_eligible(first) ? "" : robust_path_refusal(first));
        not_graphed(t, r, FALLBACK_HIDDEN_WORK, unseen, unseen);
        return;
    }
    bool unsupported;
    graph_step_set(GRAPH_STEP_BUILD);
    struct region_graph *g = region_graph_build(&t->records, (unsigned)shim_options.num[OPT_GRAPH_INSTANCES], why,
                                                sizeof why, &unsupported);
    graph_step_set(GRAPH_STEP_NONE);
    if (g == NULL) {
        not_graphed(t, r, unsupported ? FALLBACK_UNSUPPORTED : FALLBACK_GRAPH_ERROR, why, why);
        return;
    }
    unsigned nodes, streams;
    region_graph_shape(g, &nodes, &streams);
    log_info("region %u: graph built (%u nodes on %u stream%s); replaying from its next occurrence", r->id, nodes,
             streams, streams == 1 ? "" : "s");
    trace_event("graph_built", "\"region\":%u,\"nodes\":%u,\"streams\":%u,\"path\":\"fast\"", r->id, nodes,
                streams);
    keep_graph(t, r, g, false);
}

/*
 * At the end of an occurrence recorded whole: builds its graph once
 * REPRISE_RECORDINGS occurrences were (2 by default), else says how many
 * more.  JIT warm-ups (autotuning, code generation, a framework's own
 * capture) make many regions seen three times and never again, or whose
 * first calls recur in another region: their graphs, built at the first
 * recording, cost milliseconds each and were evicted unreplayed.
 */
void record_done(struct tracker *t)
{
    struct region *r = t->region;
    unsigned wanted = (unsigned)shim_options.num[OPT_RECORDINGS];
    if (++r->recordings >= wanted) {
        if (regions_crowded_at_build(&t->table, r))
            say_crowded(r);
        else
            build_graph(t);
        return;
    }
    log_info("region %u: recorded whole (%u of %u); its graph is built when it is recorded whole %u more time%s", r->id,
             r->recordings, wanted, wanted - r->recordings, wanted - r->recordings == 1 ? "" : "s");
    trace_event("recorded", "\"region\":%u,\"calls\":%u,\"recordings\":%u", r->id, t->records.count,
                r->recordings);
}

/* Launches the graph for a complete replayed occurrence, or submits the calls if that fails; true if launched. */
bool launch_replay(struct tracker *t)
{
    struct region *r = t->region;
    char who[256];
    if (unseen_work_possible(who, sizeof who)) {
        fall_back(t, FALLBACK_HIDDEN_WORK, who);
        return false;
    }
    cudaError_t error;
    struct graph_launch how;
    region_graph_describe_patches(r->graph, &t->records, r->id);
    int patched = region_graph_launch(r->graph, &t->records, &how, &error);
    if (how.made) {
        /* Made even if the launch then failed: the graph keeps it. */
        regions_instance_made(r);
        log_info("region %u: executable instance %u of at most %ld made: its arguments recur in another set "
                 "(rotating buffers), which it holds from now on without patches",
                 r->id, how.instances, shim_options.num[OPT_GRAPH_INSTANCES]);
        trace_event("instance_made", "\"region\":%u,\"instances\":%u", r->id, how.instances);
    }
    if (patched < 0) {
        char failed[160];
        snprintf(failed, sizeof failed, "%s failed: %s", how.failed ? how.failed : "the launch",
                 runtime_error_name(error));
        fall_back(t, FALLBACK_GRAPH_ERROR, failed);
        return false;
    }
    set_pending(t, false);
    t->cuts.patch_ns = how.patch_ns;
    t->cuts.patched = (unsigned)patched;
    bool first = r->stats.replays == 0;
    regions_replayed(&t->table, r, (unsigned)patched);
    if (first)
        log_info("region %u: replayed as a graph (%u calls in one launch, %d nodes patched)", r->id, r->length,
                 patched);
    else
        log_debug("region %u: replayed (%d nodes patched, instance %u of %u)", r->id, patched, how.instance + 1,
                  how.instances);
    return true;
}
