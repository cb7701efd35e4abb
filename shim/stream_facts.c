/* What the runtime says a stream is: its kind (legacy, per-thread, blocking or not), priority and id. */
#include "config.h"

#include "errors.h"
#include "runtime.h"
#include "stream_facts.h"

/* A stream's kind; a stream whose flags cannot be read counts as blocking (that only adds order). */
enum stream_kind stream_kind_of(cudaStream_t stream)
{
    if (stream == cudaStreamLegacy)
        return STREAM_KIND_LEGACY;
    if (stream == cudaStreamPerThread)
        return STREAM_KIND_PER_THREAD;
    unsigned flags = 0;
    struct saved_error saved;
    errors_save(&saved);
    cudaError_t err = RT_CALL(cudaStreamGetFlags, stream, &flags);
    errors_restore(&saved);
    return err == cudaSuccess && (flags & cudaStreamNonBlocking) ? STREAM_KIND_NON_BLOCKING : STREAM_KIND_BLOCKING;
}

/* A stream's kind, priority (0 if unknown) and id (0 if unknown), for REPRISE_EXCLUDE_STREAMS and the log. */
struct stream_facts stream_facts_of(cudaStream_t stream)
{
    struct stream_facts f = {.kind = stream_kind_of(stream)};
    struct saved_error saved;
    errors_save(&saved);
    if (RT_CALL(cudaStreamGetPriority, stream, &f.priority) != cudaSuccess)
        f.priority = 0;
    if (RT_CALL(cudaStreamGetId, stream, &f.id) != cudaSuccess)
        f.id = 0;
    errors_restore(&saved);
    return f;
}
