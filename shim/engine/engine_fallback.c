/* SPDX-License-Identifier: MIT */
/* Falling back: held-back work submitted one by one in the program's order, and the errors that owes the program. */
#include "config.h"

#include <stdio.h>

#include "engine_internal.h"
#include "errors.h"
#include "libcuda.h"
#include "log.h"
#include "owed_records.h"
#include "owed_waits.h"
#include "runtime.h"
#include "trace.h"

/* Makes t's context current for work done on t's behalf; true if it switched (undone by libcuda_context_leave). */
bool enter_context_of(const struct tracker *t, CUcontext *previous)
{
    /* The driver's calls act on the current context: another thread submits t's work in t's. */
    if (t == self) {
        *previous = NULL;
        return false;
    }
    return libcuda_context_enter(t->context, previous);
}

/* Owes t's program the first error of work another thread did on t's behalf (its next cudaGetLastError). */
void owe_error_to(struct tracker *t, cudaError_t error)
{
    cudaError_t none = cudaSuccess;
    if (error != cudaSuccess)
        atomic_compare_exchange_strong(&t->error_from_others, &none, error);
}

/* Owes t's program the first error of its driver calls submitted late (its next wait through the driver). */
void owe_driver_error_to(struct tracker *t, CUresult error)
{
    CUresult none = CUDA_SUCCESS;
    if (error != CUDA_SUCCESS)
        atomic_compare_exchange_strong(&t->driver_error_owed, &none, error);
}

/* Submits the held-back calls one by one, in the order the program made them (from any thread: see record.h). */
void submit_held_back(struct tracker *t)
{
    bool owner = t == self;
    CUcontext previous;
    bool switched = enter_context_of(t, &previous);
    CUresult driver_error;
    owed_waits_settle_all(); /* its calls are on streams that may owe a wait on an earlier graph */
    owed_records_settle_all(); /* and may wait for, or record again, events an earlier graph owes */
    cudaError_t error = record_forward_all(&t->records, owner ? cudaStreamPerThread : cudaStreamLegacy, &driver_error);
    libcuda_context_leave(switched, previous);
    owe_driver_error_to(t, driver_error);
    if (!owner) {
        owe_error_to(t, error);
        if (holds_per_thread_work(t))
            note_moved_work(t);
    }
    set_pending(t, false);
}

/* Makes the work held back or captured so far run, in the program's order. */
void release_held(struct tracker *t)
{
    if (t->capture.active)
        release_capture(t);
    else
        submit_held_back(t);
}

/* Gives up replaying: submits what was held back and backs the region off. */
void fall_back(struct tracker *t, enum fallback_reason reason, const char *detail)
{
    struct region *r = t->region;
    materialize_observed(t);
    unsigned held = t->records.count;
    release_held(t);
    bool refused = regions_failed(&t->table, r, reason);
    char next[160];
    if (refused)
        snprintf(next, sizeof next, "not graphed again: its held-back work timed out %u times in a row (the program "
                 "waits for the GPU without a CUDA call)", r->timeouts);
    else
        snprintf(next, sizeof next, "passing through until it is stable again (%u sightings)",
                 regions_backoff_needed(&t->table, r));
    log_info("region %u: fell back after %u of %u calls (%s%s%s); %s", r->id, held, r->length,
             fallback_reason_name(reason), detail ? ": " : "", detail ? detail : "", next);
    /* "thread" names the region's thread: the watchdog and other threads fall back regions not their own. */
    trace_event("fallback", "\"region\":%u,\"thread\":%u,\"reason\":\"%s\",\"after\":%u,\"length\":%u", r->id,
                t->thread_number, fallback_reason_name(reason), held, r->length);
    if (refused) {
        trace_event("not_graphed", "\"region\":%u,\"thread\":%u,\"why\":\"deferral_timeout\"", r->id,
                    t->thread_number);
        if (r->graph) {
            destroy_graph_of(r);
            regions_graph_dropped(&t->table, r);
        }
    }
    t->mode = FOLLOW_NONE;
    t->region = NULL;
}

/* What the hooked cudaGetLastError (take) or cudaPeekAtLastError returns. */
cudaError_t engine_last_error(bool take)
{
    /* An error in the runtime now came after the one the shim owes: the
       runtime keeps only the latest error, and so does the program's view. */
    cudaError_t latest = take ? REAL_CALL(cudaGetLastError) : REAL_CALL(cudaPeekAtLastError);
    cudaError_t owed = errors_owed(take);
    if (owed == cudaSuccess && self && atomic_load_explicit(&self->error_from_others, memory_order_relaxed))
        owed = take ? atomic_exchange(&self->error_from_others, cudaSuccess) : atomic_load(&self->error_from_others);
    return latest != cudaSuccess ? latest : owed;
}

/* The error owed to this thread's next driver wait (a stream or context synchronize, a query), taken. */
CUresult engine_driver_error_owed(void)
{
    if (self == NULL || atomic_load_explicit(&self->driver_error_owed, memory_order_relaxed) == CUDA_SUCCESS)
        return CUDA_SUCCESS;
    return atomic_exchange(&self->driver_error_owed, CUDA_SUCCESS);
}
