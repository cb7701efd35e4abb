/* SPDX-License-Identifier: MIT */
/* Counting what passes through: per function and per stream. */
#include "config.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <uthash.h>

#include "observe.h"
#include "observe_sequences.h"
#include "settings.h"

/* Driver calls from outside the runtime, per function (direct_calls.c counts them here): all threads together. */
static atomic_ullong driver_calls[DRIVER_COUNT];

/* One stream's counters in one thread's table. */
struct stream_stats {
    cudaStream_t stream;
    atomic_ullong n[ACT_COUNT];
    UT_hash_handle hh;
};

/* The ceiling's timings (observe mode), as struct ceiling counts them. */
struct timings {
    atomic_ullong node_calls, node_ns, between_ns, sync_ns, spans, call_spans, call_spans_ns;
};

/* A few recently used streams per thread, so the common case is no hash lookup. */
#define STREAM_CACHE_SIZE 8

/*
 * One thread's counters.  Only their thread writes them, so a count is a
 * load and a store (no locked instruction, no cache line shared with other
 * threads: a counter every thread bumped with an atomic add cost the
 * launch path three locked instructions and moved its line between cores);
 * summaries add them up, reading relaxed while the thread may still run.
 * When the thread exits its counts move into `retired`.
 */
struct thread_counts {
    atomic_ullong hook_calls[HOOK_COUNT];
    struct timings first; /* the thread's first span with node calls (ceiling_add_thread decides on it) */
    struct timings times;                        /* its later spans, committed at each sync; and every sync's time */
    unsigned long long pending_calls, pending_ns; /* node calls since the last sync: only their thread sees them */
    uint64_t last_sync_end;                      /* the current span's start; 0: neither a sync nor a node call yet */
    struct stream_stats *streams;    /* by handle; added to by its thread under lock, read by others under it */
    pthread_mutex_t lock;
    struct stream_stats *cache[STREAM_CACHE_SIZE];
    struct thread_counts *next;
};

static atomic_bool launch_seen;
static atomic_ullong allocs_after_first_launch;

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct thread_counts *live_threads;                  /* under registry_lock */
/* What exited threads counted, under registry_lock. */
static struct {
    atomic_ullong hook_calls[HOOK_COUNT];
    struct stream_stats *streams;
    struct ceiling ceiling; /* their timings */
} retired;
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;
static __thread struct thread_counts *my_counts __attribute__((tls_model("initial-exec")));

/* Adds n to a counter only this thread writes. */
static inline void add_own(atomic_ullong *counter, unsigned long long n)
{
    atomic_store_explicit(counter, atomic_load_explicit(counter, memory_order_relaxed) + n, memory_order_relaxed);
}

/* Adds one to a counter only this thread writes. */
static inline void bump(atomic_ullong *counter)
{
    add_own(counter, 1);
}

/* Adds from's stream counters into into's table (both locked by the caller, or private). */
static void merge_streams(struct stream_stats **into, const struct stream_stats *from)
{
    for (const struct stream_stats *s = from; s != NULL; s = s->hh.next) {
        struct stream_stats *t;
        HASH_FIND_PTR(*into, &s->stream, t);
        if (t == NULL) {
            t = calloc(1, sizeof *t);
            if (t == NULL)
                continue;
            t->stream = s->stream;
            HASH_ADD_PTR(*into, stream, t);
        }
        for (int a = 0; a < ACT_COUNT; a++)
            atomic_fetch_add_explicit(&t->n[a], atomic_load_explicit(&s->n[a], memory_order_relaxed),
                                      memory_order_relaxed);
    }
}

/* A thread's timings as the ceiling counts them, read relaxed while the thread may still run. */
static struct ceiling timings_read(const struct timings *t)
{
    return (struct ceiling){
        .node_calls = atomic_load_explicit(&t->node_calls, memory_order_relaxed),
        .node_ns = atomic_load_explicit(&t->node_ns, memory_order_relaxed),
        .between_ns = atomic_load_explicit(&t->between_ns, memory_order_relaxed),
        .sync_ns = atomic_load_explicit(&t->sync_ns, memory_order_relaxed),
        .spans = atomic_load_explicit(&t->spans, memory_order_relaxed),
        .call_spans = atomic_load_explicit(&t->call_spans, memory_order_relaxed),
        .call_spans_ns = atomic_load_explicit(&t->call_spans_ns, memory_order_relaxed),
    };
}

/* Adds thread c's timings into total (policy/verdict.c: its first span left out if it was start-up). */
static void add_thread_timings(struct ceiling *total, const struct thread_counts *c)
{
    struct ceiling first = timings_read(&c->first), rest = timings_read(&c->times);
    ceiling_add_thread(total, &first, &rest);
}

/* Frees a table of stream counters. */
static void free_streams(struct stream_stats **table)
{
    struct stream_stats *s, *tmp;
    HASH_ITER(hh, *table, s, tmp) {
        HASH_DEL(*table, s);
        free(s);
    }
}

/* At a thread's exit: its counts move into `retired`, and its block is freed. */
static void retire_thread(void *block)
{
    struct thread_counts *c = block;
    pthread_mutex_lock(&registry_lock);
    for (struct thread_counts **p = &live_threads; *p; p = &(*p)->next)
        if (*p == c) {
            *p = c->next;
            break;
        }
    for (int id = 0; id < HOOK_COUNT; id++)
        atomic_fetch_add_explicit(&retired.hook_calls[id], atomic_load_explicit(&c->hook_calls[id],
                                  memory_order_relaxed), memory_order_relaxed);
    add_thread_timings(&retired.ceiling, c);
    merge_streams(&retired.streams, c->streams);
    pthread_mutex_unlock(&registry_lock);
    free_streams(&c->streams);
    pthread_mutex_destroy(&c->lock);
    if (my_counts == c)
        my_counts = NULL;
    free(c);
}

/* Makes the key whose destructor retires a thread's counters. */
static void make_exit_key(void)
{
    (void)pthread_key_create(&exit_key, retire_thread);
}

/* This thread's counters, made on first use; NULL if memory ran out. */
static struct thread_counts *counts_self(void)
{
    if (__builtin_expect(my_counts != NULL, 1))
        return my_counts;
    struct thread_counts *c = calloc(1, sizeof *c);
    if (c == NULL)
        return NULL;
    pthread_mutex_init(&c->lock, NULL);
    pthread_once(&exit_key_once, make_exit_key);
    pthread_mutex_lock(&registry_lock);
    c->next = live_threads;
    live_threads = c;
    pthread_mutex_unlock(&registry_lock);
    (void)pthread_setspecific(exit_key, c);
    my_counts = c;
    return c;
}

/* The activities a kind of call counts as: call_kinds.def's activity column, and ACT_SYNC for a host sync. */
static unsigned activities_of(enum call_kind kind, enum activity out[2])
{
    enum { NO_ACTIVITY = ACT_COUNT };
    static const unsigned char counted_as[CALL_KIND_COUNT] = {
#define CALL_KIND(kind, name, node, host_sync, order, activity, boundary, owed, target) [CALL_##kind] = activity,
#include "call_kinds.def"
#undef CALL_KIND
    };
    if ((unsigned)kind >= CALL_KIND_COUNT)
        return 0;
    unsigned n = 0;
    if (counted_as[kind] != NO_ACTIVITY)
        out[n++] = (enum activity)counted_as[kind];
    if (call_kind_in(kind, CALL_KINDS_HOST_SYNC))
        out[n++] = ACT_SYNC;
    return n;
}

/* This thread's counters of a stream, created on first sight. */
static struct stream_stats *stats_for(struct thread_counts *c, cudaStream_t stream)
{
    unsigned slot = (unsigned)(((uintptr_t)stream >> 4) ^ (uintptr_t)stream) % STREAM_CACHE_SIZE;
    struct stream_stats *stats = c->cache[slot];
    if (__builtin_expect(stats != NULL && stats->stream == stream, 1))
        return stats;
    HASH_FIND_PTR(c->streams, &stream, stats); /* only this thread changes the table: no lock to read it */
    if (stats == NULL) {
        stats = calloc(1, sizeof *stats);
        if (stats == NULL)
            return NULL;
        stats->stream = stream;
        pthread_mutex_lock(&c->lock);
        HASH_ADD_PTR(c->streams, stream, stats);
        pthread_mutex_unlock(&c->lock);
    }
    c->cache[slot] = stats;
    return stats;
}

/* Counts what one call of kind does on stream (STREAM_NONE: device-wide), whichever door it came by. */
static void count_activity(struct thread_counts *c, enum call_kind kind, cudaStream_t stream)
{
    enum activity acts[2];
    unsigned count = activities_of(kind, acts);
    if (count == 0)
        return;
    if (acts[0] == ACT_LAUNCH && !atomic_load_explicit(&launch_seen, memory_order_relaxed))
        atomic_store(&launch_seen, true);
    if (acts[0] == ACT_ALLOC && atomic_load_explicit(&launch_seen, memory_order_relaxed))
        atomic_fetch_add_explicit(&allocs_after_first_launch, 1, memory_order_relaxed);
    struct stream_stats *stats = stats_for(c, stream);
    if (stats == NULL)
        return;
    for (unsigned i = 0; i < count; i++)
        bump(&stats->n[acts[i]]);
}

/* Counts one call of hook id acting on stream (STREAM_NONE: device-wide). */
void observe_call(enum hook_id id, cudaStream_t stream)
{
    struct thread_counts *c = counts_self();
    if (c == NULL)
        return;
    bump(&c->hook_calls[id]);
    count_activity(c, hook_table[id].kind, stream);
}

/* Counts one call of driver function id from outside the runtime, and what it does (kind), on stream. */
void observe_driver_call(enum driver_id id, enum call_kind kind, cudaStream_t stream, uint64_t target)
{
    atomic_fetch_add_explicit(&driver_calls[id], 1, memory_order_relaxed);
    if (!shim_auto) /* observe mode follows sequences itself (auto's engine does there) */
        observe_sequence_call((uint32_t)CALL_API_DRIVER(id), kind, stream, target);
    struct thread_counts *c = counts_self();
    if (c != NULL)
        count_activity(c, kind, stream);
}

/* A node call that began at start has returned: its time is submission time of the span under way. */
void observe_node_done(uint64_t start)
{
    uint64_t end = monotonic_ns();
    struct thread_counts *c = counts_self();
    if (c == NULL)
        return;
    if (c->last_sync_end == 0)
        c->last_sync_end = start; /* a thread's first span begins with its first node call (a sync-free loop's) */
    c->pending_calls++;
    c->pending_ns += end - start;
}

/* A host sync that began at start has returned: the span since the last one ends (its node calls count), the next begins. */
void observe_sync_done(uint64_t start)
{
    uint64_t end = monotonic_ns();
    struct thread_counts *c = counts_self();
    if (c == NULL)
        return;
    if (c->last_sync_end != 0 && start > c->last_sync_end) {
        /* The thread's first span with node calls is kept apart: it may be start-up (ceiling_add_thread). */
        struct timings *span =
            c->pending_calls == 0 || atomic_load_explicit(&c->first.spans, memory_order_relaxed) ? &c->times : &c->first;
        add_own(&span->between_ns, start - c->last_sync_end);
        add_own(&span->node_ns, c->pending_ns);
        add_own(&span->node_calls, c->pending_calls);
        bump(&span->spans);
        if (c->pending_calls) {
            bump(&span->call_spans);
            add_own(&span->call_spans_ns, start - c->last_sync_end);
        }
    }
    add_own(&c->times.sync_ns, end - start);
    c->pending_calls = c->pending_ns = 0;
    c->last_sync_end = end;
}

/* How many calls of driver function id from outside the runtime were seen. */
unsigned long long observe_driver_calls(enum driver_id id)
{
    return atomic_load_explicit(&driver_calls[id], memory_order_relaxed);
}

/* Communication libraries' calls that could have been nodes, all passed through: a relaxed add, a few per collective. */
static atomic_ullong communication_calls;

/* Counts a call a communication library made that could have been a node. */
void observe_communication_call(void)
{
    atomic_fetch_add_explicit(&communication_calls, 1, memory_order_relaxed);
}

/* How many such calls of communication libraries were seen. */
unsigned long long observe_communication_calls(void)
{
    return atomic_load_explicit(&communication_calls, memory_order_relaxed);
}

/* Every driver call from outside the runtime seen, all functions together. */
static unsigned long long driver_calls_total(void)
{
    unsigned long long total = 0;
    for (int id = 0; id < DRIVER_COUNT; id++)
        total += observe_driver_calls(id);
    return total;
}

/* How many times hook id was called, by every thread. */
unsigned long long observe_hook_calls(enum hook_id id)
{
    pthread_mutex_lock(&registry_lock);
    unsigned long long n = atomic_load_explicit(&retired.hook_calls[id], memory_order_relaxed);
    for (const struct thread_counts *c = live_threads; c; c = c->next)
        n += atomic_load_explicit(&c->hook_calls[id], memory_order_relaxed);
    pthread_mutex_unlock(&registry_lock);
    return n;
}

/* Calls fn for each stream seen (STREAM_NONE for device-wide calls), in no particular order. */
void observe_each_stream(void (*fn)(cudaStream_t stream, const struct activity_counts *counts, void *ctx),
                         void *ctx)
{
    struct stream_stats *merged = NULL;
    pthread_mutex_lock(&registry_lock);
    merge_streams(&merged, retired.streams);
    for (struct thread_counts *c = live_threads; c; c = c->next) {
        pthread_mutex_lock(&c->lock);
        merge_streams(&merged, c->streams);
        pthread_mutex_unlock(&c->lock);
    }
    pthread_mutex_unlock(&registry_lock);
    for (struct stream_stats *s = merged; s != NULL; s = s->hh.next) {
        struct activity_counts counts;
        for (int a = 0; a < ACT_COUNT; a++)
            counts.n[a] = atomic_load_explicit(&s->n[a], memory_order_relaxed);
        fn(s->stream, &counts, ctx);
    }
    free_streams(&merged);
}

/* Adds one stream's counts to the profile. */
static void add_to_profile(cudaStream_t stream, const struct activity_counts *counts, void *ctx)
{
    struct program_profile *profile = ctx;
    bool carried_work = false;
    for (int a = 0; a < ACT_COUNT; a++) {
        profile->total.n[a] += counts->n[a];
        if (a == ACT_LAUNCH || a == ACT_HOST_FUNC || a == ACT_COPY || a == ACT_SET || a == ACT_EVENT_RECORD ||
            a == ACT_GRAPH_LAUNCH)
            carried_work |= counts->n[a] != 0;
    }
    if (stream != STREAM_NONE && carried_work)
        profile->streams++;
}

/* Every thread's committed timings added up. */
static void timings_total(struct ceiling *out)
{
    pthread_mutex_lock(&registry_lock);
    *out = retired.ceiling;
    for (const struct thread_counts *c = live_threads; c; c = c->next)
        add_thread_timings(out, c);
    pthread_mutex_unlock(&registry_lock);
}

/* The whole program's profile, for the verdict. */
void observe_profile(struct program_profile *profile)
{
    *profile = (struct program_profile){0};
    timings_total(&profile->ceiling);
    for (int id = 0; id < HOOK_COUNT; id++)
        profile->calls += observe_hook_calls(id);
    profile->allocs_after_first_launch = atomic_load(&allocs_after_first_launch);
    profile->direct_calls = driver_calls_total();
    observe_each_stream(add_to_profile, profile);
}
