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

/* Calls an unhooked runtime function; cudaErrorSharedObjectSymbolNotFound if the runtime lacks it. */
#define RT_CALL(name, ...)                                                                                  \
    (runtime_function(RT_ID_##name) ? ((rt_##name##_fn)runtime_function(RT_ID_##name))(__VA_ARGS__)      \
                                    : cudaErrorSharedObjectSymbolNotFound)

/* Calls the real version of a hooked function, bypassing the shim. */
#define REAL_CALL(name, ...)                                                                                \
    (real_function(HOOK_ID_##name) ? ((name##_fn)real_function(HOOK_ID_##name))(__VA_ARGS__)              \
                                   : cudaErrorSharedObjectSymbolNotFound)

#endif
