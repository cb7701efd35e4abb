/* The exported wrappers, one per line of hooks.def: initialise, count (and time), hand to the engine, forward. */
#include "config.h"

#include "call.h"
#include "engine.h"
#include "launch_config.h"
#include "observe.h"
#include "real.h"
#include "shim.h"

/*
 * Observe mode times node calls and host syncs for the ceiling (observe.h):
 * out of line, so that auto's path through the wrapper stays as it was.
 */
#define HOOK(kind, name, params, args, stream)                                                              \
    static __attribute__((noinline, cold)) cudaError_t name##_timed params                                  \
    {                                                                                                       \
        name##_fn real = (name##_fn)real_function(HOOK_ID_##name);                                          \
        uint64_t start = observe_clock();                                                                   \
        cudaError_t result = real args;                                                                     \
        observe_timed(CALL_##kind, start);                                                                  \
        return result;                                                                                      \
    }                                                                                                       \
    cudaError_t name params                                                                                 \
    {                                                                                                       \
        shim_enter();                                                                                       \
        name##_fn real = (name##_fn)real_function(HOOK_ID_##name);                                          \
        if (__builtin_expect(real == NULL, 0))                                                              \
            return real_missing(HOOK_ID_##name);                                                            \
        if (__builtin_expect(shim_observing, 0)) {                                                          \
            if (shim_counting)                                                                              \
                observe_call(HOOK_ID_##name, stream);                                                       \
            if (shim_auto) {                                                                                \
                if (CALL_##kind == CALL_ERROR_CHECK)                                                        \
                    return engine_last_error(HOOK_ID_##name == HOOK_ID_cudaGetLastError);                   \
                struct call call;                                                                           \
                CALL_HEAD(call, HOOK_ID_##name, CALL_##kind, stream);                                       \
                CALL_FIELDS_##kind(call);                                                                   \
                cudaError_t result;                                                                         \
                if (CALL_##kind == CALL_CONFIG_PUSH)                                                        \
                    return launch_config_push(&call);                                                       \
                if (CALL_##kind == CALL_CONFIG_POP && launch_config_pop(&call, &result))                    \
                    return result;                                                                          \
                if (engine_call(&call, &result))                                                            \
                    return result;                                                                          \
            } else if (observe_times(CALL_##kind)) {                                                        \
                return name##_timed args;                                                                   \
            }                                                                                               \
        }                                                                                                   \
        return real args;                                                                                   \
    }
#include "hooks.def"
#undef HOOK
