/* SPDX-License-Identifier: MIT */
/*
 * standin/scheduler.c: the stand-in's "GPU": a queue of operations
 * with dependencies, run on the host only when the host has to wait.
 *
 * Every op carries the ids of the ops it must follow (its stream's previous
 * op, the record an event wait refers to, the legacy-stream barriers, the
 * edges of a launched graph). An op is ready once all of those have run.
 * Whenever the host must wait (a synchronisation, a synchronous copy, a
 * query that needs progress), sched_step runs ONE ready op, picked by a
 * seeded pseudo-random generator among all ready ops of all streams. So
 * independent work of different streams runs in a different order for each
 * seed, every dependency is respected, and the same seed gives the same run
 * (for a single host thread; several host threads interleave as the OS
 * schedules them). STANDIN_SEED sets the seed (default 1). Once the program
 * owns mapped host memory, the device thread (device_thread.c) also runs
 * ready ops by itself, without host waits.
 *
 * Programmatic dependencies (a programmatic dependent launch on a stream, a
 * programmatic edge of a graph; both only from a kernel to a kernel): the
 * dependent kernel may start before its primary has even started, as soon
 * as the primary could start (a pick like any other, so the seed decides),
 * and only standin_grid_dependency_sync() in its twin waits for the
 * primary: it runs the primary (and what the primary still waits for) then
 * and there, nested on the same thread, and returns once it has completed.
 * A dependent that reads its primary's output without that wait reads what
 * was there before, for some seeds, as on a GPU where nothing makes the
 * primary's writes visible to it before cudaGridDependencySynchronize().
 * What follows the dependent fully waits for its primaries too: an op
 * completes (its successors may start) once it ran and its primaries have
 * completed. A primary's early trigger (standin_trigger_launch_completion)
 * changes nothing: its dependents may start before it anyway.
 *
 * The fake clock advances by a fixed cost per op, so event timing is
 * deterministic, non-negative and ordered along every dependency chain.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "standin.h"

/* Where an op is in its life. */
enum op_state {
    OP_WAITING, /* a pred it follows fully has not completed */
    OP_READY,   /* in the ready list: every pred it follows fully has completed */
    OP_RUNNING, /* its work runs (a kernel may be in its grid-dependency wait) */
    OP_RAN,     /* its work ran; it completes once its primaries have */
};

struct op {
    uint64_t id;
    struct work w;
    enum op_state state;
    unsigned unmet;             /* preds it follows fully, not yet completed */
    struct op **succ;           /* ops that follow this one fully */
    size_t nsucc, capsucc;
    struct op **dependents;     /* ops this one is a primary of (programmatic) */
    size_t ndependents, capdependents;
    struct op **primaries;      /* its primaries not yet completed */
    size_t nprimaries, capprimaries;
    UT_hash_handle hh;
};

static struct op *pending;          /* ops not yet completed, by id */
static struct op **ready;           /* ops whose full preds have all completed */
static size_t nready, capready;
static uint64_t next_id = 1;
static uint64_t now_ns;
static uint64_t rng_state;
static bool rng_seeded;
static __thread struct op *current_op; /* the op whose work this thread runs (a twin's grid-dependency wait) */

/* splitmix64: expands the seed into the generator's state. */
static uint64_t splitmix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* xorshift64*: the next pseudo-random number, seeded from STANDIN_SEED. */
static uint64_t rng_next(void)
{
    if (!rng_seeded) {
        const char *s = getenv("STANDIN_SEED");
        uint64_t seed = s && *s ? strtoull(s, NULL, 0) : 1;
        rng_state = splitmix64(seed) | 1;
        rng_seeded = true;
    }
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dull;
}

/* Puts op in the ready list. */
static void make_ready(struct op *op)
{
    op->state = OP_READY;
    ptr_push((void ***)&ready, &nready, &capready, op);
    device_thread_notify();
}

/* Queues w to run after the pending ops among preds; those flagged programmatic, if kernels as w is, are primaries. */
uint64_t sched_submit_dependent(struct work *w, const uint64_t *preds, const bool *programmatic, size_t npreds)
{
    struct op *op = xcalloc(1, sizeof *op);
    op->id = next_id++;
    op->w = *w;
    /* The full edges first: a pred listed both ways is followed fully. */
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < npreds; i++) {
            struct op *p = NULL;
            if (preds[i] == 0)
                continue;
            HASH_FIND(hh, pending, &preds[i], sizeof preds[i], p);
            if (!p)
                continue;
            bool primary = programmatic && programmatic[i] && w->kind == W_KERNEL && p->w.kind == W_KERNEL;
            if (primary != (pass == 1))
                continue;
            if ((p->nsucc && p->succ[p->nsucc - 1] == op) ||
                (p->ndependents && p->dependents[p->ndependents - 1] == op))
                continue;   /* the same pred listed twice */
            if (primary) {
                ptr_push((void ***)&p->dependents, &p->ndependents, &p->capdependents, op);
                ptr_push((void ***)&op->primaries, &op->nprimaries, &op->capprimaries, p);
            } else {
                ptr_push((void ***)&p->succ, &p->nsucc, &p->capsucc, op);
                op->unmet++;
            }
        }
    HASH_ADD(hh, pending, id, sizeof op->id, op);
    if (op->unmet == 0)
        make_ready(op);
    return op->id;
}

/* Queues w to run after the pending ops among preds. */
uint64_t sched_submit(struct work *w, const uint64_t *preds, size_t npreds)
{
    return sched_submit_dependent(w, preds, NULL, npreds);
}

/* True while op id has not completed. */
bool sched_pending(uint64_t id)
{
    struct op *p = NULL;
    if (id == 0)
        return false;
    HASH_FIND(hh, pending, &id, sizeof id, p);
    return p != NULL;
}

/* Fake duration of a work item, in nanoseconds. */
static uint64_t work_cost(const struct work *w)
{
    switch (w->kind) {
    case W_KERNEL: {
        const struct kernel_work *k = &w->u.kernel;
        uint64_t threads = (uint64_t)k->grid.x * k->grid.y * k->grid.z *
                           k->block.x * k->block.y * k->block.z;
        return 2000 + threads / 16;
    }
    case W_COPY: {
        const struct cudaExtent *e = &w->u.copy.p.extent;
        return 1000 + (uint64_t)e->width * e->height * e->depth / 64;
    }
    case W_SET:
        return 1000 + (uint64_t)w->u.set.width * w->u.set.height * w->u.set.elementSize / 64;
    default:
        return 500;
    }
}

/* Drops p from the array arr[0..*n), where it is. */
static void ptr_drop(struct op **arr, size_t *n, const struct op *p)
{
    for (size_t i = 0; i < *n; i++)
        if (arr[i] == p) {
            memmove(arr + i, arr + i + 1, (*n - i - 1) * sizeof *arr);
            (*n)--;
            return;
        }
}

/* Frees an op that completed or was dropped. */
static void op_free(struct op *op)
{
    HASH_DEL(pending, op);
    work_release(&op->w);
    free(op->succ);
    free(op->dependents);
    free(op->primaries);
    free(op);
}

/* op ran and its primaries completed: what follows it may start, its dependents may complete. Frees op. */
static void complete(struct op *op)
{
    for (size_t j = 0; j < op->nsucc; j++) {
        struct op *s = op->succ[j];
        if (--s->unmet == 0)
            make_ready(s);
    }
    for (size_t j = 0; j < op->ndependents; j++) {
        struct op *d = op->dependents[j];
        ptr_drop(d->primaries, &d->nprimaries, op);
        if (d->state == OP_RAN && d->nprimaries == 0)
            complete(d);
    }
    op_free(op);
}

/* Runs ready[i]'s work (taken out of the ready list); completes it unless a primary has not completed. */
static void run_ready(size_t i)
{
    struct op *op = ready[i];
    ready[i] = ready[--nready];
    op->state = OP_RUNNING;
    now_ns += work_cost(&op->w);
    struct op *outer = current_op;
    current_op = op;
    cudaError_t fault = work_run(&op->w, op->id);
    current_op = outer;
    if (fault != cudaSuccess)
        set_sticky_error(fault);
    op->state = OP_RAN;
    if (op->nprimaries == 0)
        complete(op);
}

/* Whether a ready op may start: each primary it waits for ran, or may start itself (and so on up). */
static bool startable(const struct op *op)
{
    if (op->state != OP_READY)
        return false;
    for (size_t i = 0; i < op->nprimaries; i++)
        if (op->primaries[i]->state != OP_RAN && !startable(op->primaries[i]))
            return false;
    return true;
}

/* Runs one ready op that may start; false when none may. */
bool sched_step(void)
{
    if (nready == 0)
        return false;
    size_t first = (size_t)(rng_next() % nready);
    for (size_t k = 0; k < nready; k++) {
        size_t i = (first + k) % nready;
        if (startable(ready[i])) {
            run_ready(i);
            return true;
        }
    }
    return false;
}

/* Runs primary p and what p still waits for, until p has completed (a dependent's grid-dependency wait). */
static void finish_primary(struct op *p)
{
    uint64_t id = p->id;
    if (p->state == OP_READY) {
        size_t i = 0;
        while (ready[i] != p)
            i++;
        run_ready(i);
    } else if (p->state != OP_RAN) {
        fputs("standin: a grid-dependency wait for a primary that cannot run\n", stderr);
        abort();
    }
    while (sched_pending(id))
        finish_primary(p->primaries[0]);
}

/* cudaGridDependencySynchronize() in a twin: returns once the running kernel's primaries have completed. */
void standin_grid_dependency_sync(void)
{
    struct op *op = current_op;
    while (op != NULL && op->nprimaries > 0)
        finish_primary(op->primaries[0]);
}

/* cudaTriggerProgrammaticLaunchCompletion() in a twin: the dependents may start before their primary anyway. */
void standin_trigger_launch_completion(void)
{
}

/* Runs ops until id has completed (or a device fault stops the device). */
cudaError_t sched_run_until(uint64_t id)
{
    while (sched_pending(id) && sticky_error() == cudaSuccess) {
        if (!sched_step()) {
            fputs("standin: scheduler deadlock (pending op never ready)\n", stderr);
            abort();
        }
    }
    return sticky_error();
}

/*
 * The query rule: run at most ONE ready op (the seeded choice, of any
 * stream), then answer cudaSuccess if id has run, else cudaErrorNotReady.
 * A polling loop therefore always ends, and the answer depends only on the
 * seed and the calls made, never on time.
 */
cudaError_t sched_query(uint64_t id)
{
    if (sched_pending(id))
        sched_step();
    if (sticky_error() != cudaSuccess)
        return sticky_error();
    return sched_pending(id) ? cudaErrorNotReady : cudaSuccess;
}

/* Runs every queued op (or until a device fault). */
cudaError_t sched_run_all(void)
{
    while (pending && sticky_error() == cudaSuccess) {
        if (!sched_step()) {
            fputs("standin: scheduler deadlock (pending op never ready)\n", stderr);
            abort();
        }
    }
    return sticky_error();
}

/* Drops every queued op unrun (what a faulted device never ran, at a context reset). */
void sched_drop_all(void)
{
    struct op *op, *tmp;
    HASH_ITER(hh, pending, op, tmp)
        op_free(op);
    nready = 0;
}

/* The fake device clock. */
uint64_t sched_now_ns(void)
{
    return now_ns;
}
