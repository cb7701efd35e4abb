/* SPDX-License-Identifier: MIT */
/* Bounds deferral: a thread that submits held-back work nothing was added to for REPRISE_DEFERRAL_TIMEOUT_US. */
#ifndef REPRISE_WATCHDOG_H
#define REPRISE_WATCHDOG_H

#include <stdatomic.h>
#include <stdbool.h>

/* What a watchdog round found. */
enum watchdog_round {
    ROUND_IDLE, /* no thread holds work back */
    ROUND_HELD, /* some thread does (what waited too long was submitted) */
    ROUND_STOP, /* the engine has shut down: the watchdog ends */
};

/* What the watchdog's thread calls: the engine's (engine_watchdog.c), handed over at the first start. */
struct watchdog_client {
    void (*thread_start)(void);        /* first, on the watchdog's thread: its CUDA calls are the shim's own */
    enum watchdog_round (*round)(void); /* submits work held back since the last round with nothing added */
    bool (*holds_work)(void);           /* whether any thread holds work back now */
};

/* Set while the watchdog sleeps because no work was held back for a while. */
extern atomic_bool watchdog_asleep;

/* Starts the watchdog for client if it is not running (once per process, again after a fork); false if it cannot run. */
bool watchdog_ensure(const struct watchdog_client *client);

/* Wakes a sleeping watchdog: work is held back again. */
void watchdog_wake(void);

/*
 * Called after a thread starts holding work back (its count of holding
 * threads already raised, with a sequentially consistent add): one load in
 * the common case.  Against the watchdog's "asleep, then nothing held?"
 * check, one of the two always sees the other.
 */
static inline void watchdog_note_held(void)
{
    if (__builtin_expect(atomic_load(&watchdog_asleep), 0))
        watchdog_wake();
}

#endif
