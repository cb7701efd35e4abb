/* SPDX-License-Identifier: MIT */
/*
 * standin/host_cost.c: host time spent on request, so that tests can
 * make one way of submitting work clearly dearer than another.
 *
 * The stand-in is otherwise as fast as the CPU allows, so how long a shim's
 * choice takes on it says nothing about a GPU. STANDIN_SUBMIT_US (each
 * operation queued on a stream outside a capture, a graph launch counting
 * as one), STANDIN_GRAPH_UPDATE_US (each cudaGraphExecUpdate) and
 * STANDIN_GRAPH_LAUNCH_US (each cudaGraphLaunch, on top of the first) and
 * STANDIN_NODE_PATCH_US (each cudaGraphExec*NodeSetParams, either door) give
 * those calls a cost in microseconds; unset or 0, they cost nothing extra.
 * standin_host_work is a program's own host time (a sleep).  STANDIN_KERNEL_US
 * gives each kernel a run time on the device, on the virtual host clock only:
 * kernels queued (a graph's kernel nodes at its launch) run one after the
 * other from when they are queued, and a host sync waits, on that clock,
 * until the last has run, so the shim sees what a sync after a launch waits
 * on a GPU.  It orders nothing: the stand-in's device runs work as it does.
 *
 * Spent as sleeps, or, with the virtual host clock preloaded
 * (standin/host_clock.c), on that clock, without sleeping: the shim
 * then measures exactly these costs, whatever else the machine runs.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "standin.h"

/* Microseconds named by the environment variable, read once into *cached (-1: not read yet). */
static long cost_us(atomic_long *cached, const char *variable)
{
    long us = atomic_load_explicit(cached, memory_order_relaxed);
    if (us < 0) {
        const char *text = getenv(variable);
        us = text && *text ? atol(text) : 0;
        atomic_store_explicit(cached, us > 0 ? us : 0, memory_order_relaxed);
    }
    return us;
}

typedef void advance_fn(unsigned long long ns);

/* The virtual host clock's standin_clock_advance if it is preloaded, else NULL (looked up once). */
static advance_fn *virtual_clock(void)
{
    static _Atomic(advance_fn *) found;
    static atomic_bool looked;
    if (!atomic_load_explicit(&looked, memory_order_acquire)) {
        atomic_store_explicit(&found, (advance_fn *)dlsym(RTLD_DEFAULT, "standin_clock_advance"),
                              memory_order_relaxed);
        atomic_store_explicit(&looked, true, memory_order_release);
    }
    return atomic_load_explicit(&found, memory_order_relaxed);
}

/* Spends us microseconds: on the virtual host clock if it is preloaded, else asleep. */
static void spend(long us)
{
    advance_fn *advance = virtual_clock();
    if (advance) {
        advance((unsigned long long)us * 1000ull);
        return;
    }
    struct timespec left = {us / 1000000, us % 1000000 * 1000};
    while (nanosleep(&left, &left) != 0 && errno == EINTR)
        ;
}

/* Spends the microseconds variable `name` asks for (read once into *cached). */
static void charge(atomic_long *cached, const char *name)
{
    long us = cost_us(cached, name);
    if (us > 0)
        spend(us);
}

/* Spends STANDIN_SUBMIT_US: an operation (or a graph launch) queued on a stream. */
void host_cost_submit(void)
{
    static atomic_long cached = -1;
    charge(&cached, "STANDIN_SUBMIT_US");
}

/* Spends STANDIN_GRAPH_UPDATE_US: a cudaGraphExecUpdate. */
void host_cost_graph_update(void)
{
    static atomic_long cached = -1;
    charge(&cached, "STANDIN_GRAPH_UPDATE_US");
}

/* Spends STANDIN_NODE_PATCH_US: one node of an executable graph given new parameters. */
void host_cost_node_patch(void)
{
    static atomic_long cached = -1;
    charge(&cached, "STANDIN_NODE_PATCH_US");
}

/* Spends STANDIN_GRAPH_LAUNCH_US: a cudaGraphLaunch. */
void host_cost_graph_launch(void)
{
    static atomic_long cached = -1;
    charge(&cached, "STANDIN_GRAPH_LAUNCH_US");
}

/* When the device's queued kernels have run, on the virtual host clock (STANDIN_KERNEL_US; 0: idle). */
static atomic_ullong device_done_ns;

/* The virtual host clock's time now, in nanoseconds. */
static unsigned long long virtual_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

/* Queues `kernels` kernels' run time (STANDIN_KERNEL_US each) on the device, after what it runs already. */
void device_time_queue(unsigned long kernels)
{
    static atomic_long cached = -1;
    long us = cost_us(&cached, "STANDIN_KERNEL_US");
    if (us <= 0 || kernels == 0 || virtual_clock() == NULL)
        return;
    unsigned long long now = virtual_now_ns(), done = atomic_load_explicit(&device_done_ns, memory_order_relaxed);
    unsigned long long next;
    do
        next = (done > now ? done : now) + kernels * (unsigned long long)us * 1000ull;
    while (!atomic_compare_exchange_weak_explicit(&device_done_ns, &done, next, memory_order_relaxed,
                                                  memory_order_relaxed));
}

/* A host sync: the virtual host clock moves on to when the device's queued kernels have run. */
void device_time_wait(void)
{
    advance_fn *advance = virtual_clock();
    if (advance == NULL)
        return;
    unsigned long long now = virtual_now_ns(), done = atomic_load_explicit(&device_done_ns, memory_order_relaxed);
    if (done > now)
        advance(done - now);
}

/* A program's own host work between its calls, us microseconds: a sleep, or time on the virtual host clock. */
void standin_host_work(long us)
{
    if (us > 0)
        spend(us);
}
