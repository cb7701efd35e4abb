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
 * The fake clock advances by a fixed cost per op, so event timing is
 * deterministic, non-negative and ordered along every dependency chain.
 */
#include <stdio.h>
#include <stdlib.h>

#include "standin.h"

struct op {
    uint64_t id;
    struct work w;
    unsigned unmet;         /* preds not yet run */
    struct op **succ;       /* ops waiting for this one */
    size_t nsucc, capsucc;
    UT_hash_handle hh;
};

static struct op *pending;          /* ops not yet run, by id */
static struct op **ready;           /* ops whose preds have all run */
static size_t nready, capready;
static uint64_t next_id = 1;
static uint64_t now_ns;
static uint64_t rng_state;
static bool rng_seeded;

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

/* Queues w to run after the pending ops among preds. */
uint64_t sched_submit(struct work *w, const uint64_t *preds, size_t npreds)
{
    struct op *op = xcalloc(1, sizeof *op);
    op->id = next_id++;
    op->w = *w;
    for (size_t i = 0; i < npreds; i++) {
        struct op *p = NULL;
        if (preds[i] == 0)
            continue;
        HASH_FIND(hh, pending, &preds[i], sizeof preds[i], p);
        if (!p)
            continue;
        if (p->nsucc && p->succ[p->nsucc - 1] == op)
            continue;   /* the same pred listed twice */
        ptr_push((void ***)&p->succ, &p->nsucc, &p->capsucc, op);
        op->unmet++;
    }
    HASH_ADD(hh, pending, id, sizeof op->id, op);
    if (op->unmet == 0) {
        ptr_push((void ***)&ready, &nready, &capready, op);
        device_thread_notify();
    }
    return op->id;
}

/* True while op id has not run. */
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

/* Runs one ready op; false when nothing is ready. */
bool sched_step(void)
{
    if (nready == 0)
        return false;
    size_t i = (size_t)(rng_next() % nready);
    struct op *op = ready[i];
    ready[i] = ready[--nready];

    now_ns += work_cost(&op->w);
    cudaError_t fault = work_run(&op->w, op->id);
    if (fault != cudaSuccess)
        set_sticky_error(fault);

    for (size_t j = 0; j < op->nsucc; j++) {
        struct op *s = op->succ[j];
        if (--s->unmet == 0) {
            ptr_push((void ***)&ready, &nready, &capready, s);
            device_thread_notify();
        }
    }
    HASH_DEL(pending, op);
    work_release(&op->w);
    free(op->succ);
    free(op);
    return true;
}

/* Runs ops until id has run (or a device fault stops the device). */
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
    HASH_ITER(hh, pending, op, tmp) {
        HASH_DEL(pending, op);
        work_release(&op->w);
        free(op->succ);
        free(op);
    }
    nready = 0;
}

/* The fake device clock. */
uint64_t sched_now_ns(void)
{
    return now_ns;
}
