/* SPDX-License-Identifier: MIT */
/* Work done on a thread's behalf by another (or the watchdog): in the thread's context, its errors owed to it. */
#include "config.h"

#include "engine_on_behalf.h"
#include "errors.h"
#include "libcuda.h"
#include "runtime.h"

/* Notes the current context as t's: where its work goes if another thread (or the watchdog) must submit it. */
void note_context(struct tracker *t)
{
    if (DEVICE_CALL(cuCtxGetCurrent, &t->on_behalf.context) != CUDA_SUCCESS)
        t->on_behalf.context = NULL;
}

/* Makes t's context current for work done on t's behalf; true if it switched (undone by libcuda_context_leave). */
bool enter_context_of(const struct tracker *t, CUcontext *previous)
{
    /* The driver's calls act on the current context: another thread submits t's work in t's. */
    if (t == self) {
        *previous = NULL;
        return false;
    }
    return libcuda_context_enter(t->on_behalf.context, previous);
}

/* Owes t's program the first error of work another thread did on t's behalf (its next cudaGetLastError). */
void owe_error_to(struct tracker *t, cudaError_t error)
{
    cudaError_t none = cudaSuccess;
    if (error != cudaSuccess && atomic_compare_exchange_strong(&t->on_behalf.error_from_others, &none, error))
        errors_outstanding_add(1);
}

/* Owes t's program the first error of its driver calls submitted late (its next wait through the driver). */
void owe_driver_error_to(struct tracker *t, CUresult error)
{
    CUresult none = CUDA_SUCCESS;
    if (error != CUDA_SUCCESS && atomic_compare_exchange_strong(&t->on_behalf.driver_error_owed, &none, error))
        errors_outstanding_add(1);
}

/* What the hooked cudaGetLastError (take) or cudaPeekAtLastError returns. */
cudaError_t engine_last_error(bool take)
{
    /* An error in the runtime now came after the one the shim owes: the
       runtime keeps only the latest error, and so does the program's view. */
    cudaError_t latest = take ? REAL_CALL(cudaGetLastError) : REAL_CALL(cudaPeekAtLastError);
    cudaError_t owed = errors_owed(take);
    _Atomic cudaError_t *from_others = self ? &self->on_behalf.error_from_others : NULL;
    if (owed == cudaSuccess && from_others && atomic_load_explicit(from_others, memory_order_relaxed)) {
        owed = take ? atomic_exchange(from_others, cudaSuccess) : atomic_load(from_others);
        if (take && owed != cudaSuccess)
            errors_outstanding_add(-1);
    }
    return latest != cudaSuccess ? latest : owed;
}

/* The error owed to this thread's next driver wait (a stream or context synchronize, a query), taken. */
CUresult engine_driver_error_owed(void)
{
    if (self == NULL || atomic_load_explicit(&self->on_behalf.driver_error_owed, memory_order_relaxed) == CUDA_SUCCESS)
        return CUDA_SUCCESS;
    CUresult owed = atomic_exchange(&self->on_behalf.driver_error_owed, CUDA_SUCCESS);
    if (owed != CUDA_SUCCESS)
        errors_outstanding_add(-1);
    return owed;
}
