/* SPDX-License-Identifier: MIT */
/* The call each thread forwards now, kept clear of by other threads' captures (engine_in_flight.c says why). */
#ifndef REPRISE_ENGINE_IN_FLIGHT_H
#define REPRISE_ENGINE_IN_FLIGHT_H

#include "engine_tracker.h"

#pragma GCC visibility push(hidden)

/* Marks c as this thread's call in flight, while several threads make CUDA calls; before anything else looks. */
void in_flight_mark(struct tracker *t, const struct call *c);

/* Clears this thread's mark of its call in flight (engine_call_returned, once the call returned). */
void in_flight_clear(void);

/* Whether a call of another thread in flight touches what t's capture holds or takes in (t counted pending). */
bool in_flight_meets(const struct tracker *t);

#pragma GCC visibility pop

#endif
