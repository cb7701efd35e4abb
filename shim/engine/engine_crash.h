/* SPDX-License-Identifier: MIT */
/* What a crash report tells of a thread's engine state, and the call the engine saw last, which it names. */
#ifndef REPRISE_ENGINE_CRASH_H
#define REPRISE_ENGINE_CRASH_H

#include <limits.h>

#include "engine_tracker.h"

#pragma GCC visibility push(hidden)

#define LAST_CALL_NONE UINT_MAX          /* the engine has seen no call of the thread yet */
#define LAST_CALL_DIRECT (UINT_MAX - 1)  /* a direct call (engine_direct_call), named by last_call.direct */

/* Gets t's last call ready, when t is made: none yet. */
static inline void last_call_init(struct tracker *t)
{
    t->last_call.api = LAST_CALL_NONE;
}

/* Notes the call the engine sees now (engine_call): one store, on the engine's way, never on the fast path. */
static inline void note_last_call(struct tracker *t, enum hook_id api)
{
    t->last_call.api = (unsigned)api;
}

/* Notes a direct call the engine sees now (engine_direct_call), by its name. */
static inline void note_last_direct_call(struct tracker *t, const char *name)
{
    t->last_call.direct = name;
    t->last_call.api = LAST_CALL_DIRECT;
}

#pragma GCC visibility pop

#endif
