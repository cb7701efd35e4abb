/* SPDX-License-Identifier: MIT */
/* The watchdog's round: held-back work nothing was added to since the last round is submitted. */
#include "config.h"

#include <stdio.h>

#include "engine_capture.h"
#include "engine_fallback.h"
#include "engine_fast.h"
#include "engine_graph_keep.h"
#include "engine_sequence.h"
#include "engine_watchdog.h"
#include "settings.h"
#include "watchdog.h"

/* Marks the calling thread as the watchdog's: its CUDA calls are the shim's own. */
static void watchdog_thread_start(void)
{
    in_engine = true; /* never cleared: every call this thread makes is the shim's */
}

/* Whether any thread holds work back now. */
static bool holds_work(void)
{
    return atomic_load(&pending_trackers) > 0;
}

/*
 * How far t has come, for the watchdog: the calls it held back, the fast
 * path's not taken into the count yet included (fast_unsynced).  Exact
 * under t's lock; read without it, a read torn by a sync or a new sequence
 * at that moment can only make it differ from the last round's, which
 * puts a time-out off by a round.
 */
static unsigned tracker_activity(const struct tracker *t)
{
    return atomic_load_explicit(&t->watched.activity, memory_order_relaxed) + fast_unsynced(t);
}

/* The watchdog gives up waiting for t's next call: its held-back work is submitted, in order. */
static void time_out(struct tracker *t)
{
    char detail[128];
    snprintf(detail, sizeof detail, "thread %u added no call for %ld us", t->thread_number,
             shim_options.num[OPT_DEFERRAL_TIMEOUT_US]);
    fall_back(t, FALLBACK_DEFERRAL_TIMEOUT, detail);
}

/*
 * One round of the watchdog.  Correct against the owner resuming at the
 * same moment: the owner's calls and the submission both hold the
 * tracker's lock, and the watchdog submits only if, under it, the work is
 * still held and nothing was added since the last round.  The owner then
 * finds its region fallen back, as after another thread's call.
 */
static enum watchdog_round watchdog_round(void)
{
    static unsigned long round = 1; /* a tracker never watched has round_seen 0: two rounds back */
    round++;
    if (atomic_load(&pending_trackers) == 0)
        return atomic_load(&shut_down) ? ROUND_STOP : ROUND_IDLE;
    pthread_mutex_lock(&trackers_lock);
    if (atomic_load(&shut_down)) {
        pthread_mutex_unlock(&trackers_lock); /* no CUDA call once the engine has shut down */
        return ROUND_STOP;
    }
    for (struct tracker *t = trackers; t; t = t->next) {
        if (!holds_back_unlocked(t))
            continue;
        unsigned activity = tracker_activity(t);
        if (t->watched.round_seen + 1 != round || t->watched.activity_seen != activity || capture_forwarding(t)) {
            t->watched.round_seen = round;
            t->watched.activity_seen = activity;
            continue;
        }
        tracker_lock(t);
        if (holds_back(t) && replaying(t) && tracker_activity(t) == activity && !capture_forwarding(t))
            time_out(t);
        tracker_unlock(t);
    }
    pthread_mutex_unlock(&trackers_lock);
    return ROUND_HELD;
}

/* What the watchdog's thread calls of the engine. */
static const struct watchdog_client engine_watchdog = {
    .thread_start = watchdog_thread_start,
    .round = watchdog_round,
    .holds_work = holds_work,
};

/* Whether no watchdog can bound the wait of r's held-back work (its thread would not start): then r is failed, and said. */
bool watchdog_refuses(struct tracker *t, struct region *r)
{
    if (watchdog_ensure(&engine_watchdog))
        return false;
    not_graphed(t, r, FALLBACK_UNSUPPORTED, NULL, "no watchdog");
    return true;
}
