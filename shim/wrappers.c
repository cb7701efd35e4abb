/* The exported wrappers, one per line of hooks.def: initialise, count, forward. */
#include "config.h"

#include "observe.h"
#include "real.h"
#include "shim.h"

#define HOOK(kind, name, params, args, stream)                                                              \
    cudaError_t name params                                                                                 \
    {                                                                                                       \
        shim_enter();                                                                                       \
        name##_fn real = (name##_fn)real_function(HOOK_ID_##name);                                          \
        if (__builtin_expect(real == NULL, 0))                                                              \
            return real_missing(HOOK_ID_##name);                                                            \
        if (__builtin_expect(shim_observing, 0))                                                            \
            observe_call(HOOK_ID_##name, stream);                                                           \
        return real args;                                                                                   \
    }
#include "hooks.def"
#undef HOOK
