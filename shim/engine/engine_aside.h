/* SPDX-License-Identifier: MIT */
/* Stepping the engine aside for the governor, and back: held-back work submitted first, what is owed made first. */
#ifndef REPRISE_ENGINE_ASIDE_H
#define REPRISE_ENGINE_ASIDE_H

#include "engine_tracker.h"

#pragma GCC visibility push(hidden)

/* Whether the engine may step aside: not once a robust-path capture has begun (engine_aside.c says why). */
bool aside_allowed(void);

/*
 * Begins to step aside: the engine holds, records and captures nothing
 * from now on (engine_holding cleared), and every thread's held-back or
 * captured work is submitted in order, its sequence dropped.  Then
 * aside_finish: true if the front doors forward as in off mode already;
 * false if something a thread must see through at its next call is still
 * owed (the engine keeps the doors meanwhile, holding nothing: call
 * aside_finish again, or aside_cancel).  No tracker lock held.
 */
bool aside_begin(void);

/*
 * Ends the step aside begun: true, with the front doors forwarding as in
 * off mode, once no thread owes its stream a wait for work another thread
 * moved onto the legacy stream and no thread owes its program an error;
 * the waits and records owed after graphs are made first.  False (nothing
 * changed) while something is still owed.
 */
bool aside_finish(void);

/* Gives a step aside up (aside_finish kept finding something owed): the engine holds calls back again. */
void aside_cancel(void);

/* Resumes: the front doors hand calls to the engine again, which holds them back as before. */
void aside_end(void);

/* While the engine holds nothing (a step aside): a thread's own held-back work submitted, its sequence dropped. */
void aside_clean(struct tracker *t);

#pragma GCC visibility pop

#endif
