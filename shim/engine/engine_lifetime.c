/* SPDX-License-Identifier: MIT */
/* Ends of what graphs and held-back calls refer to (modules, libraries, contexts, streams, events), before they happen. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "engine_capture.h"
#include "engine_events.h"
#include "engine_fallback.h"
#include "engine_fast.h"
#include "engine_graph_keep.h"
#include "engine_handover.h"
#include "kernel_params.h"
#include "log.h"
#include "owed_records.h"
#include "owed_waits.h"
#include "settings.h"
#include "stream_order.h"
#include "trace.h"

/*
 * What an end refers to, as regions name it: sorted values of one kind, or
 * everything; or an event, which no signature names (a sequence's events
 * are its own, a graph's its nodes': policy/event_refs.h).
 */
struct ended {
    enum region_ref ref;
    const uint64_t *values;
    unsigned count;
    bool everything;
    bool is_event; /* an event ends: this one */
    cudaEvent_t event;
};

/* Sorts handles for region_refers_to's binary search. */
static int compare_handles(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Whether region r has a call that refers to what ends. */
static bool refers(const struct region *r, const struct ended *e)
{
    return e->everything || region_refers_to(r, e->ref, e->values, e->count);
}

/*
 * Ends t's sequence if it follows a region whose calls refer to what ends
 * (t's lock held): held-back or captured work is submitted now, while what
 * it refers to lives; a recording stops, so that no graph is built from it.
 */
static void end_referring_sequence(struct tracker *t, const struct ended *e, const char *name)
{
    if (t->region == NULL || t->mode == FOLLOW_NONE ||
        !(e->is_event ? sequence_names_event(t, e->event, 0) : refers(t->region, e)))
        return;
    if (holds_back(t) || replaying(t)) {
        fall_back(t, FALLBACK_OBJECT_ENDED, name);
        return;
    }
    if (recording_shown(t))
        show_recording(t, false);
    log_info("region %u: its recording stops: %s ends something its calls use", t->region->id, name);
    t->mode = FOLLOW_NONE;
}

/* Destroys t's graphs that refer to what ends (t's lock held); returns how many. */
static unsigned drop_referring_graphs(struct tracker *t, const struct ended *e)
{
    unsigned dropped = 0;
    struct region *r, *tmp;
    HASH_ITER(hh, t->table.by_hash, r, tmp) {
        if (r->graph == NULL || !(e->is_event ? graph_event_ends(r, e->event) : refers(r, e)))
            continue;
        destroy_graph_of(r);
        regions_graph_invalidated(&t->table, r);
        trace_event("invalidated", "\"region\":%u,\"thread\":%u", r->id, t->thread_number);
        dropped++;
    }
    return dropped;
}

/* The shim's own objects in a context that ends (t's lock held): its capture's streams and events, made anew. */
static void drop_private_objects(struct tracker *t)
{
    if (capture_active(t))
        return; /* ended above (end_referring_sequence): never still active here */
    capture_drop_private(t);
    moved_work_drop(t);
}

/* Ends every sequence and destroys every graph that refer to what ends (see engine.h). */
static unsigned end_references(const struct ended *e, bool context, const char *name)
{
    unsigned dropped = 0;
    if (context) {
        owed_waits_settle_all();
        owed_records_settle_all();
    }
    pthread_mutex_lock(&trackers_lock);
    for (struct tracker *t = trackers; t; t = t->next) {
        tracker_lock(t);
        end_referring_sequence(t, e, name);
        dropped += drop_referring_graphs(t, e);
        if (context)
            drop_private_objects(t);
        tracker_unlock(t);
    }
    pthread_mutex_unlock(&trackers_lock);
    return dropped;
}

/* The kernels' owner that an end takes them with. */
static enum kernel_owner owner_of(enum object_end what)
{
    return what == ENDS_MODULE ? KERNELS_OF_MODULE : what == ENDS_LIBRARY ? KERNELS_OF_LIBRARY : KERNELS_ALL;
}

static const char *const end_names[] = {
    [ENDS_STREAM] = "stream", [ENDS_EVENT] = "event", [ENDS_MODULE] = "module",
    [ENDS_LIBRARY] = "library", [ENDS_CONTEXT] = "context",
};

/* Before a call that ends an object is forwarded: what refers to it ends first (see engine.h). */
void engine_object_ends(enum object_end what, const void *handle, const char *name)
{
    if (!shim_auto || in_engine || atomic_load_explicit(&shut_down, memory_order_relaxed))
        return;
    in_engine = true;
    uint64_t one = (uint64_t)(uintptr_t)handle;
    struct ended e = {.ref = what == ENDS_STREAM ? REGION_REF_STREAM : REGION_REF_TARGET, .values = &one, .count = 1,
                      .is_event = what == ENDS_EVENT, .event = (cudaEvent_t)(uintptr_t)handle};
    uint64_t *kernels = NULL;
    unsigned retired = 0;
    if (what == ENDS_MODULE || what == ENDS_LIBRARY || what == ENDS_CONTEXT) {
        /* The kernels it takes with it, as launches and signatures (their twins) name them. */
        const void **handles = NULL;
        bool all = false;
        retired = kernel_params_retire(owner_of(what), handle, &handles, &all);
        e.values = NULL;
        e.count = 0;
        if (all || what == ENDS_CONTEXT || (retired > 0 && (kernels = malloc(retired * sizeof *kernels)) == NULL)) {
            e.everything = true;
        } else if (retired > 0) {
            for (unsigned i = 0; i < retired; i++)
                kernels[i] = (uint64_t)(uintptr_t)handles[i];
            qsort(kernels, retired, sizeof *kernels, compare_handles);
            e.values = kernels;
            e.count = retired;
        }
        free(handles);
    }
    unsigned dropped = 0;
    /* No kernel known to the shim came from it (and it is no context): nothing it ends is referred to. */
    if (e.everything || e.count > 0)
        dropped = end_references(&e, what == ENDS_CONTEXT, name);
    free(kernels);
    if (dropped)
        log_info("%s ends the %s it names: %u graph%s referring to it destroyed first (learnt again if they recur)", name,
                 end_names[what], dropped, dropped == 1 ? "" : "s");
    else
        log_debug("%s ends the %s it names (%u kernel handles forgotten): no graph referred to it", name, end_names[what],
                  retired);
    trace_event("object_ends", "\"call\":\"%s\",\"what\":\"%s\",\"kernels\":%u,\"graphs\":%u", name,
                end_names[what], retired, dropped);
    in_engine = false;
}
