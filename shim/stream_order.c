/* Ordering a group of streams around their first one with the shim's own events, which the program never sees. */
#include "config.h"

#include "runtime.h"
#include "stream_order.h"

/* Creates *event (no timing) unless it exists already. */
cudaError_t private_event(cudaEvent_t *event)
{
    return *event ? cudaSuccess : REAL_CALL(cudaEventCreateWithFlags, event, cudaEventDisableTiming);
}

/* Makes streams[0] wait for the work so far on streams[1..count), through events[1..count) (created if missing). */
cudaError_t streams_join_first(const cudaStream_t *streams, unsigned count, cudaEvent_t *events)
{
    cudaError_t err = cudaSuccess;
    for (unsigned i = 1; i < count && err == cudaSuccess; i++) {
        err = private_event(&events[i]);
        if (err == cudaSuccess)
            err = REAL_CALL(cudaEventRecord, events[i], streams[i]);
        if (err == cudaSuccess)
            err = REAL_CALL(cudaStreamWaitEvent, streams[0], events[i], 0);
    }
    return err;
}

/* Makes streams[1..count) wait for the work so far on streams[0], through *after (created if missing). */
cudaError_t streams_follow_first(const cudaStream_t *streams, unsigned count, cudaEvent_t *after)
{
    if (count < 2)
        return cudaSuccess;
    cudaError_t err = private_event(after);
    if (err == cudaSuccess)
        err = REAL_CALL(cudaEventRecord, *after, streams[0]);
    for (unsigned i = 1; i < count && err == cudaSuccess; i++)
        err = REAL_CALL(cudaStreamWaitEvent, streams[i], *after, 0);
    return err;
}
