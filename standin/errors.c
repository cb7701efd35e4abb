/* SPDX-License-Identifier: MIT */
/*
 * standin/errors.c: error state of the stand-in and the API entry.
 *
 * Rules, as measured on an H200 with CUDA 13.0 (tests/conformance.c):
 * - every API call that fails records its error as the calling thread's
 *   last error, except cudaErrorNotReady from a query;
 * - cudaGetLastError returns the last error and resets it to cudaSuccess,
 *   cudaPeekAtLastError returns it without resetting;
 * - a device fault (illegal address, launch failure) is sticky: from then
 *   on every call that needs the context fails with it and records it, but
 *   cudaGetLastError reports it only when a call recorded it since the last
 *   reset (after one cudaGetLastError, a second one returns cudaSuccess);
 *   cudaGetDeviceCount and the error-string functions keep working.
 */
#include <string.h>

#include "standin.h"

static pthread_mutex_t global_lock = PTHREAD_MUTEX_INITIALIZER;
static cudaError_t sticky = cudaSuccess;
static __thread cudaError_t last_error = cudaSuccess;
static __thread bool in_host_function;

/* Takes the global lock unless the call must fail at once. */
bool api_enter(cudaError_t *err)
{
    if (in_host_function) {
        /* CUDA forbids runtime calls from host functions and callbacks
         * (undefined behaviour there); the stand-in refuses them and leaves
         * the last error of the thread that runs the queue alone. */
        *err = cudaErrorNotPermitted;
        return false;
    }
    pthread_mutex_lock(&global_lock);
    if (sticky != cudaSuccess) {
        last_error = sticky;
        *err = sticky;
        pthread_mutex_unlock(&global_lock);
        return false;
    }
    context_active = true; /* a call that needs the context makes it (again, after a reset) */
    return true;
}

/* Takes the global lock even after a device fault, unless called from a host function (a context reset). */
bool api_enter_despite_fault(cudaError_t *err)
{
    if (in_host_function) {
        *err = cudaErrorNotPermitted;
        return false;
    }
    pthread_mutex_lock(&global_lock);
    return true;
}

/* Releases the global lock without touching the last error (driver calls); returns err. */
cudaError_t api_leave_quiet(cudaError_t err)
{
    pthread_mutex_unlock(&global_lock);
    return err;
}

/* Takes the global lock for the stand-in's device thread. */
void api_lock(void)
{
    pthread_mutex_lock(&global_lock);
}

/* Releases the global lock taken by api_lock. */
void api_unlock(void)
{
    pthread_mutex_unlock(&global_lock);
}

/* Waits for cv with the global lock released meanwhile. */
void api_wait(pthread_cond_t *cv)
{
    pthread_cond_wait(cv, &global_lock);
}

/* Records the call's error and releases the global lock. */
cudaError_t api_leave(cudaError_t err)
{
    if (err != cudaSuccess && err != cudaErrorNotReady)
        last_error = err;
    pthread_mutex_unlock(&global_lock);
    return err;
}

/* The sticky error, cudaSuccess while healthy. */
cudaError_t sticky_error(void)
{
    return sticky;
}

/* Makes err the process's sticky error (the first one stays). */
void set_sticky_error(cudaError_t err)
{
    if (sticky == cudaSuccess)
        sticky = err;
}

/* Forgets the sticky error (a context reset). */
void clear_sticky_error(void)
{
    sticky = cudaSuccess;
}

/* Marks the thread as inside (or outside) a host function. */
void set_in_host_function(bool on)
{
    in_host_function = on;
}

/* Reports a device fault from a CPU twin. */
void standin_fault(cudaError_t err)
{
    set_sticky_error(err);
}

/* Returns and clears the calling thread's last error. */
cudaError_t cudaGetLastError(void)
{
    cudaError_t e = last_error;
    last_error = cudaSuccess;
    return e;
}

/* Returns the calling thread's last error without clearing it. */
cudaError_t cudaPeekAtLastError(void)
{
    return last_error;
}

struct err_entry {
    int code;
    const char *name, *text;
};

static const struct err_entry err_table[] = {
#define ERR(code, name, text) {code, name, text},
#include "error-table.h"
#undef ERR
};

/* Finds a code in the table generated from the real runtime. */
static const struct err_entry *err_find(cudaError_t e)
{
    for (size_t i = 0; i < sizeof err_table / sizeof err_table[0]; i++)
        if (err_table[i].code == (int)e)
            return &err_table[i];
    return NULL;
}

/* The enum name of an error code, as libcudart spells it. */
const char *cudaGetErrorName(cudaError_t error)
{
    const struct err_entry *x = err_find(error);
    return x ? x->name : "unrecognized error code";
}

/* The message of an error code, as libcudart words it. */
const char *cudaGetErrorString(cudaError_t error)
{
    const struct err_entry *x = err_find(error);
    return x ? x->text : "unrecognized error code";
}
