/* Bounds deferral: a thread that submits held-back work nothing was added to for REPRISE_DEFERRAL_TIMEOUT_US. */
#ifndef REPRISE_WATCHDOG_H
#define REPRISE_WATCHDOG_H

#include <stdatomic.h>
#include <stdbool.h>

/* Set while the watchdog sleeps because no work was held back for a while. */
extern atomic_bool watchdog_asleep;

/* Starts the watchdog if it is not running (once per process, again after a fork); false if it cannot run. */
bool watchdog_ensure(void);

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
