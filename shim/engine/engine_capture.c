/* SPDX-License-Identifier: MIT */
/* A thread's robust-path capture: begun, taking calls in, ended (its work run), hidden from the program's queries. */
#include "config.h"

#include "engine_capture.h"
#include "engine_fast.h"
#include "engine_held.h"
#include "engine_in_flight.h"
#include "engine_on_behalf.h"
#include "libcuda.h"
#include "log.h"

/* Begins t's capture on stream (pageable_bytes staged for its copies), counted among the shim's; CUDA_SUCCESS if so. */
CUresult begin_capture(struct tracker *t, cudaStream_t stream, size_t pageable_bytes)
{
    CUresult err = capture_begin(&t->capture.session, stream, pageable_bytes);
    if (err == CUDA_SUCCESS)
        atomic_fetch_add(&shim_captures, 1);
    return err;
}

/*
 * Ends t's robust-path capture and runs what it holds (see capture_finish),
 * in t's context (another thread may end it); nothing is pending after.
 */
enum capture_outcome end_capture(struct tracker *t, struct region_capture **rc, bool keep, CUresult *error)
{
    CUcontext previous;
    bool switched = enter_context_of(t, &previous);
    CUresult owed;
    enum capture_outcome outcome = capture_finish(&t->capture.session, rc, keep, &t->records, error, &owed);
    libcuda_context_leave(switched, previous);
    owe_driver_error_to(t, owed);
    atomic_fetch_sub(&shim_captures, 1);
    set_pending(t, false);
    return outcome;
}

/* Ends a robust-path capture early: runs what it holds once, in order (logged if the capture was lost). */
void release_capture(struct tracker *t)
{
    struct region_capture *none = NULL;
    CUresult error;
    enum capture_outcome outcome = end_capture(t, &none, false, &error);
    if (outcome == CAPTURE_RESUBMITTED) {
        char who[256];
        if (unseen_work_possible(who, sizeof who))
            log_warn("a capture of the robust path was lost (%s): the %u calls the shim saw were submitted one by "
                     "one; work that %s submitted into that capture did not run",
                     libcuda_error_name(error), t->records.count, who);
        else
            log_info("a capture of the robust path was lost (%s): its %u calls were submitted one by one",
                     libcuda_error_name(error), t->records.count);
    }
}

/*
 * Whether t's capture may take call c in: what c adds to it (a stream new
 * to it, an event it records) is noted among t's held streams and events
 * first, then no other thread's call in flight may touch it (see
 * claim_stream in engine_robust.c).  Else c ends the capture (the caller
 * falls back).
 */
bool capture_takes_call(struct tracker *t, const struct call *c)
{
    if (capture_holds(&t->capture.session, c->stream) && c->kind != CALL_EVENT_RECORD)
        return true;
    note_held(t, c);
    return !in_flight_meets(t);
}

/*
 * Takes a direct call on stream into t's capture, in the program's order
 * (a stream new to the capture joins it first); until it is forwarded, the
 * watchdog must not end the capture under it (capture_forwarded).  False
 * if it cannot be taken in.
 */
bool capture_takes_direct(struct tracker *t, cudaStream_t stream)
{
    struct call on_stream = {.kind = CALL_LAUNCH, .stream = stream};
    if (!capture_takes_call(t, &on_stream) || capture_join(&t->capture.session, stream) != CUDA_SUCCESS)
        return false;
    atomic_store_explicit(&t->capture.forwarding, true, memory_order_relaxed);
    return true;
}

/* Drops t's capture's private streams and events: their context ends (no capture is active then). */
void capture_drop_private(struct tracker *t)
{
    capture_session_fini(&t->capture.session);
}

/* Whether stream takes part in one of the shim's robust-path captures, on any thread. */
static bool shim_captures_stream(cudaStream_t stream)
{
    bool found = false;
    pthread_mutex_lock(&trackers_lock);
    for (struct tracker *t = trackers; t && !found; t = t->next) {
        tracker_lock(t);
        found = t->capture.session.active && capture_holds(&t->capture.session, stream);
        tracker_unlock(t);
    }
    pthread_mutex_unlock(&trackers_lock);
    return found;
}

/* Whether the only capture a query about stream would see is the shim's (see engine.h). */
bool engine_hides_capture(cudaStream_t stream)
{
    if (in_engine || atomic_load_explicit(&shim_captures, memory_order_relaxed) == 0)
        return false;
    /* The legacy stream reports a blocking stream's capture as an error of its own: none of the shim's is the
       program's (the shim captures nothing while the program does). */
    return stream == cudaStreamLegacy || shim_captures_stream(stream);
}

/*
 * Why the robust path cannot take a region that starts on stream, one of
 * the two it never captures.  The legacy stream cannot be captured at all.
 * The per-thread default stream can, but only its own thread can name it,
 * and the robust path needs other threads to end its captures: the
 * watchdog, when held-back work waits too long, and a thread whose call
 * must follow the captured work (cudaStreamPerThread there is that
 * thread's own stream; the fast path moves such work to the legacy
 * stream, which a capture cannot be moved to).  Said once at length.
 */
const char *robust_path_refusal(cudaStream_t stream)
{
    static atomic_bool told;
    if (stream != cudaStreamPerThread)
        return "it starts on the legacy stream, which cannot be captured";
    if (!atomic_exchange(&told, true))
        log_info("the robust path takes no region on the per-thread default stream: a capture of that stream could "
                 "be ended only by its own thread, and the watchdog (held-back work that waits too long) and other "
                 "threads whose calls must follow the work have to end it from theirs, where cudaStreamPerThread "
                 "names another stream; such regions take the fast path, or pass through where it is not safe");
    return "it starts on the per-thread default stream, whose capture no other thread could end";
}
