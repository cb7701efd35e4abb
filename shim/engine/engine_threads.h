/* SPDX-License-Identifier: MIT */
/* Other threads' held-back work: submitted (or launched) before a call that must follow it, hand-overs ended. */
#ifndef REPRISE_ENGINE_THREADS_H
#define REPRISE_ENGINE_THREADS_H

#include "engine_tracker.h"

#pragma GCC visibility push(hidden)

/* At this thread's next call after another thread did something for it: its stream rejoins, a handed-over sequence ends. */
void rejoin_moved_work(struct tracker *t);

/* Submits, first, the held-back work of every other thread that must_submit says (for call c); how many. */
unsigned submit_other_threads(struct tracker *me, bool (*must_submit)(const struct tracker *, const struct call *),
                              const struct call *c, enum fallback_reason why, const char *name);

#pragma GCC visibility pop

#endif
