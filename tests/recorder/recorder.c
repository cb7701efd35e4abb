/* SPDX-License-Identifier: MIT */
/* A fake CUDA runtime for the forwarding test: every hooked function records a hash of its arguments and returns a code of its own. */
#include "config.h"

#include "each_arg.h"
#include "hooks.h"
#include "recorder.h"

/* Atomics: tests/test_threads calls it from several threads at once (the forwarding test, from one). */
static int last_id = -1;
static unsigned long long last_hash;
static unsigned long long calls[HOOK_COUNT];

#define HOOK(kind, name, params, args, stream)                                                              \
    cudaError_t name params                                                                                 \
    {                                                                                                       \
        unsigned long long h = FNV_SEED;                                                                    \
        FOR_EACH_IF_ANY(args, HASH_ARG, args)                                                               \
        __atomic_store_n(&last_id, HOOK_ID_##name, __ATOMIC_RELAXED);                                       \
        __atomic_store_n(&last_hash, h, __ATOMIC_RELAXED);                                                  \
        __atomic_fetch_add(&calls[HOOK_ID_##name], 1, __ATOMIC_RELAXED);                                    \
        return recorder_result(HOOK_ID_##name);                                                             \
    }
#include "hooks.def"
#undef HOOK

/* The last call recorded: its hook id and argument hash. */
int recorder_last(unsigned long long *hash)
{
    *hash = __atomic_load_n(&last_hash, __ATOMIC_RELAXED);
    return __atomic_load_n(&last_id, __ATOMIC_RELAXED);
}

/* How many times the recorder's function for id ran. */
unsigned long long recorder_calls(int id)
{
    return __atomic_load_n(&calls[id], __ATOMIC_RELAXED);
}
