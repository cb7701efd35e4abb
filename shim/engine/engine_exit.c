/* SPDX-License-Identifier: MIT */
/* The engine at exit: every thread's held-back work submitted, each region's counts summarised. */
#include "config.h"

#include <stdlib.h>

#include "engine_exit.h"
#include "engine_fallback.h"
#include "engine_fast.h"
#include "kernel_params.h"
#include "log.h"
#include "owed_waits.h"
#include "stream_order.h"
#include "trace.h"

static pthread_once_t exit_hook_once = PTHREAD_ONCE_INIT;

/* Runs engine_shutdown at exit before the runtime's own exit handlers, which were registered earlier. */
static void register_exit_hook(void)
{
    atexit(engine_shutdown);
}

/* Makes sure engine_shutdown runs at exit, before the runtime's own exit handlers (once, at the first graph). */
void register_exit_hook_once(void)
{
    pthread_once(&exit_hook_once, register_exit_hook);
}

/*
 * Submits every thread's held-back work (at exit).  Graphs, captures'
 * streams and private events are left to the driver, which frees them with
 * their context: their context may be gone already (a program's
 * cudaDeviceReset or cuCtxDestroy the shim did not see end, a library's
 * exit handler), and a driver call on an object of a destroyed context can
 * crash the process at exit, losing the program's buffered output.
 */
void engine_shutdown(void)
{
    if (atomic_exchange(&shut_down, true))
        return;
    in_engine = true; /* never cleared: the engine is done */
    pthread_mutex_lock(&trackers_lock);
    for (struct tracker *t = trackers; t; t = t->next) {
        tracker_lock(t);
        if (holds_back(t))
            release_held(t);
        tracker_unlock(t);
    }
    pthread_mutex_unlock(&trackers_lock);
    /* Work the program's own exit handlers submit after this still follows the graphs launched before. */
    owed_waits_settle_all();
}

/* Writes each region's counts to the trace, and to the log if to_log (exit summary). */
void engine_summary(bool to_log)
{
    unsigned long long built = 0, replayed = 0, evicted = 0, unreplayed = 0, invalidated = 0, crowded = 0;
    pthread_mutex_lock(&trackers_lock);
    for (struct tracker *t = trackers; t; t = t->next) {
        struct region *r, *tmp;
        HASH_ITER(hh, t->table.by_hash, r, tmp) {
            const struct region_stats *s = &r->stats;
            built += s->builds;
            replayed += s->graphs_replayed;
            evicted += s->evictions;
            unreplayed += s->evicted_unreplayed;
            invalidated += s->invalidations;
            crowded += s->crowded != 0;
            if (s->builds == 0 && s->replays == 0 && s->sightings < engine_policy.min_repeats)
                continue;
            char reasons[512];
            size_t used = 0;
            reasons[0] = '\0';
            for (int k = 0; k < FALLBACK_REASON_COUNT; k++)
                log_append_count(reasons, sizeof reasons, &used, fallback_reason_name(k), s->fallbacks[k]);
            if (to_log)
                log_always(LOG_INFO,
                       "region %u (thread %u, %u calls): %llu occurrences, %llu replays (%llu re-captured), "
                       "%llu calls not submitted one by one, %llu nodes patched, %llu replays unpatched, "
                       "%llu graph instances, graphs %llu built, %llu replayed, %llu evicted (%llu unreplayed), "
                       "%llu invalidated, %llu ended by another thread's call (hand-overs), fallbacks: %s",
                       r->id, t->thread_number, r->length, s->sightings, s->replays, s->recaptures, s->calls_saved,
                       s->args_patched, s->unpatched, s->instances, s->builds, s->graphs_replayed, s->evictions,
                       s->evicted_unreplayed, s->invalidations, s->handovers, used ? reasons : "none");
            trace_event("region_summary",
                        "\"region\":%u,\"thread\":%u,\"calls\":%u,\"state\":\"%s\",\"sightings\":%llu,"
                        "\"replays\":%llu,\"recaptures\":%llu,\"calls_saved\":%llu,\"patched\":%llu,\"builds\":%llu,"
                        "\"evictions\":%llu,\"unpatched\":%llu,\"instances\":%llu,\"handovers\":%llu,"
                        "\"graphs_replayed\":%llu,\"evicted_unreplayed\":%llu,\"invalidations\":%llu",
                        r->id, t->thread_number, r->length, region_state_name(r->state), s->sightings, s->replays,
                        s->recaptures, s->calls_saved, s->args_patched, s->builds, s->evictions, s->unpatched,
                        s->instances, s->handovers, s->graphs_replayed, s->evicted_unreplayed, s->invalidations);
        }
    }
    pthread_mutex_unlock(&trackers_lock);
    if (to_log && (built || crowded))
        log_always(LOG_INFO,
                   "graphs: %llu built, %llu replayed at least once, %llu evicted (%llu before any replay), "
                   "%llu destroyed because something they used ended; %llu regions crowded out (REPRISE_MAX_GRAPHS=%u "
                   "graphs all ran between two of their occurrences)",
                   built, replayed, evicted, unreplayed, invalidated, crowded, engine_policy.max_graphs);
    trace_event("graphs_summary",
                "\"built\":%llu,\"replayed\":%llu,\"evicted\":%llu,\"evicted_unreplayed\":%llu,\"invalidated\":%llu,"
                "\"crowded\":%llu",
                built, replayed, evicted, unreplayed, invalidated, crowded);
    struct kernel_params_counts layouts;
    kernel_params_counts(&layouts);
    if (to_log && layouts.retired_total)
        log_always(LOG_INFO,
                   "kernel layouts: %u kept for the kernels loaded now, %u of unloaded kernels kept; %llu forgotten "
                   "in all (modules and libraries unloaded), %llu of them reused for new kernels",
                   layouts.live, layouts.retired_kept, layouts.retired_total, layouts.reused);
}

