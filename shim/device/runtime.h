/* SPDX-License-Identifier: MIT */
/* Calling the program's own runtime from inside the shim: hooked and unhooked functions alike. */
#ifndef REPRISE_RUNTIME_H
#define REPRISE_RUNTIME_H

#include "hooks.h"
#include "real.h"

enum runtime_id {
#define RT(name, params, args) RT_ID_##name,
#include "runtime.def"
#undef RT
    RT_COUNT
};

#define RT(name, params, args) typedef cudaError_t (*rt_##name##_fn) params;
#include "runtime.def"
#undef RT

/* The runtime's function for id, or NULL. */
void *runtime_function(enum runtime_id id);

/* A runtime error's name for logs, through the runtime's cudaGetErrorName if it has one, else libcuda's name of it. */
const char *runtime_error_name(cudaError_t error);

/*
 * How many calls into the runtime that the shim knows of this thread has
 * under way: a hooked call the engine has seen and forwards (the wrappers),
 * and the shim's own (REAL_CALL, RT_CALL).  The runtime's driver calls made
 * while it is 0 come from a runtime function the shim does not hook (an
 * array copy, a batch copy, a prefetch): work the engine has not seen,
 * taken as a boundary (shim/driver_door/driver.c).
 */
extern __thread unsigned runtime_calls_known __attribute__((tls_model("initial-exec")));

/* Evaluates a call into the runtime (an expression) counted in runtime_calls_known. */
#define RUNTIME_KNOWN(call)                                                                                 \
    ({                                                                                                      \
        runtime_calls_known++;                                                                              \
        __auto_type known_result_ = (call);                                                                 \
        runtime_calls_known--;                                                                              \
        known_result_;                                                                                      \
    })

/* Calls an unhooked runtime function; cudaErrorSharedObjectSymbolNotFound if the runtime lacks it. */
#define RT_CALL(name, ...)                                                                                  \
    (runtime_function(RT_ID_##name)                                                                         \
         ? RUNTIME_KNOWN(((rt_##name##_fn)runtime_function(RT_ID_##name))(__VA_ARGS__))                    \
         : cudaErrorSharedObjectSymbolNotFound)

/* Calls the real version of a hooked function, bypassing the shim. */
#define REAL_CALL(name, ...)                                                                                \
    (real_function(HOOK_ID_##name) ? RUNTIME_KNOWN(((name##_fn)real_function(HOOK_ID_##name))(__VA_ARGS__)) \
                                   : cudaErrorSharedObjectSymbolNotFound)

#endif
