/* SPDX-License-Identifier: MIT */
/* The engine's per-thread trackers: its options, each thread's tracker and the registry of them all. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "crash_report.h"
#include "engine_crash.h"
#include "engine_fast.h"
#include "engine_held.h"
#include "engine_neighbours.h"
#include "engine_tracker.h"
#include "exclusions.h"
#include "log.h"
#include "settings.h"
#include "watchdog.h"

struct region_policy engine_policy;
pthread_mutex_t trackers_lock = PTHREAD_MUTEX_INITIALIZER;
struct tracker *trackers;
atomic_int pending_trackers;
atomic_int program_captures;
atomic_int shim_captures;
atomic_int threads_seen;
atomic_bool shut_down;
atomic_bool engine_holding;
atomic_bool captures_begun;
atomic_bool captures_refused;
atomic_ulong graphs_built;
__thread struct tracker *self __attribute__((tls_model("initial-exec")));
__thread bool in_engine __attribute__((tls_model("initial-exec")));
atomic_bool engine_door_fast;
__thread struct tracker *door_self __attribute__((tls_model("initial-exec")));

/* Until the front doors say what they see (init.c does, before any call): assume work may escape them. */
static bool unseen_work_unknown(char *who, size_t who_len)
{
    snprintf(who, who_len, "no front door told the engine what it sees");
    return true;
}

bool (*unseen_work_possible)(char *who, size_t who_len) = unseen_work_unknown;

/* How the engine asks the front doors whether work may reach the GPU unseen. */
void engine_set_unseen_work_probe(bool (*probe)(char *who, size_t who_len))
{
    unseen_work_possible = probe;
}

/* Reads the engine's options; called once at init when the mode is auto. */
void engine_configure(void)
{
    engine_policy.min_repeats = (unsigned)shim_options.num[OPT_MIN_REPEATS];
    engine_policy.min_calls = (unsigned)shim_options.num[OPT_MIN_REGION_CALLS];
    engine_policy.max_calls = (unsigned)shim_options.num[OPT_MAX_REGION_CALLS];
    engine_policy.max_graphs = (unsigned)shim_options.num[OPT_MAX_GRAPHS];
    engine_policy.max_regions = engine_policy.max_graphs * 4 + 64;
    engine_policy.trial_pairs = (unsigned)shim_options.num[OPT_TRIAL];
    exclusions_configure();
    atomic_store(&engine_holding, true);
    atomic_store(&engine_door_fast, !shim_counting); /* last: a door that sees it takes calls to the engine at once */
}

/* Creates this thread's tracker and registers it; NULL if memory ran out. */
struct tracker *tracker_create(void)
{
    struct tracker *t = calloc(1, sizeof *t);
    if (t == NULL)
        return NULL;
    regions_init(&t->table, &engine_policy);
    t->neighbours.explain_left = log_enabled(LOG_DEBUG) ? NEIGHBOURS_EXPLAIN_PER_THREAD : 0;
    t->thread_number = log_thread_number();
    fast_init(t);
    last_call_init(t);
    crash_report_thread_stack(); /* its stack overflowing is reported too */
    pthread_mutex_lock(&trackers_lock);
    t->next = trackers;
    /* Walked without the lock by fast_close_others and note_handovers_at_start. */
    __atomic_store_n(&trackers, t, __ATOMIC_SEQ_CST);
    atomic_fetch_add(&threads_seen, 1); /* before this thread marks a call in flight: see engine_in_flight.c */
    pthread_mutex_unlock(&trackers_lock);
    self = t;
    if (!shim_counting)
        door_self = t; /* the driver's front door tests engine_door_fast too: it may be stepped aside */
    return t;
}

/* Closes the fast path of every thread but me (NULL: every thread) after a rare state that concerns them began. */
void fast_close_others(const struct tracker *me)
{
    for (struct tracker *t = __atomic_load_n(&trackers, __ATOMIC_SEQ_CST); t; t = t->next)
        if (t != me)
            fast_close_ordered(t);
}

/* Whether a call of api (of kind CALL_CAPTURE) begins the program's capture, rather than ending it. */
bool program_capture_begins(enum hook_id api)
{
    return api == HOOK_ID_cudaStreamBeginCapture || api == HOOK_ID_cudaStreamBeginCapture_ptsz ||
           api == HOOK_ID_cudaStreamBeginCaptureToGraph || api == HOOK_ID_cudaStreamBeginCaptureToGraph_ptsz;
}

/* Counts a capture of the program's own beginning (delta 1) or ending (-1). */
void note_program_capture(int delta)
{
    if (delta > 0) {
        atomic_fetch_add(&program_captures, 1);
        fast_close_others(NULL); /* no thread's launches are held back while it lasts */
    } else if (delta < 0 && atomic_load(&program_captures) > 0)
        atomic_fetch_sub(&program_captures, 1);
}

/* Counts t in pending_trackers while it holds work back or shows a recording: other threads' calls look at it. */
static void update_counted(struct tracker *t)
{
    bool counted = t->pending || t->recording_shown;
    if (t->counted != counted) {
        __atomic_store_n(&t->counted, counted, __ATOMIC_RELAXED); /* its own thread reads it without the lock */
        atomic_fetch_add(&pending_trackers, counted ? 1 : -1);
        /* Other threads' calls must be weighed against t's work before they are held back themselves. */
        if (counted && atomic_load(&threads_seen) > 1)
            fast_close_others(t);
    }
}

/* Marks whether t holds calls back. */
void set_pending(struct tracker *t, bool pending)
{
    if (t->pending != pending) {
        __atomic_store_n(&t->pending, pending, __ATOMIC_RELAXED); /* the watchdog reads it without the lock */
        update_counted(t);
        if (pending)
            watchdog_note_held();
    }
    if (!pending) {
        fast_held_submitted(t);
        held_forget(t);
    }
}

/* Shows t's recording to other threads' calls (a hand-over ends it), or stops showing it. */
void show_recording(struct tracker *t, bool shown)
{
    if (t->recording_shown != shown) {
        t->recording_shown = shown;
        t->recording_looks = 0;
        update_counted(t);
    }
}
