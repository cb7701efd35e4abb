/* The engine at exit: every thread's held-back work submitted, graphs destroyed, each region's counts summarised. */
#include "config.h"

#include <stdlib.h>

#include "engine_internal.h"
#include "log.h"
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

/* Submits every thread's held-back work and destroys every graph (at exit). */
void engine_shutdown(void)
{
    if (atomic_exchange(&shut_down, true))
        return;
    in_engine = true; /* never cleared: the engine is done */
    pthread_mutex_lock(&trackers_lock);
    for (struct tracker *t = trackers; t; t = t->next) {
        tracker_lock(t);
        if (t->pending)
            release_held(t);
        struct region *r, *tmp;
        HASH_ITER(hh, t->table.by_hash, r, tmp)
            if (r->graph) {
                destroy_graph_of(r);
                r->graph = NULL;
            }
        capture_session_fini(&t->capture);
        private_event_destroy(t->moved_work);
        tracker_unlock(t);
    }
    pthread_mutex_unlock(&trackers_lock);
}

/* Writes each region's counts to the trace, and to the log if to_log (exit summary). */
void engine_summary(bool to_log)
{
    pthread_mutex_lock(&trackers_lock);
    for (struct tracker *t = trackers; t; t = t->next) {
        struct region *r, *tmp;
        HASH_ITER(hh, t->table.by_hash, r, tmp) {
            const struct region_stats *s = &r->stats;
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
                       "%llu graph instances, %llu ended by another thread's call (hand-overs), fallbacks: %s",
                       r->id, t->thread_number, r->length, s->sightings, s->replays, s->recaptures, s->calls_saved,
                       s->args_patched, s->unpatched, s->instances, s->handovers, used ? reasons : "none");
            trace_event("region_summary",
                        "\"region\":%u,\"thread\":%u,\"calls\":%u,\"state\":\"%s\",\"sightings\":%llu,"
                        "\"replays\":%llu,\"recaptures\":%llu,\"calls_saved\":%llu,\"patched\":%llu,\"builds\":%llu,"
                        "\"evictions\":%llu,\"unpatched\":%llu,\"instances\":%llu,\"handovers\":%llu",
                        r->id, t->thread_number, r->length, region_state_name(r->state), s->sightings, s->replays,
                        s->recaptures, s->calls_saved, s->args_patched, s->builds, s->evictions, s->unpatched,
                        s->instances, s->handovers);
        }
    }
    pthread_mutex_unlock(&trackers_lock);
}

