/* SPDX-License-Identifier: MIT */
/* Stepping the engine aside for the governor, and back: held-back work submitted first, what is owed made first. */
#include "config.h"

#include "engine_aside.h"
#include "engine_capture.h"
#include "engine_fallback.h"
#include "engine_fast.h"
#include "engine_handover.h"
#include "engine_sequence.h"
#include "errors.h"
#include "log.h"
#include "owed_records.h"
#include "owed_waits.h"
#include "settings.h"

/*
 * While the engine holds nothing (a step aside): t's held-back or captured
 * work is submitted in order (from another thread, in t's context, its
 * per-thread-stream work on the legacy stream, as the watchdog does), and
 * its sequence is dropped with whatever it was timing.  A hand-over mark
 * is forgotten (its sequence is gone); the wait for moved work is not.
 * Graphs are kept: a region that pays replays again once the engine
 * resumes.  t's lock is held.
 */
void aside_clean(struct tracker *t)
{
    if (holds_back(t) || capture_active(t)) {
        log_debug("governor: thread %u's %u held-back calls submitted before stepping aside", t->thread_number,
                  t->records.count);
        release_held(t);
    }
    abandon_sequence(t);
    handover_forget_mark(t);
}

/*
 * Whether the engine may step aside: not once a robust-path capture has
 * begun in the process.  A capture on a stream invalidates, and is
 * invalidated by, another thread's call on that stream or the legacy
 * stream made while it lasts, so one begins only when no other thread's
 * call that touches it is in flight (engine_in_flight.c): every call marks
 * itself while several threads call CUDA.  Stepped aside, calls are not
 * marked (the doors forward them as off mode does), and a thread may still
 * be inside such a call, or begin one, when the engine resumes, with no
 * way to tell short of marking every call.  So after the first step aside
 * no capture begins again (captures_refused, start_recapture), and a
 * process whose regions took the robust path before is not stepped aside:
 * it would lose their graphs for good.
 */
bool aside_allowed(void)
{
    return !atomic_load(&captures_begun);
}

/*
 * Begins to step aside.  The engine stops holding first (a sequentially
 * consistent store, then every fast path closed, as a program capture
 * does): a thread that takes its lock after the walk below took it sees
 * that, and one that took it before has its work submitted by the walk.
 */
bool aside_begin(void)
{
    bool was_in_engine = in_engine;
    in_engine = true; /* what it submits for other threads is the shim's own work */
    atomic_store(&captures_refused, true);
    atomic_store(&engine_holding, false);
    fast_close_others(NULL);
    pthread_mutex_lock(&trackers_lock);
    for (struct tracker *t = trackers; t; t = t->next) {
        tracker_lock(t);
        aside_clean(t);
        tracker_unlock(t);
    }
    pthread_mutex_unlock(&trackers_lock);
    in_engine = was_in_engine;
    return aside_finish();
}

/*
 * Whether some thread still needs the engine at its next call: work held
 * or captured (a thread whose call was under way when the engine stopped
 * holding), or its stream's wait for work another thread moved.
 */
static bool any_thread_owed(void)
{
    bool owed = false;
    pthread_mutex_lock(&trackers_lock);
    for (struct tracker *t = trackers; t && !owed; t = t->next) {
        tracker_lock(t);
        owed = holds_back(t) || capture_active(t) || moved_work_owed(t);
        tracker_unlock(t);
    }
    pthread_mutex_unlock(&trackers_lock);
    return owed;
}

/*
 * Ends the step aside begun, if nothing is owed that only the engine could
 * make at a thread's next call: then every wait and record owed after
 * graphs is made now (no graph launches while the engine holds nothing,
 * so none is owed again), and the doors forward as in off mode.
 */
bool aside_finish(void)
{
    if (errors_outstanding() || any_thread_owed())
        return false;
    bool was_in_engine = in_engine;
    in_engine = true;
    owed_waits_settle_all();
    owed_records_settle_all();
    in_engine = was_in_engine;
    atomic_store(&engine_door_fast, false);
    atomic_store(&shim_looking, false);
    return true;
}

/* Gives a step aside up: the engine holds calls back again (the doors never stopped handing calls to it). */
void aside_cancel(void)
{
    atomic_store(&engine_holding, true);
}

/* Resumes: the engine may hold again before any door hands it a call. */
void aside_end(void)
{
    atomic_store(&engine_holding, true);
    atomic_store(&shim_looking, shim_observing);
    atomic_store(&engine_door_fast, !shim_counting);
}

/* While auto mode steps aside: the program's capture call api is counted, so that the engine knows it on resuming. */
void engine_capture_aside(enum hook_id api)
{
    note_program_capture(program_capture_begins(api) ? 1 : -1);
}

/* The same for a capture begun (delta 1) or ended (-1) through the driver by anyone but the runtime. */
void engine_capture_aside_count(int delta)
{
    note_program_capture(delta);
}
