/* SPDX-License-Identifier: MIT */
/* Driver calls from outside the interposed runtime: counted in observe mode, boundaries in auto mode. */
#include "config.h"

#include <pthread.h>
#include <string.h>

#include "engine.h"
#include "calling_object.h"
#include "direct_calls.h"
#include "hooks.h"
#include "observe.h"
#include "settings.h"

/* Why a replay that a direct boundary call cuts short falls back, from the function's name. */
static enum fallback_reason boundary_reason_of(const char *name)
{
    bool copy_or_set = strncmp(name, "cuMemcpy", 8) == 0 || strncmp(name, "cuMemset", 8) == 0;
    if (strstr(name, "Synchronize") || strstr(name, "Query") || (copy_or_set && !strstr(name, "Async")))
        return FALLBACK_SYNC_INSIDE; /* the synchronous copies and sets wait for the host */
    if (strstr(name, "Alloc") || strstr(name, "Free"))
        return FALLBACK_ALLOCATION;
    if (strstr(name, "Graph") || strstr(name, "Capture"))
        return FALLBACK_PROGRAM_GRAPH;
    return FALLBACK_HIDDEN_WORK;
}

/* What a driver call does, as the runtime's call kinds say it (CALL_KIND_COUNT: nothing the summary counts). */
static enum call_kind kind_of(enum driver_id id)
{
    if (driver_table[id].node_kind >= 0)
        return (enum call_kind)driver_table[id].node_kind;
    if (driver_table[id].kind == DRIVER_KIND_SYNC)
        return CALL_STREAM_SYNC;
    if (driver_table[id].kind == DRIVER_KIND_CAPTURE_BEGIN || driver_table[id].kind == DRIVER_KIND_CAPTURE_END)
        return CALL_CAPTURE;
    const char *name = driver_table[id].name;
    if (strncmp(name, "cuLaunch", 8) == 0)
        return CALL_LAUNCH_OTHER;
    if (strncmp(name, "cuGraphLaunch", 13) == 0)
        return CALL_GRAPH_LAUNCH;
    if (strncmp(name, "cuMemAlloc", 10) == 0 || strncmp(name, "cuMemHostAlloc", 14) == 0)
        return CALL_ALLOC;
    if (strncmp(name, "cuMemFree", 9) == 0)
        return CALL_FREE;
    return CALL_KIND_COUNT;
}

/* What the shim makes of one driver function, worked out from its name once, not at every call. */
struct driver_class {
    enum call_kind kind;         /* kind_of */
    enum fallback_reason reason; /* boundary_reason_of */
    bool waits;                  /* a wait that ends a span between syncs (not a query) */
    bool ends_stretch;           /* a host sync (a wait, a synchronous copy or set): ends a stretch for the governor */
};
static struct driver_class classes[DRIVER_COUNT];
static pthread_once_t classes_once = PTHREAD_ONCE_INIT;

/* Fills classes (once). */
static void classify_all(void)
{
    for (int id = 0; id < DRIVER_COUNT; id++) {
        const char *name = driver_table[id].name;
        enum fallback_reason reason = boundary_reason_of(name);
        bool query = strstr(name, "Query") != NULL;
        classes[id] = (struct driver_class){kind_of((enum driver_id)id), reason, !query,
                                            reason == FALLBACK_SYNC_INSIDE && !query};
    }
}

/* Driver function id's class. */
static const struct driver_class *class_of(enum driver_id id)
{
    pthread_once(&classes_once, classify_all);
    return &classes[id];
}

/* Counts a direct call of driver function id that the engine takes as a node call. */
void direct_count(enum driver_id id, const void *stream, uint64_t target)
{
    observe_driver_call(id, class_of(id)->kind, (cudaStream_t)stream, target);
}

/* Whether a direct call of driver function id is a host sync that ends a stretch between syncs (the governor's). */
bool direct_call_ends_stretch(enum driver_id id)
{
    return class_of(id)->ends_stretch;
}

/*
 * Driver function id's call on stream, a boundary for the engine: capturable into the robust path's capture or not.
 * stretch: whether it may end a stretch (a direct call's, not the runtime's own for a function it does not hook).
 */
static inline __attribute__((always_inline)) bool boundary_call(enum driver_id id, const void *stream, bool capturable,
                                                               bool stretch)
{
    enum driver_kind kind = driver_table[id].kind;
    const struct driver_class *class = class_of(id);
    return engine_direct_call((cudaStream_t)stream, driver_table[id].name,
                               kind == DRIVER_KIND_CAPTURE_BEGIN ? 1 : kind == DRIVER_KIND_CAPTURE_END ? -1 : 0,
                               capturable, class->reason,
                               stretch && class->ends_stretch ? CALL_API_DRIVER(id) : HOOK_COUNT);
}

/* A wrapped driver function called by someone other than the runtime or the shim, on stream (NULL: none). */
bool direct_call(enum driver_id id, const void *stream, const void *caller)
{
    if (shim_counting)
        direct_count(id, stream, 0);
    if (!shim_auto)
        return false;
    enum driver_kind kind = driver_table[id].kind;
    /* A communication library's work never goes into a graph, not even the robust path's capture. */
    bool capturable = kind == DRIVER_KIND_CAPTURABLE && !calling_object_is_communication(caller);
    if (kind == DRIVER_KIND_CAPTURABLE && !capturable)
        observe_communication_call(); /* for the exit summary: how much of the work was the collectives' */
    return boundary_call(id, stream, capturable, true);
}

/* The runtime's driver call for a runtime function the shim does not hook: a boundary, as direct_call's (uncounted). */
bool unhooked_runtime_call(enum driver_id id, const void *stream)
{
    return boundary_call(id, stream, driver_table[id].kind == DRIVER_KIND_CAPTURABLE, false);
}

/* Observe mode: a direct call of wait function id that began at start returned; a host sync ends a span. */
void direct_wait_done(enum driver_id id, uint64_t start)
{
    if (class_of(id)->waits) /* a query waits for nothing */
        observe_sync_done(start);
}
