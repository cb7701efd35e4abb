/* SPDX-License-Identifier: MIT */
/* The fast path's graphs: built from a recorded occurrence, kept (or evicted), launched with their nodes patched. */
#include "config.h"

#include <stdio.h>

#include "engine_internal.h"
#include "exclusions.h"
#include "log.h"
#include "profiler.h"
#include "region_graph.h"
#include "runtime.h"
#include "shim.h"
#include "trace.h"

/* Whether graphs must not be built now: a profiler is attached and REPRISE_PROFILER says step aside. */
static bool profiler_forbids(void)
{
    static atomic_bool told;
    char why[256];
    if (shim_options.num[OPT_PROFILER] != PROFILER_STEP_ASIDE || !profiler_attached(why, sizeof why))
        return false;
    if (!atomic_exchange(&told, true))
        log_info("a profiler is attached (%s): graphing nothing, so that it measures the program as written "
                 "(REPRISE_PROFILER=ignore graphs anyway)",
                 why);
    return true;
}

/* Fails region r for reason without a graph, saying why in the log (log_why; NULL: not there) and the trace. */
void not_graphed(struct tracker *t, struct region *r, enum fallback_reason reason, const char *log_why,
                        const char *trace_why)
{
    if (log_why)
        log_info("region %u: not graphed: %s", r->id, log_why);
    trace_event("not_graphed", "\"region\":%u,\"why\":\"%s\"", r->id, trace_why);
    regions_failed(&t->table, r, reason);
}

/* Whether the user's policies keep r out of graphs now (a profiler, REPRISE_EXCLUDE_*): then it is failed, and said. */
bool user_refuses(struct tracker *t, struct region *r)
{
    char why[320];
    if (profiler_forbids()) {
        not_graphed(t, r, FALLBACK_PROFILER, NULL, "a profiler is attached");
        return true;
    }
    if (!region_excluded(r->sigs, r->length, why, sizeof why))
        return false;
    not_graphed(t, r, FALLBACK_EXCLUDED, why, "excluded");
    return true;
}

/* Whether no watchdog can bound the wait of r's held-back work (its thread would not start): then r is failed, and said. */
bool watchdog_refuses(struct tracker *t, struct region *r)
{
    if (watchdog_ensure(&engine_watchdog))
        return false;
    not_graphed(t, r, FALLBACK_UNSUPPORTED, NULL, "no watchdog");
    return true;
}

/* Destroys a region's graph, whichever path made it. */
void destroy_graph_of(struct region *r)
{
    if (r->robust)
        region_capture_destroy(r->graph);
    else
        region_graph_destroy(r->graph);
}

/*
 * Registers a region's new graph (robust: a region_capture, else a
 * region_graph), evicting the least recently used one if there are too
 * many, and puts it on trial from the next occurrence (this one made it).
 */
void keep_graph(struct tracker *t, struct region *r, void *graph, bool robust)
{
    r->robust = robust;
    struct region *victim = regions_graph_built(&t->table, r, graph);
    if (victim) {
        log_info("region %u: graph evicted (least recently used; REPRISE_MAX_GRAPHS=%u)", victim->id,
                 engine_policy.max_graphs);
        trace_event("evicted", "\"region\":%u", victim->id);
        destroy_graph_of(victim);
        regions_evicted(&t->table, victim);
    }
    payoff_start(&r->trial, engine_policy.trial_pairs);
}

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
    struct region_graph *g = region_graph_build(&t->records, (unsigned)shim_options.num[OPT_GRAPH_INSTANCES], why,
                                                sizeof why, &unsupported);
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
        fall_back(t, FALLBACK_GRAPH_ERROR, runtime_error_name(error));
        return false;
    }
    set_pending(t, false);
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
