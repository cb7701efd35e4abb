/* SPDX-License-Identifier: MIT */
/*
 * standin/streams.c: streams of the stand-in.
 *
 * A stream is the id of the last op queued on it: the next op waits for it,
 * which gives stream order. Implicit synchronisation with the legacy
 * default stream (NULL / cudaStreamLegacy) is expressed the same way: an op
 * on the legacy stream also waits for the last op of every blocking stream
 * (created without cudaStreamNonBlocking, per-thread default streams
 * included), and an op on a blocking stream also waits for the last op of
 * the legacy stream. Non-blocking streams wait for neither.
 *
 * The per-thread default stream (cudaStreamPerThread, or NULL in the _ptsz
 * and _ptds entry points) is a blocking stream made for each host thread on
 * first use.
 *
 * A programmatic dependent launch follows the stream's previous op as a
 * primary if it is a kernel (it may start before that kernel: scheduler.c),
 * any other op fully, as CUDA serialises it after a copy or a wait.
 */
#include <stdlib.h>
#include <string.h>

#include "standin.h"

static struct stream legacy = {.kind = STREAM_LEGACY, .id = 1};
static struct stream *all_streams = &legacy;     /* linked through next */
static struct stream *live;                      /* user handles, by address */
static struct stream *destroyed_context;         /* user handles of a destroyed context (context.c) */
static __thread struct stream *per_thread;
static unsigned long long next_stream_id = 3;

/* The legacy default stream. */
struct stream *stream_legacy(void)
{
    return &legacy;
}

/* The calling thread's default stream, made on first use. */
static struct stream *stream_per_thread(void)
{
    if (!per_thread) {
        per_thread = xcalloc(1, sizeof *per_thread);
        per_thread->kind = STREAM_PER_THREAD;
        per_thread->id = next_stream_id++;
        per_thread->next = all_streams;
        all_streams = per_thread;
    }
    return per_thread;
}

/* Resolves a stream handle; ptds makes NULL the per-thread stream. */
cudaError_t stream_get(cudaStream_t h, bool ptds, struct stream **out)
{
    if (h == NULL)
        *out = ptds ? stream_per_thread() : &legacy;
    else if (h == cudaStreamLegacy)
        *out = &legacy;
    else if (h == cudaStreamPerThread)
        *out = stream_per_thread();
    else {
        struct stream *s = NULL;
        HASH_FIND_PTR(live, &h, s);
        if (!s) {
            HASH_FIND_PTR(destroyed_context, &h, s);
            CHECK(s, cudaErrorContextIsDestroyed);
        }
        CHECK(!s, cudaErrorInvalidResourceHandle);
        *out = s;
    }
    return cudaSuccess;
}

/* True for streams that synchronise with the legacy stream. */
bool stream_is_blocking(const struct stream *s)
{
    return s->kind == STREAM_PER_THREAD ||
           (s->kind == STREAM_USER && !(s->flags & cudaStreamNonBlocking));
}

/* Appends one pred id to a growable array. */
static void preds_push(uint64_t **preds, size_t *n, size_t *cap, uint64_t id)
{
    if (id == 0)
        return;
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 16;
        *preds = xrealloc(*preds, *cap * sizeof **preds);
    }
    (*preds)[(*n)++] = id;
}

/* The ops a new op on s must follow: stream order plus legacy barriers. */
size_t stream_preds(struct stream *s, uint64_t **preds, size_t *cap)
{
    size_t n = 0;
    preds_push(preds, &n, cap, s->last_op);
    if (s == &legacy) {
        for (struct stream *t = all_streams; t; t = t->next)
            if (stream_is_blocking(t))
                preds_push(preds, &n, cap, t->last_op);
    } else if (stream_is_blocking(s)) {
        preds_push(preds, &n, cap, legacy.last_op);
    }
    return n;
}

/* Queues w on s outside capture; returns the new op's id.  A programmatic dependent launch has the stream's
 * previous op, if a kernel, as its primary (scheduler.c); every other pred is followed fully. */
uint64_t stream_enqueue(struct stream *s, struct work *w)
{
    uint64_t *preds = NULL;
    size_t cap = 0, n = stream_preds(s, &preds, &cap);
    bool *programmatic = NULL;
    if (w->kind == W_KERNEL && w->u.kernel.programmatic && n > 0) {
        programmatic = xcalloc(n, sizeof *programmatic);
        programmatic[0] = preds[0] == s->last_op;
    }
    s->last_op = sched_submit_dependent(w, preds, programmatic, n);
    free(programmatic);
    free(preds);
    return s->last_op;
}

/* Queues w on s, or records it as a node when s captures (takes w). */
cudaError_t stream_submit(struct stream *s, struct work *w, uint64_t *op_out)
{
    cudaError_t e = cudaSuccess;
    if (op_out)
        *op_out = 0;
    if (s->cap) {
        e = capture_add(s, w);
    } else if (s == &legacy && (e = capture_check_legacy()) != cudaSuccess) {
        /* the legacy stream would depend on a capturing blocking stream */
    } else {
        host_cost_submit();
        if (w->kind == W_KERNEL)
            device_time_queue(1);
        uint64_t id = stream_enqueue(s, w);
        if (op_out)
            *op_out = id;
        return cudaSuccess;
    }
    if (e != cudaSuccess)
        work_release(w);
    return e;
}

/* A stream's or a launch's priority as the device takes it: clamped to the H200's range, [-5 (greatest), 0 (least)]. */
int priority_clamp(int priority)
{
    return priority < -5 ? -5 : priority > 0 ? 0 : priority;
}

/* Creates a user stream with flags and priority. */
static cudaError_t stream_create(cudaStream_t *out, unsigned flags, int priority)
{
    CHECK(!out, cudaErrorInvalidValue);
    CHECK(flags & ~(unsigned)cudaStreamNonBlocking, cudaErrorInvalidValue);
    struct stream *s = xcalloc(1, sizeof *s);
    s->flags = flags;
    s->priority = priority_clamp(priority);
    s->id = next_stream_id++;
    s->next = all_streams;
    all_streams = s;
    s->self = s;
    HASH_ADD_PTR(live, self, s);
    *out = (cudaStream_t)s;
    return cudaSuccess;
}

/* cudaStreamCreate: a blocking stream. */
cudaError_t cudaStreamCreate(cudaStream_t *pStream)
{
    API(stream_create(pStream, cudaStreamDefault, 0));
}

/* cudaStreamCreateWithFlags: blocking or non-blocking. */
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags)
{
    API(stream_create(pStream, flags, 0));
}

/* cudaStreamCreateWithPriority: priority is kept but does not change order. */
cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags, int priority)
{
    API(stream_create(pStream, flags, priority));
}

/* Unlinks s from the list of all streams. */
static void stream_unlink(struct stream *s)
{
    for (struct stream **p = &all_streams; *p; p = &(*p)->next)
        if (*p == s) {
            *p = s->next;
            return;
        }
}

/* Destroys a user stream (call: the API's name); queued work still runs (it never refers back). */
static cudaError_t stream_destroy(cudaStream_t h, const char *call)
{
    struct stream *s = NULL;
    CHECK(h == NULL || h == cudaStreamLegacy || h == cudaStreamPerThread,
          cudaErrorInvalidResourceHandle);
    TRY(context_fatal_if_destroyed(stream_get(h, false, &s), call, "stream", h));
    /* Measured: destroying a capturing stream succeeds. Unsure what becomes
     * of the capture; the stand-in drops it (origin) or the stream (joined). */
    capture_forget_stream(s);
    HASH_DEL(live, s);
    stream_unlink(s);
    free(s->deps);
    free(s);
    return cudaSuccess;
}

/* A context reset: every capture ends; created streams become handles of a destroyed context, kept. */
void streams_context_reset(void)
{
    for (struct stream *s = all_streams; s; s = s->next)
        capture_forget_stream(s);
    struct stream *s, *tmp;
    HASH_ITER(hh, live, s, tmp) {
        HASH_DEL(live, s);
        stream_unlink(s);
        HASH_ADD_PTR(destroyed_context, self, s);
    }
}

/* cudaStreamDestroy. */
cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    API(stream_destroy(stream, "cudaStreamDestroy"));
}

/* The capture and mode checks of a synchronisation that waits for s. */
static cudaError_t stream_sync_checks(struct stream *s)
{
    if (s == &legacy)
        TRY(capture_check_legacy());
    else
        TRY(capture_check_stream_sync(s));
    return capture_check_unsafe();
}

/* Waits until everything queued on s has run. */
static cudaError_t stream_synchronize(cudaStream_t h, bool ptds)
{
    struct stream *s = NULL;
    TRY(stream_get(h, ptds, &s));
    TRY(stream_sync_checks(s));
    device_time_wait();
    return sched_run_until(s->last_op);
}

/* cudaStreamSynchronize. */
cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    API(stream_synchronize(stream, false));
}

/* cudaStreamSynchronize, per-thread default stream flavour. */
cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream)
{
    API(stream_synchronize(stream, true));
}

/* Reports whether s's work has run, after at most one op (sched_query). */
static cudaError_t stream_query(cudaStream_t h, bool ptds)
{
    struct stream *s = NULL;
    TRY(stream_get(h, ptds, &s));
    TRY(stream_sync_checks(s));
    return sched_query(s->last_op);
}

/* cudaStreamQuery. */
cudaError_t cudaStreamQuery(cudaStream_t stream)
{
    API(stream_query(stream, false));
}

/* cudaStreamQuery, per-thread default stream flavour. */
cudaError_t cudaStreamQuery_ptsz(cudaStream_t stream)
{
    API(stream_query(stream, true));
}

/* Makes s wait for ev's latest record (or joins ev's capture). */
static cudaError_t stream_wait_event(cudaStream_t hs, cudaEvent_t he, unsigned flags, bool ptds)
{
    struct stream *s = NULL;
    struct event *ev = NULL;
    bool handled = false;
    CHECK(flags & ~(unsigned)cudaEventWaitExternal, cudaErrorInvalidValue);
    TRY(stream_get(hs, ptds, &s));
    TRY(event_get(he, &ev));
    if (s->cap && (flags & cudaEventWaitExternal)) {
        struct work w = {.kind = W_EVENT_WAIT, .u.event = ev};
        return stream_submit(s, &w, NULL);
    }
    TRY(capture_wait_event(s, ev, &handled));
    if (handled)
        return cudaSuccess;
    if (s == &legacy)
        TRY(capture_check_legacy());
    uint64_t *preds = NULL;
    size_t cap = 0, n = stream_preds(s, &preds, &cap);
    if (n == cap)
        preds = xrealloc(preds, (cap = n + 1) * sizeof *preds);
    preds[n++] = ev->last_record;
    struct work w = {.kind = W_NOP};
    s->last_op = sched_submit(&w, preds, n);
    free(preds);
    return cudaSuccess;
}

/* cudaStreamWaitEvent. */
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
    API(stream_wait_event(stream, event, flags, false));
}

/* cudaStreamWaitEvent, per-thread default stream flavour. */
cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
    API(stream_wait_event(stream, event, flags, true));
}

/* Reads a stream's flags (the per-thread and legacy streams: default). */
static cudaError_t stream_get_flags(cudaStream_t h, unsigned *flags, bool ptds)
{
    struct stream *s = NULL;
    CHECK(!flags, cudaErrorInvalidValue);
    TRY(stream_get(h, ptds, &s));
    *flags = s->flags;
    return cudaSuccess;
}

/* cudaStreamGetFlags. */
cudaError_t cudaStreamGetFlags(cudaStream_t hStream, unsigned int *flags)
{
    API(stream_get_flags(hStream, flags, false));
}

/* cudaStreamGetFlags, per-thread default stream flavour. */
cudaError_t cudaStreamGetFlags_ptsz(cudaStream_t hStream, unsigned int *flags)
{
    API(stream_get_flags(hStream, flags, true));
}

/* Reads a stream's (clamped) priority. */
static cudaError_t stream_get_priority(cudaStream_t h, int *priority, bool ptds)
{
    struct stream *s = NULL;
    CHECK(!priority, cudaErrorInvalidValue);
    TRY(stream_get(h, ptds, &s));
    *priority = s->priority;
    return cudaSuccess;
}

/* cudaStreamGetPriority. */
cudaError_t cudaStreamGetPriority(cudaStream_t hStream, int *priority)
{
    API(stream_get_priority(hStream, priority, false));
}

/* cudaStreamGetPriority, per-thread default stream flavour. */
cudaError_t cudaStreamGetPriority_ptsz(cudaStream_t hStream, int *priority)
{
    API(stream_get_priority(hStream, priority, true));
}

/* Reads a stream's unique id. */
static cudaError_t stream_get_id(cudaStream_t h, unsigned long long *id, bool ptds)
{
    struct stream *s = NULL;
    CHECK(!id, cudaErrorInvalidValue);
    TRY(stream_get(h, ptds, &s));
    *id = s->id;
    return cudaSuccess;
}

/* cudaStreamGetId. */
cudaError_t cudaStreamGetId(cudaStream_t hStream, unsigned long long *streamId)
{
    API(stream_get_id(hStream, streamId, false));
}

/* cudaStreamGetId, per-thread default stream flavour. */
cudaError_t cudaStreamGetId_ptsz(cudaStream_t hStream, unsigned long long *streamId)
{
    API(stream_get_id(hStream, streamId, true));
}

/* ------------------------------------------------------------ the driver's entries */

/* cuStreamCreate / cuStreamCreateWithPriority (CU_STREAM_NON_BLOCKING is cudaStreamNonBlocking). */
cudaError_t standin_driver_stream_create(cudaStream_t *out, unsigned flags, int priority)
{
    DRIVER_CALL(stream_create(out, flags, priority));
}

/* cuStreamDestroy_v2. */
cudaError_t standin_driver_stream_destroy(cudaStream_t h)
{
    DRIVER_CALL(stream_destroy(h, "cuStreamDestroy"));
}

/* cuStreamQuery (the query rule). */
cudaError_t standin_driver_stream_query(cudaStream_t h, bool ptsz)
{
    DRIVER_CALL(stream_query(h, ptsz));
}

/* cuStreamWaitEvent. */
cudaError_t standin_driver_stream_wait_event(cudaStream_t h, cudaEvent_t ev, unsigned flags, bool ptsz)
{
    DRIVER_CALL(stream_wait_event(h, ev, flags, ptsz));
}

/* The facts asked for (NULL outputs are skipped; at least one must be given). */
static cudaError_t stream_facts(cudaStream_t h, bool ptsz, unsigned *flags, int *priority, unsigned long long *id)
{
    CHECK(!flags && !priority && !id, cudaErrorInvalidValue);
    if (flags)
        TRY(stream_get_flags(h, flags, ptsz));
    if (priority)
        TRY(stream_get_priority(h, priority, ptsz));
    if (id)
        TRY(stream_get_id(h, id, ptsz));
    return cudaSuccess;
}

/* cuStreamGetFlags / cuStreamGetPriority / cuStreamGetId. */
cudaError_t standin_driver_stream_facts(cudaStream_t h, bool ptsz, unsigned *flags, int *priority,
                                        unsigned long long *id)
{
    DRIVER_CALL(stream_facts(h, ptsz, flags, priority, id));
}
