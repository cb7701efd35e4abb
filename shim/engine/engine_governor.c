/* SPDX-License-Identifier: MIT */
/* The governor at work (policy/governor.h decides): stretches between host syncs timed, its verdicts acted on. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "engine_aside.h"
#include "engine_governor.h"
#include "engine_in_flight.h"
#include "governor.h"
#include "log.h"
#include "monotonic.h"
#include "quiet_thread.h"
#include "settings.h"
#include "trace.h"

/* Probes compare this many pairs of epochs: one odd pair cannot sway the median. */
#define PROBE_PAIRS 4

/* A step aside that still waits for something owed after this long is given up (auto stays on). */
#define DRAIN_LIMIT_NS (200 * 1000000ull)

/* The governor's thread waits for the next probe in slices of an epoch, not less than this. */
#define TIMER_SLICE_MIN_NS 1000000ull

atomic_bool engine_governor_measuring;
atomic_bool governor_draining;

/* Everything below is under lock, but for what is atomic. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static bool enabled;
static struct governor gov;
static uint64_t started_ns;    /* when the engine started: times in the log count from here */
static uint64_t drain_began;   /* when the step aside under way began */
static enum governor_way told; /* the way of the last verdict logged (auto before any) */
static bool timer_started;
static unsigned refused;       /* steps aside the engine could not make */

/*
 * This thread's stretch: when its last host sync returned, in which epoch;
 * and the host sync the engine saw, armed until it returns.
 */
static __thread struct {
    uint64_t since;
    unsigned epoch;
    bool armed;
    enum hook_id api;
    cudaStream_t stream;
} stretch __attribute__((tls_model("initial-exec")));

/* The time between two readings of the monotonic clock, for the log: "1.2 s", "35 ms" (into a buffer of 32). */
static const char *span(uint64_t from, uint64_t to, char out[32])
{
    double s = (double)(to - from) / 1e9;
    if (s >= 1)
        snprintf(out, 32, "%.1f s", s);
    else
        snprintf(out, 32, "%.0f ms", s * 1e3);
    return out;
}

/* Seconds between two readings of the monotonic clock. */
static double seconds(uint64_t from, uint64_t to)
{
    return (double)(to - from) / 1e9;
}

/*
 * In a forked child the governor's thread is gone, and its lock may have
 * been held by a thread that is gone too: both are made anew.  The child
 * keeps its parent's verdict; it probes again only once a verdict of its
 * own starts the thread (a probe under way goes on, at its host syncs).
 */
static void forget_in_child(void)
{
    pthread_mutex_init(&lock, NULL);
    pthread_cond_init(&wake, NULL);
    timer_started = false;
}

/* Reads REPRISE_GOVERNOR and its epochs; called once at init in auto mode, after engine_configure. */
void engine_governor_configure(void)
{
    if (!shim_auto || !shim_options.num[OPT_GOVERNOR])
        return;
    uint64_t epoch_ns = (uint64_t)shim_options.num[OPT_GOVERNOR_EPOCH_MS] * 1000000ull;
    unsigned syncs = (unsigned)shim_options.num[OPT_GOVERNOR_EPOCH_SYNCS];
    struct governor_params p = {
        .epoch_ns = epoch_ns,
        .epoch_stretches = syncs,
        .pairs = PROBE_PAIRS,
        .min_key_samples = syncs < 3 ? syncs : 3,
        .learn_ns = 10 * epoch_ns,
        .learn_stretches = 2 * syncs,
        .learn_quiet_ns = 2 * epoch_ns,
        .learn_max_ns = 100 * epoch_ns,
        .backoff_ns = 40 * epoch_ns,
        .backoff_max_ns = 640 * epoch_ns,
    };
    started_ns = monotonic_ns();
    governor_init(&gov, &p, started_ns);
    pthread_atfork(NULL, NULL, forget_in_child);
    enabled = true;
    atomic_store(&engine_governor_measuring, true);
}

/* The kind of stretch a host sync ends: its function, and the stream it waits for (its key in an epoch). */
static uint64_t stretch_key(enum hook_id api, cudaStream_t stream)
{
    return (uint64_t)api << 48 ^ (uint64_t)(uintptr_t)stream;
}

/* Logs and traces a verdict just reached (lock held). */
static void say_verdict(uint64_t now)
{
    const struct governor_verdict *v = &gov.verdict;
    char at[32], next[32];
    span(started_ns, now, at);
    span(now, gov.next_probe, next);
    char what[96];
    governor_describe_ratio(v->ratio, what, sizeof what);
    char how[160];
    snprintf(how, sizeof how, "the same stretches between host syncs take %.1f%% %s with the engine on; the median "
             "of %u pairs of epochs", v->ratio >= 1 ? (v->ratio - 1) * 100 : (1 - v->ratio) * 100,
             v->ratio >= 1 ? "longer" : "less time", v->pairs);
    if (v->pairs == 0)
        log_msg(told == GOVERNOR_AUTO && gov.verdicts > 1 ? LOG_DEBUG : LOG_INFO,
                "auto stays on after %s: no kind of stretch between host syncs could be compared with the engine "
                "on and stepped aside; probing again in %s", at, next);
    else if (v->way == GOVERNOR_ASIDE && told == GOVERNOR_AUTO)
        log_info("auto stepped aside after %s: %s (%s); the wrappers forward every call as in off mode, graphs "
                 "are kept, and it probes again in %s", at, what, how, next);
    else if (v->way == GOVERNOR_AUTO && told == GOVERNOR_ASIDE)
        log_info("auto resumed after %s: %s (%s); probing again in %s", at, what, how, next);
    else
        log_msg(gov.verdicts > 1 ? LOG_DEBUG : LOG_INFO, "auto stays %s after %s: %s (%s); probing again in %s",
                v->way == GOVERNOR_AUTO ? "on" : "aside", at, what, how, next);
    trace_event("governor", "\"way\":\"%s\",\"ratio\":%.4f,\"pairs\":%u,\"at_s\":%.6f,\"next_probe_s\":%.6f",
                v->way == GOVERNOR_AUTO ? "auto" : "aside", v->ratio, v->pairs, seconds(started_ns, now),
                seconds(now, gov.next_probe));
    told = v->way;
}

/* The governor's thread: sleeps until the next probe is due, and starts it (stepped aside, nothing else would). */
static void *timer_main(void *arg)
{
    (void)arg;
    in_engine = true; /* never cleared: whatever this thread does is the shim's */
    pthread_mutex_lock(&lock);
    while (!atomic_load(&shut_down)) {
        uint64_t at = governor_wake_at(&gov), now = monotonic_ns();
        if (at == 0) {
            pthread_cond_wait(&wake, &lock);
        } else if (now < at) {
            /* In slices of an epoch, not one sleep: the shim's clock may not be the kernel's (the stand-in's
               virtual clock moves as the program spends host time, not as time passes). */
            uint64_t slice = gov.params.epoch_ns > TIMER_SLICE_MIN_NS ? gov.params.epoch_ns : TIMER_SLICE_MIN_NS;
            uint64_t ns = at - now < slice ? at - now : slice;
            struct timespec left = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
            pthread_mutex_unlock(&lock);
            while (nanosleep(&left, &left) != 0 && errno == EINTR)
                ;
            pthread_mutex_lock(&lock);
        } else {
            struct governor_news news = governor_tick(&gov, now, atomic_load(&graphs_built));
            char at[32];
            if (news.probe_started)
                log_debug("governor: probing again after %s (%s now)", span(started_ns, now, at),
                          gov.way == GOVERNOR_AUTO ? "auto" : "stepped aside");
            atomic_store(&engine_governor_measuring, governor_measures(&gov));
        }
    }
    pthread_mutex_unlock(&lock);
    return NULL;
}

/* Starts the governor's thread once a probe is to come back (lock held); without it, the verdict stays. */
static void timer_ensure(void)
{
    if (timer_started || governor_wake_at(&gov) == 0)
        return;
    timer_started = true;
    int err = quiet_thread_start(timer_main, "reprise-gov");
    if (err != 0)
        log_warn("cannot start the governor's thread (%s): its verdict stays for good", strerror(err));
}

/* What the rest of the shim reads of the governor, once it moved (lock held). */
static void publish(void)
{
    atomic_store(&engine_governor_measuring, governor_measures(&gov));
    timer_ensure();
    pthread_cond_signal(&wake);
}

/* A switch is done (lock held): said at debug level and in the trace (the fuzzers count them). */
static void switched(uint64_t now)
{
    governor_switched(&gov, now);
    const char *way = gov.way == GOVERNOR_AUTO ? "auto" : "aside";
    log_debug("governor: %s from epoch %u on", gov.way == GOVERNOR_AUTO ? "the engine is on again" : "stepped aside",
              gov.epoch);
    trace_event("governor_switch", "\"way\":\"%s\",\"epoch\":%u", way, gov.epoch);
}

/* A step aside under way: finished if nothing is owed any more, given up after DRAIN_LIMIT_NS (lock held). */
static void drain_retry(uint64_t now)
{
    if (!atomic_load(&governor_draining))
        return;
    if (aside_finish()) {
        atomic_store(&governor_draining, false);
        log_debug("governor: nothing owed any more, %.1f ms after the step aside began", (now - drain_began) / 1e6);
        switched(now);
        publish();
        return;
    }
    if (now - drain_began < DRAIN_LIMIT_NS)
        return;
    aside_cancel();
    atomic_store(&governor_draining, false);
    governor_switch_failed(&gov, now);
    refused++;
    char at[32], next[32];
    log_info("auto could not step aside after %s: a thread still owes its program an error it has not read, or "
             "its stream a wait for work another thread submitted for it; auto stays on, and probes again in %s",
             span(started_ns, now, at), span(now, gov.next_probe, next));
    publish();
}

/* Acts on what governor_tick said at now (lock held): the log, and the switch it asks for. */
static void act(struct governor_news news, uint64_t now)
{
    char at[32];
    if (news.probe_started)
        log_debug("governor: probing after %s: epochs of %.0f ms and %u host syncs at the least, %s first",
                  span(started_ns, now, at), gov.params.epoch_ns / 1e6, gov.params.epoch_stretches,
                  gov.way == GOVERNOR_AUTO ? "auto" : "stepped aside");
    if (news.verdict)
        say_verdict(now);
    if (news.switch_way && gov.way == GOVERNOR_AUTO) {
        aside_end();
        switched(monotonic_ns());
    } else if (news.switch_way && !aside_allowed()) {
        governor_switch_failed(&gov, now);
        refused++;
        char next[32];
        static bool told;
        log_msg(told ? LOG_DEBUG : LOG_INFO,
                "auto cannot step aside here: regions took the robust path, whose captures need every thread's "
                "calls seen while they last; auto stays on (probing again in %s)",
                span(now, gov.next_probe, next));
        told = true;
    } else if (news.switch_way && aside_begin()) {
        switched(monotonic_ns());
    } else if (news.switch_way) {
        drain_began = now;
        atomic_store(&governor_draining, true);
        log_debug("governor: stepping aside waits for what a thread owes at its next call");
    }
    publish();
}

/*
 * A host sync of api on stream returned: the stretch it ends, from this
 * thread's last one, is the governor's sample if both were in one epoch,
 * and the governor moves on (this thread may end an epoch, a probe, a step
 * aside).  The next stretch is timed from after that.
 */
void engine_stretch_ended(enum hook_id api, cudaStream_t stream)
{
    if (!enabled)
        return;
    uint64_t now = monotonic_ns();
    pthread_mutex_lock(&lock);
    if (stretch.since != 0)
        governor_add(&gov, stretch.epoch, stretch_key(api, stream), now - stretch.since);
    if (!atomic_load(&shut_down)) {
        drain_retry(now);
        act(governor_tick(&gov, now, atomic_load(&graphs_built)), now);
        uint64_t probe = governor_wake_at(&gov);
        if (probe != 0 && probe <= now) /* no back-off (epochs of 0 ms): the next probe begins at once */
            act(governor_tick(&gov, now, atomic_load(&graphs_built)), now);
    }
    stretch.epoch = gov.epoch;
    pthread_mutex_unlock(&lock);
    stretch.since = monotonic_ns();
}

/* A host sync the engine saw is forwarded next: armed until it returns (engine_call_returned runs then). */
void governor_arm_slow(enum hook_id api, cudaStream_t stream)
{
    stretch.armed = true;
    stretch.api = api;
    stretch.stream = stream;
    in_flight_marked = true;
}

/* After a call this thread made returned: the stretch a host sync armed ends. */
void governor_returned(void)
{
    if (!stretch.armed)
        return;
    stretch.armed = false;
    engine_stretch_ended(stretch.api, stretch.stream);
}

/* A step aside waits for something owed: try again, if no other thread is at it. */
void governor_drain_retry_slow(void)
{
    if (pthread_mutex_trylock(&lock) != 0)
        return;
    if (!atomic_load(&shut_down))
        drain_retry(monotonic_ns());
    pthread_mutex_unlock(&lock);
}

/* The exit summary's line on the governor (and the trace's governor_summary event). */
void engine_governor_summary(bool to_log)
{
    if (!enabled)
        return;
    pthread_mutex_lock(&lock);
    uint64_t now = monotonic_ns();
    uint64_t aside_ns = governor_aside_ns(&gov, now);
    double total = seconds(started_ns, now), aside = (double)aside_ns / 1e9;
    const struct governor_verdict *v = &gov.verdict;
    char what[96], line[400], all[32], away[32], at[32];
    governor_describe_ratio(v->ratio, what, sizeof what);
    span(started_ns, now, all);
    span(0, aside_ns, away);
    span(started_ns, v->at_ns, at);
    if (gov.verdicts == 0 && refused > 0)
        snprintf(line, sizeof line, "auto stayed on: it could not step aside at %u probe%s (the log says why); %s "
                 "from the engine's start", refused, refused == 1 ? "" : "s", all);
    else if (gov.verdicts == 0)
        snprintf(line, sizeof line, "no verdict yet: %s (%s from the engine's start)",
                 gov.state == GOVERNOR_LEARN ? "still learning" : "probing", all);
    else if (v->pairs == 0)
        snprintf(line, sizeof line, "auto stayed on: no stretch between host syncs could be compared (%u probes); "
                 "stepped aside for %s of %s", gov.verdicts, away, all);
    else
        snprintf(line, sizeof line, "auto %s: %s (%u probe%s, the last after %s); stepped aside for %s of %s",
                 v->way == GOVERNOR_ASIDE ? "stepped aside" : "stayed on", what, gov.verdicts,
                 gov.verdicts == 1 ? "" : "s", at, away, all);
    unsigned verdicts = gov.verdicts;
    enum governor_way way = gov.way;
    double ratio = v->ratio;
    pthread_mutex_unlock(&lock);
    if (to_log)
        log_always(LOG_INFO, "governor: %s", line);
    trace_event("governor_summary", "\"way\":\"%s\",\"verdicts\":%u,\"ratio\":%.4f,\"aside_s\":%.6f,\"total_s\":%.6f",
                way == GOVERNOR_AUTO ? "auto" : "aside", verdicts, ratio, aside, total);
}
