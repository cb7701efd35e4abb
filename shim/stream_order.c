/* Ordering a group of streams around their first one with the shim's own events, which the program never sees. */
#include "config.h"

#include "libcuda.h"
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
