/* SPDX-License-Identifier: MIT */
/*
 * standin/host_clock.c: the stand-in's virtual host clock,
 * libstandin_clock.so, preloaded before the shim (tests/lib.sh's with_clock).
 *
 * The shim times the host on CLOCK_MONOTONIC: observe mode's ceiling, a
 * region's pace (segments), the trial of a graph. On the stand-in those
 * readings are the CPU's, so on a loaded machine a descheduled thread moves
 * every decision made from them, and a test asserting one fails now and
 * then. Preloaded, this library answers clock_gettime(CLOCK_MONOTONIC) from
 * a clock that only the host costs asked for advance: STANDIN_SUBMIT_US,
 * STANDIN_GRAPH_LAUNCH_US, STANDIN_GRAPH_UPDATE_US (standin/host_cost.c)
 * and a program's own host work (standin_host_work). The stand-in spends
 * them on this clock instead of sleeping, and nothing else moves it: a
 * launch without a cost takes no time, a thread descheduled for a second
 * none either. So the shim measures exactly what a test set, however busy
 * the machine. Every other clock is the system's.
 *
 * One clock for the process: fit for programs whose timed calls come from
 * one host thread (what another thread spends lands in its spans too, in
 * whatever order the threads ran). A program that times its own waits on
 * CLOCK_MONOTONIC (host_flag_wait's spin) would wait forever under it.
 */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Where the clock starts (1000 s): any value; not 0, which some code may take for "never read". */
#define START_NS (1000ull * 1000000000ull)

static atomic_ullong spent_ns;

/* Advances the virtual clock by ns nanoseconds (host_cost.c finds it with dlsym). */
void standin_clock_advance(unsigned long long ns)
{
    atomic_fetch_add_explicit(&spent_ns, ns, memory_order_relaxed);
}

/* CLOCK_MONOTONIC: the virtual clock; every other clock: the system's. */
int clock_gettime(clockid_t id, struct timespec *ts)
{
    if (id != CLOCK_MONOTONIC)
        return (int)syscall(SYS_clock_gettime, id, ts);
    unsigned long long ns = START_NS + atomic_load_explicit(&spent_ns, memory_order_relaxed);
    ts->tv_sec = (time_t)(ns / 1000000000ull);
    ts->tv_nsec = (long)(ns % 1000000000ull);
    return 0;
}
