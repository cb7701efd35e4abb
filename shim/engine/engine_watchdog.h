/* SPDX-License-Identifier: MIT */
/* The watchdog's round over the trackers, and what tells it a thread still adds calls to its held-back work. */
#ifndef REPRISE_ENGINE_WATCHDOG_H
#define REPRISE_ENGINE_WATCHDOG_H

#include "engine_tracker.h"

#pragma GCC visibility push(hidden)

/* Whether no watchdog can bound the wait of r's held-back work (its thread would not start): then r is failed, and said. */
bool watchdog_refuses(struct tracker *t, struct region *r);

/* Tells the watchdog that t added n calls to its held-back work: a plain store, only t's thread writes it. */
static inline void note_progress_by(struct tracker *t, unsigned n)
{
    atomic_store_explicit(&t->watched.activity, atomic_load_explicit(&t->watched.activity, memory_order_relaxed) + n,
                          memory_order_relaxed);
}

/* Tells the watchdog that t added a call to its held-back work. */
static inline void note_progress(struct tracker *t)
{
    note_progress_by(t, 1);
}

#pragma GCC visibility pop

#endif
