/* SPDX-License-Identifier: MIT */
/* The exported wrappers, one per line of hooks.def: initialise, count (and time), hand to the engine, forward. */
#include "config.h"

#include "call.h"
#include "call_fields.h"
#include "engine.h"
#include "engine_fast.h"
#include "launch_config.h"
#include "macro_piece.h"
#include "observe.h"
#include "observe_sequences.h"
#include "real.h"
#include "runtime.h"
#include "settings.h"

/*
 * What auto mode does with a call before anything else, for the kinds that
 * do anything: <<<>>>'s push and pop are kept by the shim
 * (launch_config.h), and a launch that its thread's replay holds back in
 * the common case goes no further (engine_fast.h), and so does an event
 * record or wait.  Each either returns from the wrapper, done, or leaves
 * the call to the engine; the parameter names are hooks.def's, as in
 * call_fields.h.  Each is a piece (shim/base/macro_piece.h): a kind
 * without DOOR_TAKES_<kind> (cudaLaunchKernelExC's LAUNCH_EX among them:
 * the engine's way, not the common case) does nothing here.
 */
/* The first entry's push and pop were tried already (DOOR_FIRST_*, below): what is left is the deeper side. */
#define DOOR_TAKES_CONFIG_PUSH(id, s) PIECE, return launch_config_push_deeper(gridDim, blockDim, sharedMem, stream)
#define DOOR_TAKES_CONFIG_POP(id, s)                                                                        \
    PIECE, do {                                                                                             \
        if (launch_config_pop_deeper(gridDim, blockDim, sharedMem, stream))                                 \
            return cudaSuccess;                                                                             \
    } while (0)
#define DOOR_TAKES_LAUNCH(id, s)                                                                            \
    PIECE, do {                                                                                             \
        struct tracker *taker = self; /* read once: the taker's lock exchange would have it read again */   \
        const struct held_call *slot = engine_fast_taker(taker, id, (const void *)func, gridDim, blockDim, args, \
                                                        sharedMem, stream, s);                              \
        if (slot)                                                                                           \
            return engine_fast_hold(taker, slot, args);                                                     \
    } while (0)
#define DOOR_TAKES_EVENT_RECORD(id, s)                                                                      \
    PIECE, do {                                                                                             \
        struct tracker *taker = engine_fast_event_taker(id, event, false, 0, stream, s);                    \
        if (taker)                                                                                          \
            return engine_fast_event_hold(taker);                                                           \
    } while (0)
#define DOOR_TAKES_EVENT_WAIT(id, s)                                                                        \
    PIECE, do {                                                                                             \
        struct tracker *taker = engine_fast_event_taker(id, event, true, flags, stream, s);                 \
        if (taker)                                                                                          \
            return engine_fast_event_hold(taker);                                                           \
    } while (0)

/*
 * What the exported wrapper does first, before it tests the door: the
 * first entry's push and pop, whose state says by itself whether they
 * apply (no flag in the thread's count: launch_config.h), so that nothing
 * else is on their path.  The launch tests the door first all the same:
 * before the fast path, GCC saves registers and moves the arguments, which
 * off mode's launches would pay (17 instructions more a launch, for 1 fewer
 * in auto: docs/measurements.md, session 8).  Pieces too: the other kinds
 * have none.
 */
#define DOOR_FIRST_CONFIG_PUSH(id, s)                                                                       \
    PIECE, do {                                                                                             \
        if (launch_config_push_first(gridDim, blockDim, sharedMem, stream))                                 \
            return cudaSuccess;                                                                             \
    } while (0)
#define DOOR_FIRST_CONFIG_POP(id, s)                                                                        \
    PIECE, do {                                                                                             \
        if (launch_config_pop_first(gridDim, blockDim, sharedMem, stream))                                  \
            return cudaSuccess;                                                                             \
    } while (0)

/*
 * What the wrappers still do while auto mode steps aside (the governor:
 * the door forwards as in off mode): a thread's <<<>>> configurations stay
 * the shim's once they were (a push the shim keeps must be popped from
 * it, a launch inside a launch's arguments too), and the program's
 * captures are counted, so that the engine knows them when it resumes.
 * Pieces: the other kinds have none.
 */
#define DOOR_ASIDE_CONFIG_PUSH(id, s)                                                                       \
    PIECE, do {                                                                                             \
        if (shim_auto)                                                                                      \
            return launch_config_push_deeper(gridDim, blockDim, sharedMem, stream);                         \
    } while (0)
#define DOOR_ASIDE_CONFIG_POP(id, s)                                                                        \
    PIECE, do {                                                                                             \
        if (shim_auto && launch_config_pop_deeper(gridDim, blockDim, sharedMem, stream))                    \
            return cudaSuccess;                                                                             \
    } while (0)
#define DOOR_ASIDE_CAPTURE(id, s)                                                                           \
    PIECE, do {                                                                                             \
        if (shim_auto)                                                                                      \
            engine_capture_aside(id);                                                                       \
    } while (0)

/* Hands a described call to the engine (an error check is answered by the shim); true if taken, with *result. */
static inline bool door_engine_call(const struct call *c, cudaError_t *result)
{
    if (c->kind == CALL_ERROR_CHECK) {
        *result = engine_last_error(c->api == HOOK_ID_cudaGetLastError);
        return true;
    }
    return engine_call(c, result);
}

/*
 * Observe mode: a call of kind (hooks.def's, whatever its fields made of
 * it) joins or ends its thread's sequence, to say why nothing would
 * repeat; true if it is timed for the ceiling (observe.h).
 */
static bool door_observe_sequence(const struct call *c, enum call_kind kind)
{
    observe_sequence_call(c->api, kind, c->stream, call_target(c));
    return observe_times(kind);
}

/* The hooked function's real pointer as real, or the wrapper returns what a missing one does. */
#define HOOK_REAL(name)                                                                                     \
    name##_fn real = (name##_fn)real_function(HOOK_ID_##name);                                              \
    if (__builtin_expect(real == NULL, 0))                                                                  \
        return real_missing(HOOK_ID_##name)

/*
 * Observe mode times node calls and host syncs for the ceiling (observe.h):
 * out of line, so that auto's path through the wrapper stays as it was.
 * Auto mode's engine call is out of line too (name_engine), and so is
 * everything but auto mode's common case (name_other): a wrapper that
 * takes the call itself (DOOR_TAKES_*) is then a few loads and stores,
 * and one that does not hands its arguments on untouched.  While auto
 * mode steps aside (shim_looks false), name_other forwards as off mode
 * does, but for the DOOR_ASIDE_* pieces and, during the governor's probe,
 * a host sync's end of a stretch (name_stretch, out of line too).  What is
 * here needs the hooked function's parameters; the rest is in functions.
 */
#define HOOK(kind, name, params, args, stream)                                                              \
    static __attribute__((noinline, cold)) cudaError_t name##_timed params                                  \
    {                                                                                                       \
        HOOK_REAL(name);                                                                                    \
        uint64_t start = monotonic_ns();                                                                    \
        cudaError_t result = real args;                                                                     \
        observe_timed(CALL_##kind, start);                                                                  \
        return result;                                                                                      \
    }                                                                                                       \
    static __attribute__((noinline, cold)) cudaError_t name##_stretch params                                \
    {                                                                                                       \
        HOOK_REAL(name);                                                                                    \
        cudaError_t result = real args;                                                                     \
        engine_stretch_ended(HOOK_ID_##name, stream);                                                       \
        return result;                                                                                      \
    }                                                                                                       \
    static __attribute__((noinline)) cudaError_t name##_engine params                                       \
    {                                                                                                       \
        shim_enter();                                                                                       \
        HOOK_REAL(name);                                                                                    \
        struct call call;                                                                                   \
        CALL_DESCRIBED(call, kind, HOOK_ID_##name, stream);                                                 \
        cudaError_t result;                                                                                 \
        if (door_engine_call(&call, &result))                                                               \
            return result;                                                                                  \
        result = RUNTIME_KNOWN(real args); /* its driver calls are not another function's hidden work */    \
        engine_forwarded();                                                                                 \
        return result;                                                                                      \
    }                                                                                                       \
    static __attribute__((noinline)) cudaError_t name##_other params                                        \
    {                                                                                                       \
        shim_enter();                                                                                       \
        if (__builtin_expect(shim_looks(), 0)) {                                                            \
            if (shim_counting)                                                                              \
                observe_call(HOOK_ID_##name, stream);                                                       \
            if (shim_auto) {                                                                                \
                PIECE_OR(DOOR_TAKES_##kind(HOOK_ID_##name, stream), (void)0);                               \
                return name##_engine args;                                                                  \
            }                                                                                               \
            struct call call;                                                                               \
            CALL_DESCRIBED(call, kind, HOOK_ID_##name, stream);                                             \
            if (door_observe_sequence(&call, CALL_##kind))                                                  \
                return name##_timed args;                                                                   \
        }                                                                                                   \
        PIECE_OR(DOOR_ASIDE_##kind(HOOK_ID_##name, stream), (void)0);                                       \
        if (call_kind_in(CALL_##kind, CALL_KINDS_HOST_SYNC) && __builtin_expect(engine_governor_timing(), 0)) \
            return name##_stretch args; /* the governor's probe: a host sync ends a stretch */              \
        HOOK_REAL(name);                                                                                    \
        return real args;                                                                                   \
    }                                                                                                       \
    cudaError_t name params                                                                                 \
    {                                                                                                       \
        PIECE_OR(DOOR_FIRST_##kind(HOOK_ID_##name, stream), (void)0);                                       \
        if (__builtin_expect(!engine_door_is_fast(), 0))                                                     \
            return name##_other args;                                                                       \
        PIECE_OR(DOOR_TAKES_##kind(HOOK_ID_##name, stream), (void)0);                                       \
        return name##_engine args;                                                                          \
    }
#include "hooks.def"
#undef HOOK
