/* SPDX-License-Identifier: MIT */
/* Falling back: held-back work submitted one by one in the program's order, and the region backed off. */
#ifndef REPRISE_ENGINE_FALLBACK_H
#define REPRISE_ENGINE_FALLBACK_H

#include "engine_tracker.h"

#pragma GCC visibility push(hidden)

/* Makes the work held back or captured so far run, in the program's order. */
void release_held(struct tracker *t);

/* Gives up replaying: submits what was held back and backs the region off. */
void fall_back(struct tracker *t, enum fallback_reason reason, const char *detail);

#pragma GCC visibility pop

#endif
