/* SPDX-License-Identifier: MIT */
/* The streams and events a thread's held-back (or captured) calls use, and whether another thread's call meets them. */
#ifndef REPRISE_ENGINE_HELD_H
#define REPRISE_ENGINE_HELD_H

#include "engine_tracker.h"

#pragma GCC visibility push(hidden)

/* Notes the stream and event a held-back (or captured) call uses, for other threads' calls to check against. */
void note_held(struct tracker *t, const struct call *c);

/* Forgets them: t holds nothing back any more. */
void held_forget(struct tracker *t);

/* Whether another thread's call c could be ordered against the work t holds back. */
bool interacts(const struct tracker *t, const struct call *c);

#pragma GCC visibility pop

#endif
