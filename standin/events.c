/* SPDX-License-Identifier: MIT */
/*
 * standin/events.c: events of the stand-in.
 *
 * An event is the id of its latest record op: waiting for the event is
 * waiting for that op. A record op stamps the fake clock when it runs, if
 * it is still the latest record. A record made in a capturing stream is
 * no op: the event then holds the capture's id and dependency set, which
 * cudaStreamWaitEvent uses to fork a stream into the capture.
 *
 * Measured on the H200 (tests/conformance.c):
 * - query/synchronize of a never-recorded event succeed;
 * - an event last recorded in a capture that is still active: query and
 *   synchronize fail with cudaErrorCapturedEvent and invalidate it; once
 *   that capture has ended (well or not), query, synchronize and waits
 *   fail with cudaErrorInvalidValue until it is recorded again outside;
 * - cudaEventRecordWithFlags(External) outside capture: cudaErrorIllegalState.
 * Query rule of the stand-in: a query runs at most one ready op before
 * answering (sched_query in scheduler.c).
 */
#include <stdlib.h>

#include "standin.h"

static struct event *live;      /* live handles, by address */
static struct event *destroyed_context; /* handles of a destroyed context (context.c) */
/* Destroyed handles, kept (never handed out again): a graph's node may still name one, which graph.c refuses. */
static struct event *destroyed;

/* Resolves an event handle. */
cudaError_t event_get(cudaEvent_t h, struct event **out)
{
    struct event *ev = NULL;
    CHECK(!h, cudaErrorInvalidResourceHandle);
    HASH_FIND_PTR(live, &h, ev);
    if (!ev) {
        HASH_FIND_PTR(destroyed_context, &h, ev);
        CHECK(ev, cudaErrorContextIsDestroyed);
    }
    CHECK(!ev, cudaErrorInvalidResourceHandle);
    *out = ev;
    return cudaSuccess;
}

/* Notes a record op submitted for ev outside capture. */
void event_note_record(struct event *ev, uint64_t op)
{
    ev->last_record = op;
    ev->recorded = true;
    ev->cap_id = 0;
}

/* A record op for ev ran: stamp the clock if it is the latest record. */
void event_record_ran(struct event *ev, uint64_t op)
{
    if (ev->last_record == op)
        ev->time_ns = sched_now_ns();
}

/* Creates an event. */
static cudaError_t event_create(cudaEvent_t *out, unsigned flags)
{
    const unsigned known = cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess;
    CHECK(!out, cudaErrorInvalidValue);
    CHECK(flags & ~known, cudaErrorInvalidValue);
    CHECK((flags & cudaEventInterprocess) && !(flags & cudaEventDisableTiming),
          cudaErrorInvalidValue);
    struct event *ev = xcalloc(1, sizeof *ev);
    ev->flags = flags;
    ev->self = ev;
    HASH_ADD_PTR(live, self, ev);
    *out = (cudaEvent_t)ev;
    return cudaSuccess;
}

/* cudaEventCreate. */
cudaError_t cudaEventCreate(cudaEvent_t *event)
{
    API(event_create(event, cudaEventDefault));
}

/* cudaEventCreateWithFlags. */
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
    API(event_create(event, flags));
}

/* Destroys an event (call: the API's name); pending records still complete. */
static cudaError_t event_destroy(cudaEvent_t h, const char *call)
{
    struct event *ev = NULL;
    TRY(context_fatal_if_destroyed(event_get(h, &ev), call, "event", h));
    HASH_DEL(live, ev);
    ev->destroyed = true;
    HASH_ADD_PTR(destroyed, self, ev);
    return cudaSuccess;
}

/* A context reset (its queue has run): every event becomes a handle of a destroyed context, kept. */
void events_context_reset(void)
{
    struct event *ev, *tmp;
    HASH_ITER(hh, live, ev, tmp) {
        HASH_DEL(live, ev);
        HASH_ADD_PTR(destroyed_context, self, ev);
    }
}

/* cudaEventDestroy. */
cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    API(event_destroy(event, "cudaEventDestroy"));
}

/* Records ev on a stream, or in the stream's capture. */
static cudaError_t event_record(cudaEvent_t he, cudaStream_t hs, unsigned flags, bool ptsz)
{
    struct event *ev = NULL;
    struct stream *s = NULL;
    CHECK(flags & ~(unsigned)cudaEventRecordExternal, cudaErrorInvalidValue);
    TRY(event_get(he, &ev));
    TRY(stream_get(hs, ptsz, &s));
    if (s->cap) {
        CHECK(s->cap->invalidated, cudaErrorStreamCaptureInvalidated);
        if (flags & cudaEventRecordExternal) {
            struct work w = {.kind = W_EVENT_RECORD, .u.event = ev};
            TRY(capture_add(s, &w));
        }
        capture_record_event(s, ev);
        return cudaSuccess;
    }
    CHECK(flags & cudaEventRecordExternal, cudaErrorIllegalState);
    if (s == stream_legacy())
        TRY(capture_check_legacy());
    struct work w = {.kind = W_EVENT_RECORD, .u.event = ev};
    event_note_record(ev, stream_enqueue(s, &w));
    return cudaSuccess;
}

/* cudaEventRecord. */
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    API(event_record(event, stream, 0, false));
}

/* cudaEventRecord, per-thread default stream flavour. */
cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream)
{
    API(event_record(event, stream, 0, true));
}

/* cudaEventRecordWithFlags. */
cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags)
{
    API(event_record(event, stream, flags, false));
}

/* cudaEventRecordWithFlags, per-thread default stream flavour. */
cudaError_t cudaEventRecordWithFlags_ptsz(cudaEvent_t event, cudaStream_t stream, unsigned int flags)
{
    API(event_record(event, stream, flags, true));
}

/* Queries (see sched_query) or synchronizes an event. */
static cudaError_t event_wait_host(cudaEvent_t h, bool query)
{
    struct event *ev = NULL;
    TRY(event_get(h, &ev));
    TRY(capture_check_event_sync(ev));
    TRY(capture_check_unsafe());
    return query ? sched_query(ev->last_record) : sched_run_until(ev->last_record);
}

/* cudaEventQuery. */
cudaError_t cudaEventQuery(cudaEvent_t event)
{
    API(event_wait_host(event, true));
}

/* cudaEventSynchronize. */
cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    API(event_wait_host(event, false));
}

/* Milliseconds between two completed records on the fake clock. */
static cudaError_t event_elapsed(float *ms, cudaEvent_t hstart, cudaEvent_t hend)
{
    struct event *a = NULL, *b = NULL;
    CHECK(!ms, cudaErrorInvalidValue);
    TRY(event_get(hstart, &a));
    TRY(event_get(hend, &b));
    CHECK((a->flags | b->flags) & cudaEventDisableTiming, cudaErrorInvalidResourceHandle);
    /* Unsure: events last recorded in a capture; treated like a query. */
    CHECK(a->cap_id || b->cap_id, cudaErrorInvalidValue);
    CHECK(!a->recorded || !b->recorded, cudaErrorInvalidResourceHandle);
    CHECK(sched_pending(a->last_record) || sched_pending(b->last_record), cudaErrorNotReady);
    *ms = (float)((double)((int64_t)(b->time_ns - a->time_ns)) / 1e6);
    return cudaSuccess;
}

/* cudaEventElapsedTime. */
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    API(event_elapsed(ms, start, end));
}

/* ------------------------------------------------------------ the driver's entries */

/* cuEventCreate (CU_EVENT_* are cudaEvent*'s values). */
cudaError_t standin_driver_event_create(cudaEvent_t *out, unsigned flags)
{
    DRIVER_CALL(event_create(out, flags));
}

/* cuEventDestroy_v2. */
cudaError_t standin_driver_event_destroy(cudaEvent_t ev)
{
    DRIVER_CALL(event_destroy(ev, "cuEventDestroy"));
}

/* A record through the driver: refused once, recording nothing, after standin_fail_driver_record. */
static cudaError_t driver_record(cudaEvent_t he, cudaStream_t hs, unsigned flags, bool ptsz)
{
    struct event *ev = NULL;
    if (event_get(he, &ev) == cudaSuccess && ev->fail_driver_record) {
        ev->fail_driver_record = false;
        return cudaErrorMemoryAllocation;
    }
    return event_record(he, hs, flags, ptsz);
}

/* cuEventRecord / cuEventRecordWithFlags. */
cudaError_t standin_driver_event_record(cudaEvent_t ev, cudaStream_t h, unsigned flags, bool ptsz)
{
    DRIVER_CALL(driver_record(ev, h, flags, ptsz));
}

/* Marks event so that its next record through the driver fails. */
static cudaError_t fail_driver_record(cudaEvent_t h)
{
    struct event *ev = NULL;
    TRY(event_get(h, &ev));
    ev->fail_driver_record = true;
    return cudaSuccess;
}

/*
 * For tests (exported): the next cuEventRecord of event through the driver
 * fails with CUDA_ERROR_OUT_OF_MEMORY, once, and records nothing, as a
 * driver out of memory would; the runtime's cudaEventRecord is not
 * affected.  A runtime program's events are recorded through the driver
 * only by a library or an interposer (reprise's owed records).
 */
cudaError_t standin_fail_driver_record(cudaEvent_t event)
{
    DRIVER_CALL(fail_driver_record(event));
}

/* cuEventElapsedTime(_v2). */
cudaError_t standin_driver_event_elapsed(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    DRIVER_CALL(event_elapsed(ms, start, end));
}

/* cuEventQuery (query) / cuEventSynchronize. */
cudaError_t standin_driver_event_wait(cudaEvent_t ev, bool query)
{
    DRIVER_CALL(event_wait_host(ev, query));
}
