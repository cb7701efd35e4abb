/* SPDX-License-Identifier: MIT */
/* A region's graph, either path's: kept (the least recently used evicted), destroyed, or refused and said why. */
#include "config.h"

#include "engine_graph_keep.h"
#include "exclusions.h"
#include "log.h"
#include "profiler.h"
#include "region_graph.h"
#include "settings.h"
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

/* Says, the first time only, that region r was crowded out of the graphs kept (regions.h). */
void say_crowded(const struct region *r)
{
    if (r->stats.crowded != 1)
        return;
    log_info("region %u: %u calls, but the graphs of %u other regions ran between its last two occurrences "
             "(REPRISE_MAX_GRAPHS=%u kept): its graph would be evicted before it came back; passing it through "
             "while that lasts",
             r->id, r->length, r->crowded_by, engine_policy.max_graphs);
    trace_event("crowded_out", "\"region\":%u,\"graphs_between\":%u", r->id, r->crowded_by);
}

/* Destroys a region's graph, whichever path made it. */
void destroy_graph_of(struct region *r)
{
    if (r->robust)
        region_capture_destroy(r->graph);
    else
        region_graph_destroy(r->graph);
}

/* Before a program event is destroyed: whether r's graph names it in a node (a fast-path one forgets it otherwise). */
bool graph_event_ends(struct region *r, cudaEvent_t event)
{
    return r->robust ? region_capture_names_event(r->graph, event) : region_graph_event_ends(r->graph, event);
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
    atomic_fetch_add_explicit(&graphs_built, 1, memory_order_relaxed); /* the governor learns while graphs are built */
    if (victim) {
        log_info("region %u: graph evicted (least recently used; REPRISE_MAX_GRAPHS=%u)", victim->id,
                 engine_policy.max_graphs);
        trace_event("evicted", "\"region\":%u", victim->id);
        destroy_graph_of(victim);
        regions_evicted(&t->table, victim);
    }
    payoff_start(&r->trial, engine_policy.trial_pairs);
}
