/* SPDX-License-Identifier: MIT */
/* Keeping the program's view of cudaGetLastError true while the shim makes calls of its own. */
#include "config.h"

#include <stdatomic.h>

#include "errors.h"
#include "runtime.h"

/*
 * The runtime keeps one "last error" per thread.  The shim's own calls go
 * through libcuda (graphs, captures, events, staging: libcuda.h), which
 * leaves it alone; what may set it is a runtime call the shim makes: a
 * kernel's facts it can only ask the runtime for (kernel_params.c: asking
 * for a parameter past the last one fails on purpose), and the program's
 * own calls it forwards late (into the robust path's capture, or
 * resubmitted when a capture was lost), whose errors it must not leave to
 * whichever thread submitted them.  The only way to clear the last error is
 * cudaGetLastError, which would also swallow an error the program has not
 * read yet.  So the program's error is taken out first and owed back: the
 * hooked cudaGetLastError and cudaPeekAtLastError return an owed error
 * before asking the runtime.
 */
static __thread cudaError_t owed __attribute__((tls_model("initial-exec")));

/* Errors owed to a program's thread and not read yet, every thread's: while any is, auto mode cannot step aside. */
static atomic_int outstanding;

/* Counts an error owed (delta 1), or one read (-1), wherever it is kept. */
void errors_outstanding_add(int delta)
{
    atomic_fetch_add_explicit(&outstanding, delta, memory_order_relaxed);
}

/* Whether any thread owes its program an error it has not read yet. */
bool errors_outstanding(void)
{
    return atomic_load_explicit(&outstanding, memory_order_relaxed) > 0;
}

/* Takes the program's pending error out of the runtime before the shim's own calls; none without a runtime. */
void errors_save(struct saved_error *saved)
{
    /* A program linked with the static runtime has none the shim sees: nothing pending, and nothing owed. */
    saved->error = real_function(HOOK_ID_cudaGetLastError) ? REAL_CALL(cudaGetLastError) : cudaSuccess;
}

/*
 * Clears whatever the shim's calls left, and owes the program its own error
 * back.  The saved error replaces one owed already: it came from a later
 * call of the program's (the runtime keeps the latest error, and so does
 * the program's view; an error owed for held-back work belongs to calls
 * made before the one whose boundary submitted them).
 */
void errors_restore(const struct saved_error *saved)
{
    (void)REAL_CALL(cudaGetLastError);
    if (saved->error != cudaSuccess) {
        if (owed == cudaSuccess)
            errors_outstanding_add(1);
        owed = saved->error;
    }
}

/* Owes the program an error from work the shim submitted for it. */
void errors_owe(cudaError_t error)
{
    if (error != cudaSuccess && owed == cudaSuccess) {
        owed = error;
        errors_outstanding_add(1);
    }
}

/* The error owed to this thread, cleared if take is true; cudaSuccess if none. */
cudaError_t errors_owed(bool take)
{
    cudaError_t e = owed;
    if (take && e != cudaSuccess) {
        owed = cudaSuccess;
        errors_outstanding_add(-1);
    }
    return e;
}
