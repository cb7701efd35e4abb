/* SPDX-License-Identifier: MIT */
/* Other threads' held-back work: submitted (or launched) before a call that must follow it, hand-overs ended. */
#include "config.h"

#include "engine_fallback.h"
#include "engine_fast.h"
#include "engine_handover.h"
#include "engine_on_behalf.h"
#include "engine_sequence.h"
#include "engine_threads.h"
#include "errors.h"
#include "libcuda.h"
#include "log.h"

/*
 * Other threads' calls that look at a recording before it stops being
 * shown: a recording whose stream no one takes over soon (its thread
 * records on streams of its own, or exited) must not keep every other
 * thread's calls on the slow path.
 */
#define RECORDING_LOOKS_MAX 64

/*
 * At this thread's next call after another thread did something for it
 * (rejoin_pending): its stream waits for its per-thread work moved onto the
 * legacy stream, and a sequence another thread took over ends here, before
 * this call, as at any boundary: learnt, and a complete recording built.
 */
void rejoin_moved_work(struct tracker *t)
{
    struct handover_by by;
    if (!rejoin_moved_stream(t, &by))
        return;
    /* Work held back since is this thread's own: its boundaries, or other threads' calls, end it. */
    if (!holds_back(t) && t->observed_count > 0) {
        log_debug("a sequence of %u calls ends where thread %u's %s took its stream over (a hand-over)",
                  t->observed_count, by.thread, by.call);
        end_sequence_handed_over(t, FALLBACK_THREAD, by.call);
    }
}

/* Says once why a graph on a thread's per-thread default stream is not launched at a hand-over. */
static void explain_per_thread_handover(const struct tracker *t, const struct region *r)
{
    static atomic_bool told;
    if (!atomic_exchange(&told, true))
        log_info("region %u of thread %u is on that thread's per-thread default stream: when another thread's call "
                 "must follow it, that thread cannot launch its graph there (cudaStreamPerThread names its own "
                 "stream), so its calls are submitted on the legacy stream instead and the region falls back "
                 "(other_thread)",
                 r->id, t->thread_number);
}

/*
 * Another thread's call c (NULL: none in particular) must follow the work
 * t holds back; t's lock is held, on the calling thread.  t's sequence
 * ends there, a boundary: a complete replay is launched as its graph, in
 * t's context, before c goes on; an incomplete one falls back (why,
 * naming name), and if c takes over one of its streams its calls so far
 * are a sighting, so that regions learn where the hand-over falls.  A
 * launch's error is owed to t's thread.  A robust-path capture is the
 * same: a complete one ends, updates its graph and launches it.  Left
 * falling back: a graph on t's per-thread default stream (this thread
 * cannot name it), and an incomplete occurrence that c follows only
 * device-wide.  Returns whether the
 * sequence ended there (a hand-over), not only fell back.
 */
static bool hand_over_held(struct tracker *t, const struct call *c, enum fallback_reason why, const char *name)
{
    struct region *r = t->region;
    struct touch x;
    bool complete = t->records.count >= r->length; /* a replay, or a robust-path capture */
    if (!complete && (c == NULL || !hands_over(t, touch_of_call(c, &x)))) {
        fall_back(t, why, name);
        return false;
    }
    bool launch = complete && !holds_per_thread_work(t);
    if (complete && !launch) {
        explain_per_thread_handover(t, r);
        fall_back(t, why, name);
    }
    unsigned id = r->id;
    unsigned long long replays = r->stats.replays; /* robust-path replays (recaptures) included */
    CUcontext previous;
    bool switched = enter_context_of(t, &previous);
    cudaError_t owed_before = errors_owed(false);
    end_sequence_handed_over(t, why, name);
    if (owed_before == cudaSuccess)
        owe_error_to(t, errors_owed(true)); /* the launch's own error (region_graph_launch owed it here) */
    libcuda_context_leave(switched, previous);
    /* A complete occurrence was a sighting of r itself: r is still there. */
    log_debug("thread %u's region %u: this thread's %s takes its stream over (a hand-over): %s", t->thread_number, id,
              name, launch && r->stats.replays > replays ? "launched as its graph first"
                                                         : "its held-back calls submitted first; it ends there");
    return true;
}

/*
 * A call must not overtake work another thread holds back or captures that
 * it could be ordered against: first, every other thread's held-back work
 * that must_submit says (interacts, for call c) ends there, a hand-over
 * (hand_over_held); why and name go to the log.  A recording that c takes
 * a stream of over ends at its thread's next call.  Returns how many
 * threads' held-back work it submitted or launched.
 */
unsigned submit_other_threads(struct tracker *me, bool (*must_submit)(const struct tracker *, const struct call *),
                                     const struct call *c, enum fallback_reason why, const char *name)
{
    unsigned submitted = 0;
    bool was_in_engine = in_engine;
    in_engine = true; /* what it submits for others is the shim's own work */
    struct touch x;
    if (c)
        touch_of_call(c, &x);
    pthread_mutex_lock(&trackers_lock);
    for (struct tracker *t = trackers; t; t = t->next) {
        if (t == me || !tracker_counted(t))
            continue;
        tracker_lock(t);
        if (holds_back(t) && replaying(t) && must_submit(t, c)) {
            if (hand_over_held(t, c, why, name) && me)
                handover_found(me); /* it takes streams over: its sequence starts look for more */
            submitted++;
        } else if (recording_shown(t) &&
                   (t->mode != FOLLOW_RECORD || recording_looked_at(t) > RECORDING_LOOKS_MAX)) {
            show_recording(t, false); /* it gave the recording up, or no one takes its streams over */
        } else if (recording_shown(t) && c && hands_over(t, &x)) {
            mark_handed_over(t, name);
            if (me)
                handover_found(me);
        }
        tracker_unlock(t);
    }
    pthread_mutex_unlock(&trackers_lock);
    in_engine = was_in_engine;
    return submitted;
}
