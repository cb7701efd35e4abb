/* SPDX-License-Identifier: MIT */
/* Driver calls the runtime did not make: taken into the thread's region, or a boundary for all held-back work. */
#include "config.h"

#include "engine_aside.h"
#include "engine_capture.h"
#include "engine_crash.h"
#include "engine_fallback.h"
#include "engine_fast.h"
#include "engine_governor.h"
#include "engine_handover.h"
#include "engine_held.h"
#include "engine_in_flight.h"
#include "engine_sequence.h"
#include "engine_threads.h"
#include "engine_watchdog.h"
#include "owed_records.h"
#include "owed_waits.h"

/* A driver call that can be a graph node, from someone other than the runtime: engine_call, unless the shim made it. */
bool engine_driver_call(const struct call *c, cudaError_t *result)
{
    if (in_engine)
        return false; /* the shim's own work through a runtime not recognised as the caller */
    return engine_call(c, result);
}

/*
 * Takes a capturable direct call on a created stream into this thread's
 * sequence; false if it must be a boundary instead (other threads hold work
 * back).  In a robust-path capture it is captured, in the program's order
 * (a stream new to the capture joins it first).  Otherwise nothing of this
 * thread is held back once it returns, and the sequence is marked: its
 * region needs the robust path.
 */
static bool inside_region(struct tracker *me, cudaStream_t stream, const char *name)
{
    if (others_hold_work(me))
        return false;
    tracker_lock(me);
    if (!engine_holds()) { /* the governor steps the engine aside: no sequence to take it into */
        tracker_unlock(me);
        return false;
    }
    bool taken = true;
    if (me->mode == FOLLOW_RECAPTURE) {
        taken = capture_takes_direct(me, stream); /* until forwarded (engine_direct_done) */
        if (taken) {
            note_progress(me);
        } else {
            fall_back(me, FALLBACK_HIDDEN_WORK, name);
        }
    } else {
        if (me->mode == FOLLOW_REPLAY) {
            /* Held back, it would be overtaken: submit it, and take the robust path from now on. */
            me->region->needs_robust = true;
            fall_back(me, FALLBACK_HIDDEN_WORK, name);
        } else if (me->mode == FOLLOW_RECORD) {
            me->mode = FOLLOW_NONE; /* the record lacks this call: no fast-path graph from it */
        }
        me->direct_in_sequence = true;
    }
    tracker_unlock(me);
    return taken;
}

/* A driver call the runtime did not make: a boundary for this thread and for all held-back work. */
bool engine_direct_call(cudaStream_t stream, const char *name, int captures, bool capturable,
                         enum fallback_reason reason, enum hook_id stretch_api)
{
    if (in_engine || atomic_load_explicit(&shut_down, memory_order_relaxed))
        return false; /* the shim's own work (a runtime not recognised as the caller): taking a lock again would hang */
    in_engine = true;
    owed_waits_settle(stream); /* it is forwarded (or captured) after the graphs its stream follows */
    /* Which events it waits for or observes is not known here: all of them (a sync or a query, from the host). */
    if (reason == FALLBACK_SYNC_INSIDE)
        owed_records_observe(OWED_ANY_EVENT);
    owed_records_settle(stream, OWED_ANY_EVENT);
    struct tracker *me = tracker_self(); /* a thread that only calls the driver counts (see tracker_self) */
    if (me) {
        note_last_direct_call(me, name);
        /* In flight until forwarded (engine_forwarded, engine_direct_done): a capturable call on its stream,
           any other device-wide, as other threads' held-back work takes it below. */
        struct call in_flight = {.kind = capturable && stream ? CALL_LAUNCH : CALL_DEVICE_SYNC, .stream = stream};
        in_flight_mark(me, &in_flight);
    }
    if (me && __builtin_expect(rejoin_pending(me), 0)) {
        tracker_lock(me);
        if (rejoin_pending(me))
            rejoin_moved_work(me);
        tracker_unlock(me);
    }
    if (me && capturable && captures == 0 && capture_stream_eligible(stream) && inside_region(me, stream, name)) {
        in_engine = false;
        return capture_forwarding(me);
    }
    /* Like a call the engine does not know (a device-wide one): it interacts with all held-back work. */
    static const struct call direct = {.api = HOOK_COUNT, .kind = CALL_DEVICE_SYNC};
    if (others_hold_work(me))
        submit_other_threads(me, interacts, &direct, FALLBACK_HIDDEN_WORK, name);
    note_program_capture(captures);
    if (me == NULL) {
        in_engine = false;
        return false;
    }
    /* The sequence ends here, before the call.  Another thread may have submitted this thread's per-thread
       work on the legacy stream since the check above (it takes the lock): the stream waits for it before
       the call (a sync of it) goes on, with nothing held back left to move (found by the threads fuzzer). */
    tracker_lock(me);
    bool holding = engine_holds();
    if (holding) {
        end_sequence(me, true, reason, name);
        pace_at_boundary(me, reason == FALLBACK_SYNC_INSIDE); /* a sync or a query: timed until it returns */
    } else {
        aside_clean(me); /* the governor steps the engine aside: this thread's held-back work goes first */
    }
    if (__builtin_expect(rejoin_pending(me), 0))
        rejoin_moved_work(me);
    tracker_unlock(me);
    owed_waits_settle(stream); /* and after the graph this boundary launched */
    owed_records_settle(stream, OWED_ANY_EVENT);
    in_engine = false;
    if (stretch_api != HOOK_COUNT)
        governor_arm(stretch_api, stream); /* a host sync: the stretch it ends, for the governor */
    if (!holding)
        governor_drain_retry();
    return false;
}

/* After a direct call taken into this thread's capture has been forwarded. */
void engine_direct_done(void)
{
    if (self)
        capture_forwarded(self);
    engine_forwarded();
}
