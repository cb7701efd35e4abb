/* SPDX-License-Identifier: MIT */
/* Ordering a group of streams around their first one with the shim's own events, which the program never sees. */
#include "config.h"

#include "libcuda.h"
#include "log.h"
#include "stream_facts.h"
#include "stream_order.h"

/*
 * Through libcuda, not the runtime: a program built with the static
 * runtime has none the shim could call, and a driver call leaves the
 * runtime's last error alone (no save and restore around it).  A
 * cudaEvent_t is a CUevent and a cudaStream_t a CUstream.
 */

/* Creates *event (no timing) unless it exists already. */
CUresult private_event(cudaEvent_t *event)
{
    return *event ? CUDA_SUCCESS : DEVICE_CALL(cuEventCreate, event, CU_EVENT_DISABLE_TIMING);
}

/* Makes streams[0] wait for the work so far on streams[1..count), through events[1..count) (created if missing). */
CUresult streams_join_first(const cudaStream_t *streams, unsigned count, cudaEvent_t *events)
{
    CUresult err = CUDA_SUCCESS;
    for (unsigned i = 1; i < count && err == CUDA_SUCCESS; i++) {
        err = private_event(&events[i]);
        if (err == CUDA_SUCCESS)
            err = DEVICE_CALL(cuEventRecord, events[i], streams[i]);
        if (err == CUDA_SUCCESS)
            err = DEVICE_CALL(cuStreamWaitEvent, streams[0], events[i], 0);
    }
    return err;
}

/* Makes streams[1..count) wait for the work so far on streams[0], through *after (created if missing). */
CUresult streams_follow_first(const cudaStream_t *streams, unsigned count, cudaEvent_t *after)
{
    if (count < 2)
        return CUDA_SUCCESS;
    CUresult err = private_event(after);
    if (err == CUDA_SUCCESS)
        err = DEVICE_CALL(cuEventRecord, *after, streams[0]);
    for (unsigned i = 1; i < count && err == CUDA_SUCCESS; i++)
        err = DEVICE_CALL(cuStreamWaitEvent, streams[i], *after, 0);
    return err;
}

/* Destroys a private event (NULL: nothing). */
void private_event_destroy(cudaEvent_t event)
{
    if (event)
        (void)DEVICE_CALL(cuEventDestroy_v2, event);
}

/* Readies the joins of a graph on streams[0..count) in context: its events and what its streams are; at build. */
CUresult stream_joins_prepare(struct stream_joins *j, const cudaStream_t *streams, unsigned count, CUcontext context)
{
    if (count > STREAM_JOINS_MAX)
        return CUDA_ERROR_NOT_SUPPORTED;
    j->context = context;
    bool on_legacy = streams[0] == cudaStreamLegacy;
    CUresult err = CUDA_SUCCESS;
    for (unsigned i = 1; i < count && err == CUDA_SUCCESS; i++) {
        enum stream_kind kind = stream_kind_of(streams[i]);
        j->blocking[i] = kind == STREAM_KIND_BLOCKING;
        j->implied[i] = on_legacy && (kind == STREAM_KIND_BLOCKING || kind == STREAM_KIND_PER_THREAD);
        if (!j->implied[i])
            err = private_event(&j->before[i]);
    }
    if (err == CUDA_SUCCESS && count > 1)
        err = private_event(&j->after);
    return err;
}

/* Before a graph launch on streams[0]: it waits for the other streams' earlier work it does not follow yet. */
CUresult stream_joins_before(struct stream_joins *j, const cudaStream_t *streams, unsigned count)
{
    j->waits = j->records = 0;
    owed_waits_settle(streams[0]); /* the launch is work on it (on the legacy stream: after every blocking one) */
    if (count < 2)
        return CUDA_SUCCESS;
    /* A stream that owes a wait had nothing new since: the launch follows its work if it follows that wait. */
    CUresult err = owed_waits_follow(streams + 1, count - 1, streams[0], j->seen + 1, &j->waits);
    for (unsigned i = 1; i < count && err == CUDA_SUCCESS; i++) {
        if (j->implied[i] || j->seen[i].event)
            continue; /* streams[0] follows all of its work already */
        err = DEVICE_CALL(cuEventRecord, j->before[i], streams[i]);
        j->records++;
        if (err == CUDA_SUCCESS)
            err = DEVICE_CALL(cuStreamWaitEvent, streams[0], j->before[i], 0);
        j->waits++;
    }
    return err;
}

/* After the launch: the other streams owe a wait on it, made when something next reaches them. */
CUresult stream_joins_after(struct stream_joins *j, const cudaStream_t *streams, unsigned count)
{
    if (count < 2)
        return CUDA_SUCCESS;
    /* Every other stream, even one the legacy stream's barrier orders after the graph: that covers its next
       work, not a sync or a query of it. */
    bool owe[STREAM_JOINS_MAX] = {false};
    for (unsigned i = 1; i < count; i++)
        owe[i] = true;
    unsigned owing = count - 1;
    CUresult err = DEVICE_CALL(cuEventRecord, j->after, streams[0]);
    j->records++;
    /* Only its own thread can name a per-thread default stream, so only it could make the wait: now. */
    for (unsigned i = 1; err == CUDA_SUCCESS && i < count; i++)
        if (owe[i] && streams[i] == cudaStreamPerThread) {
            err = DEVICE_CALL(cuStreamWaitEvent, streams[i], j->after, 0);
            j->waits++;
            owe[i] = false;
            owing--;
        }
    unsigned waited = 0;
    if (err == CUDA_SUCCESS && owing)
        err = owed_waits_note(streams, owe, j->blocking, count, j->after, streams[0], j->context, j->seen,
                              &waited);
    j->waits += waited;
    unsigned owe_now = owing - waited;
    log_debug("joins around a graph launch on %u streams: %u event record%s, %u wait%s; %u stream%s a wait on it",
              count, j->records, j->records == 1 ? "" : "s", j->waits, j->waits == 1 ? "" : "s", owe_now,
              owe_now == 1 ? " owes" : "s owe");
    return err;
}

/* Destroys the joins' events, once the streams that owe a wait on them have made it. */
void stream_joins_release(struct stream_joins *j)
{
    owed_waits_settle_event(j->after);
    for (unsigned i = 0; i < STREAM_JOINS_MAX; i++)
        private_event_destroy(j->before[i]);
    private_event_destroy(j->after);
}
