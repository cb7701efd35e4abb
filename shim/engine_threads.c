/* Other threads' held-back work: what a call could be ordered against, and work handed over to another thread. */
#include "config.h"

#include "engine_internal.h"
#include "libcuda.h"
#include "log.h"
#include "stream_order.h"

/* Whether another thread's call c could be ordered against the work t holds back. */
bool interacts(const struct tracker *t, const struct call *c)
{
    if (call_kind_in(c->kind, CALL_KINDS_NO_ORDER))
        return false;
    /* Anything else but stream work and stream or event waits is device-wide: syncs, allocations, frees,
       graphs, other copies. */
    unsigned on_streams = CALL_KINDS_NODE | (1u << CALL_STREAM_SYNC) | (1u << CALL_QUERY) |
                          (1u << CALL_EVENT_SYNC) | (1u << CALL_EVENT_QUERY);
    if (!call_kind_in(c->kind, on_streams))
        return true;
    if (t->held_everything)
        return true;
    bool has_stream = c->kind != CALL_EVENT_SYNC && c->kind != CALL_EVENT_QUERY;
    /* The legacy stream waits for, and is waited for by, every blocking stream. */
    if (has_stream && c->stream == cudaStreamLegacy)
        return true;
    /* cudaStreamPerThread names each thread's own stream: the same handle is never the same stream here. */
    bool same_stream_possible = has_stream && c->stream != cudaStreamPerThread;
    for (unsigned i = 0; i < t->held_stream_count; i++)
        if (t->held_streams[i] == (const void *)cudaStreamLegacy ||
            (same_stream_possible && t->held_streams[i] == c->stream))
            return true;
    bool has_event = c->kind == CALL_EVENT_RECORD || c->kind == CALL_EVENT_WAIT || c->kind == CALL_EVENT_SYNC ||
                     c->kind == CALL_EVENT_QUERY;
    for (unsigned i = 0; has_event && i < t->held_event_count; i++)
        if (t->held_events[i] == c->event)
            return true;
    return false;
}

/* Whether any held-back call of t is on its per-thread default stream. */
bool holds_per_thread_work(const struct tracker *t)
{
    for (unsigned i = 0; i < t->records.count; i++)
        if (t->records.calls[i].call.stream == cudaStreamPerThread)
            return true;
    return false;
}

/*
 * After another thread submitted t's per-thread-stream work on the legacy
 * stream: marks the legacy stream's position, for t's stream to wait for
 * at t's next call.  Later work on t's stream waits for the legacy stream
 * anyway, but a sync or query of that stream with nothing new on it would
 * not (found by tests/fuzz/threads_differential.sh).
 */
void note_moved_work(struct tracker *t)
{
    CUresult err = private_event(&t->moved_work);
    if (err == CUDA_SUCCESS)
        err = DEVICE_CALL(cuEventRecord, t->moved_work, cudaStreamLegacy);
    if (err == CUDA_SUCCESS)
        atomic_store_explicit(&t->moved_pending, true, memory_order_relaxed);
    else
        log_warn("thread %u's held-back work was submitted from another thread on the legacy stream, and its own "
                 "stream could not be made to wait for it (%s): a sync of that stream alone may return early",
                 t->thread_number, libcuda_error_name(err));
}

/* At this thread's next call after another thread moved its per-thread work: its stream waits for that work. */
void rejoin_moved_work(struct tracker *t)
{
    (void)DEVICE_CALL(cuStreamWaitEvent, cudaStreamPerThread, t->moved_work, 0);
    atomic_store_explicit(&t->moved_pending, false, memory_order_relaxed);
}

/*
 * A call must not overtake work another thread holds back or captures that
 * it could be ordered against: submits, first, the work of every other
 * thread that must_submit says (interacts, for call c); why and name go to
 * the log.  Returns how many threads' work it submitted.
 */
unsigned submit_other_threads(struct tracker *me, bool (*must_submit)(const struct tracker *, const struct call *),
                                     const struct call *c, enum fallback_reason why, const char *name)
{
    unsigned submitted = 0;
    pthread_mutex_lock(&trackers_lock);
    for (struct tracker *t = trackers; t; t = t->next) {
        if (t == me || !t->pending)
            continue;
        tracker_lock(t);
        if (t->pending && (t->mode == FOLLOW_REPLAY || t->mode == FOLLOW_RECAPTURE) && must_submit(t, c)) {
            fall_back(t, why, name);
            submitted++;
        }
        tracker_unlock(t);
    }
    pthread_mutex_unlock(&trackers_lock);
    return submitted;
}
