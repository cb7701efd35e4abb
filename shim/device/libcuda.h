/* SPDX-License-Identifier: MIT */
/* The real libcuda, found by name: the wrapped functions (driver_hooks.def) and the back end's own (device.def). */
#ifndef REPRISE_LIBCUDA_H
#define REPRISE_LIBCUDA_H

#include <stdatomic.h>
#include <stdbool.h>

#include "driver_api.h"
#include "driver_table.h"

/* One id per back-end function. */
enum device_fn_id {
#define DEVICE_FN(name, params) DEVICE_ID_##name,
#include "device.def"
#undef DEVICE_FN
    DEVICE_FN_COUNT
};

/* A pointer type per back-end function. */
#define DEVICE_FN(name, params) typedef CUresult(CUDAAPI *device_##name##_fn) params;
#include "device.def"
#undef DEVICE_FN

extern void *_Atomic libcuda_wrapped[DRIVER_COUNT];
extern void *_Atomic libcuda_device[DEVICE_FN_COUNT];

/* Looks every name up in libcuda once it is loaded; false while it is not. */
bool libcuda_resolve(void);

/* libcuda's function behind a wrapper, or NULL if libcuda is not loaded or lacks it. */
static inline void *libcuda_real(enum driver_id id)
{
    void *fn = atomic_load_explicit(&libcuda_wrapped[id], memory_order_relaxed);
    if (__builtin_expect(fn != NULL, 1))
        return fn;
    return libcuda_resolve() ? atomic_load_explicit(&libcuda_wrapped[id], memory_order_relaxed) : NULL;
}

/* libcuda's back-end function id, or NULL if libcuda is not loaded or lacks it. */
static inline void *libcuda_device_fn(enum device_fn_id id)
{
    void *fn = atomic_load_explicit(&libcuda_device[id], memory_order_relaxed);
    if (__builtin_expect(fn != NULL, 1))
        return fn;
    return libcuda_resolve() ? atomic_load_explicit(&libcuda_device[id], memory_order_relaxed) : NULL;
}

/* The real cuGetProcAddress of libcuda, either version (NULL while libcuda is not loaded). */
void *libcuda_proc_address(bool v2);

/* Calls a back-end function of libcuda; CUDA_ERROR_NOT_FOUND if libcuda lacks it (or is not loaded). */
#define DEVICE_CALL(name, ...)                                                                              \
    (libcuda_device_fn(DEVICE_ID_##name) ? ((device_##name##_fn)libcuda_device_fn(DEVICE_ID_##name))(__VA_ARGS__) \
                                         : CUDA_ERROR_NOT_FOUND)

/* Makes context current on this thread if another is (or none); true if it switched (*previous: back to). */
bool libcuda_context_enter(CUcontext context, CUcontext *previous);

/* Makes previous current again if libcuda_context_enter switched. */
void libcuda_context_leave(bool switched, CUcontext previous);

/* A driver result's name, for logs ("CUDA_ERROR_INVALID_VALUE"). */
const char *libcuda_error_name(CUresult result);

#endif
