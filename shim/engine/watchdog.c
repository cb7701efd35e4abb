/* SPDX-License-Identifier: MIT */
/* Bounds deferral: a thread that submits held-back work nothing was added to for REPRISE_DEFERRAL_TIMEOUT_US. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "quiet_thread.h"
#include "settings.h"
#include "watchdog.h"

/*
 * Rounds in a row with nothing held back before the watchdog sleeps until
 * work is held back again: a program between bursts of work (waiting for a
 * long kernel, reading files) then costs no wakeups at all.
 */
#define IDLE_ROUNDS_BEFORE_SLEEP 64

atomic_bool watchdog_asleep;

enum watchdog_state { NOT_STARTED, RUNNING, FAILED };

static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic enum watchdog_state state;
static pthread_mutex_t sleep_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t sleep_cond = PTHREAD_COND_INITIALIZER;
static const struct watchdog_client *_Atomic client; /* set before the thread starts */

/* Sleeps until work is held back again (watchdog_wake), unless some already is. */
static void sleep_until_held(void)
{
    atomic_store(&watchdog_asleep, true);
    if (client->holds_work()) {
        atomic_store(&watchdog_asleep, false);
        return;
    }
    pthread_mutex_lock(&sleep_lock);
    while (atomic_load(&watchdog_asleep))
        pthread_cond_wait(&sleep_cond, &sleep_lock);
    pthread_mutex_unlock(&sleep_lock);
}

/*
 * The watchdog's thread: a round every half bound.  Work held back at two
 * rounds in a row with nothing added between them has waited at least half
 * the bound and at most the whole of it; the client's round submits it.
 */
static void *watchdog_main(void *arg)
{
    (void)arg;
    client->thread_start();
    long half_bound_ns = shim_options.num[OPT_DEFERRAL_TIMEOUT_US] * 500L;
    struct timespec period = {half_bound_ns / 1000000000L, half_bound_ns % 1000000000L};
    unsigned idle = 0;
    for (;;) {
        struct timespec left = period;
        while (nanosleep(&left, &left) != 0 && errno == EINTR)
            ;
        enum watchdog_round round = client->round();
        if (round == ROUND_STOP)
            return NULL;
        if (round == ROUND_HELD) {
            idle = 0;
        } else if (++idle >= IDLE_ROUNDS_BEFORE_SLEEP) {
            sleep_until_held();
            idle = 0;
        }
    }
}

/* In a forked child the watchdog's thread is gone: the next graph starts another. */
static void forget_in_child(void)
{
    pthread_mutex_init(&start_lock, NULL);
    pthread_mutex_init(&sleep_lock, NULL);
    pthread_cond_init(&sleep_cond, NULL);
    atomic_store(&watchdog_asleep, false);
    atomic_store(&state, NOT_STARTED);
}

/* Registers forget_in_child, once. */
static void register_atfork(void)
{
    pthread_atfork(NULL, NULL, forget_in_child);
}

/* Starts the watchdog's thread; the state it leaves (start_lock held). */
static enum watchdog_state start(void)
{
    static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
    pthread_once(&atfork_once, register_atfork);
    int err = quiet_thread_start(watchdog_main, "reprise-watch");
    if (err != 0) {
        log_warn("cannot start the watchdog thread (%s): nothing is graphed, since held-back work would have no "
                 "bound on its wait",
                 strerror(err));
        return FAILED;
    }
    log_debug("watchdog started: held-back work waits at most %ld us for the program's next call",
              shim_options.num[OPT_DEFERRAL_TIMEOUT_US]);
    return RUNNING;
}

/* Starts the watchdog for c if it is not running (once per process, again after a fork); false if it cannot run. */
bool watchdog_ensure(const struct watchdog_client *c)
{
    enum watchdog_state now = atomic_load_explicit(&state, memory_order_acquire);
    if (__builtin_expect(now != NOT_STARTED, 1))
        return now == RUNNING;
    pthread_mutex_lock(&start_lock);
    now = atomic_load(&state);
    if (now == NOT_STARTED) {
        atomic_store(&client, c);
        now = start();
        atomic_store_explicit(&state, now, memory_order_release);
    }
    pthread_mutex_unlock(&start_lock);
    return now == RUNNING;
}

/* Wakes a sleeping watchdog: work is held back again. */
void watchdog_wake(void)
{
    pthread_mutex_lock(&sleep_lock);
    atomic_store(&watchdog_asleep, false);
    pthread_cond_signal(&sleep_cond);
    pthread_mutex_unlock(&sleep_lock);
}
