/* SPDX-License-Identifier: MIT */
/* What the driver says a stream is: its kind (legacy, per-thread, blocking or not), priority and id. */
#include "config.h"

#include "libcuda.h"
#include "stream_facts.h"

/* A stream's kind; a stream whose flags cannot be read counts as blocking (that only adds order). */
enum stream_kind stream_kind_of(cudaStream_t stream)
{
    if (stream == cudaStreamLegacy)
        return STREAM_KIND_LEGACY;
    if (stream == cudaStreamPerThread)
        return STREAM_KIND_PER_THREAD;
    unsigned flags = 0;
    CUresult err = DEVICE_CALL(cuStreamGetFlags, stream, &flags);
    return err == CUDA_SUCCESS && (flags & CU_STREAM_NON_BLOCKING) ? STREAM_KIND_NON_BLOCKING : STREAM_KIND_BLOCKING;
}

/* A stream's kind, priority (0 if unknown) and id (0 if unknown), for REPRISE_EXCLUDE_STREAMS and the log. */
struct stream_facts stream_facts_of(cudaStream_t stream)
{
    struct stream_facts f = {.kind = stream_kind_of(stream)};
    if (DEVICE_CALL(cuStreamGetPriority, stream, &f.priority) != CUDA_SUCCESS)
        f.priority = 0;
    if (DEVICE_CALL(cuStreamGetId, stream, &f.id) != CUDA_SUCCESS)
        f.id = 0;
    return f;
}
