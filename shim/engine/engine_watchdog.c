/* SPDX-License-Identifier: MIT */
/* The watchdog's round: held-back work nothing was added to since the last round is submitted. */
#include "config.h"

#include <stdio.h>

#include "engine_internal.h"
#include "shim.h"

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
    static unsigned long round = 1; /* a tracker never watched has watched_round 0: two rounds back */
    round++;
    if (atomic_load(&pending_trackers) == 0)
        return atomic_load(&shut_down) ? ROUND_STOP : ROUND_IDLE;
    pthread_mutex_lock(&trackers_lock);
    if (atomic_load(&shut_down)) {
        pthread_mutex_unlock(&trackers_lock); /* no CUDA call once the engine has shut down */
        return ROUND_STOP;
    }
    for (struct tracker *t = trackers; t; t = t->next) {
        if (!__atomic_load_n(&t->pending, __ATOMIC_RELAXED))
            continue;
        unsigned activity = tracker_activity(t);
        if (t->watched_round + 1 != round || t->watched_activity != activity ||
            atomic_load_explicit(&t->forwarding, memory_order_relaxed)) {
            t->watched_round = round;
            t->watched_activity = activity;
            continue;
        }
        tracker_lock(t);
        if (t->pending && (t->mode == FOLLOW_REPLAY || t->mode == FOLLOW_RECAPTURE) &&
            tracker_activity(t) == activity &&
            !atomic_load_explicit(&t->forwarding, memory_order_relaxed))
            time_out(t);
        tracker_unlock(t);
    }
    pthread_mutex_unlock(&trackers_lock);
    return ROUND_HELD;
}

/* What the watchdog's thread calls of the engine. */
const struct watchdog_client engine_watchdog = {
    .thread_start = watchdog_thread_start,
    .round = watchdog_round,
    .holds_work = holds_work,
};
