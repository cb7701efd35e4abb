/* Counting what passes through: per function and per stream. */
#include "config.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <uthash.h>

#include "foreign.h"
#include "observe.h"

/* One stream's counters; never freed, so a cached pointer stays valid. */
struct stream_stats {
    cudaStream_t stream;
    atomic_ullong n[ACT_COUNT];
    UT_hash_handle hh;
};

static atomic_ullong hook_calls[HOOK_COUNT];
static atomic_bool launch_seen;
static atomic_ullong allocs_after_first_launch;

static struct stream_stats *streams_by_handle;
static pthread_mutex_t streams_lock = PTHREAD_MUTEX_INITIALIZER;

/* A few recently used streams per thread, so the common case takes no lock. */
#define STREAM_CACHE_SIZE 8
static __thread struct stream_stats *stream_cache[STREAM_CACHE_SIZE] __attribute__((tls_model("initial-exec")));

/* The activities a kind of call counts as (at most two). */
static unsigned activities_of(enum call_kind kind, enum activity out[2])
{
    switch (kind) {
    case CALL_LAUNCH:
    case CALL_LAUNCH_OTHER: out[0] = ACT_LAUNCH; return 1;
    case CALL_HOST_FUNC:
    case CALL_HOST_FUNC_OTHER: out[0] = ACT_HOST_FUNC; return 1;
    case CALL_COPY:
    case CALL_COPY_OTHER: out[0] = ACT_COPY; return 1;
    case CALL_COPY_SYNC: out[0] = ACT_COPY; out[1] = ACT_SYNC; return 2;
    case CALL_SET:
    case CALL_SET_OTHER: out[0] = ACT_SET; return 1;
    case CALL_SET_SYNC: out[0] = ACT_SET; out[1] = ACT_SYNC; return 2;
    case CALL_EVENT_RECORD:
    case CALL_EVENT_RECORD_OTHER: out[0] = ACT_EVENT_RECORD; return 1;
    case CALL_EVENT_WAIT: out[0] = ACT_EVENT_WAIT; return 1;
    case CALL_EVENT_SYNC:
    case CALL_STREAM_SYNC:
    case CALL_DEVICE_SYNC: out[0] = ACT_SYNC; return 1;
    case CALL_EVENT_QUERY:
    case CALL_QUERY: out[0] = ACT_QUERY; return 1;
    case CALL_ALLOC: out[0] = ACT_ALLOC; return 1;
    case CALL_FREE: out[0] = ACT_FREE; return 1;
    case CALL_CAPTURE: out[0] = ACT_CAPTURE; return 1;
    case CALL_GRAPH_LAUNCH: out[0] = ACT_GRAPH_LAUNCH; return 1;
    default: return 0;
    }
}

/* The counters of a stream, created on first sight. */
static struct stream_stats *stats_for(cudaStream_t stream)
{
    unsigned slot = (unsigned)(((uintptr_t)stream >> 4) ^ (uintptr_t)stream) % STREAM_CACHE_SIZE;
    struct stream_stats *stats = stream_cache[slot];
    if (__builtin_expect(stats != NULL && stats->stream == stream, 1))
        return stats;
    pthread_mutex_lock(&streams_lock);
    HASH_FIND_PTR(streams_by_handle, &stream, stats);
    if (stats == NULL) {
        stats = calloc(1, sizeof *stats);
        if (stats) {
            stats->stream = stream;
            HASH_ADD_PTR(streams_by_handle, stream, stats);
        }
    }
    pthread_mutex_unlock(&streams_lock);
    if (stats)
        stream_cache[slot] = stats;
    return stats;
}

/* Counts one call of hook id acting on stream (STREAM_NONE: device-wide). */
void observe_call(enum hook_id id, cudaStream_t stream)
{
    atomic_fetch_add_explicit(&hook_calls[id], 1, memory_order_relaxed);
    enum activity acts[2];
    unsigned count = activities_of(hook_table[id].kind, acts);
    if (count == 0)
        return;
    if (acts[0] == ACT_LAUNCH && !atomic_load_explicit(&launch_seen, memory_order_relaxed))
        atomic_store(&launch_seen, true);
    if (acts[0] == ACT_ALLOC && atomic_load_explicit(&launch_seen, memory_order_relaxed))
        atomic_fetch_add_explicit(&allocs_after_first_launch, 1, memory_order_relaxed);
    struct stream_stats *stats = stats_for(stream);
    if (stats == NULL)
        return;
    for (unsigned i = 0; i < count; i++)
        atomic_fetch_add_explicit(&stats->n[acts[i]], 1, memory_order_relaxed);
}

/* How many times hook id was called. */
unsigned long long observe_hook_calls(enum hook_id id)
{
    return atomic_load_explicit(&hook_calls[id], memory_order_relaxed);
}

/* Calls fn for each stream seen (STREAM_NONE for device-wide calls), in no particular order. */
void observe_each_stream(void (*fn)(cudaStream_t stream, const struct activity_counts *counts, void *ctx),
                         void *ctx)
{
    pthread_mutex_lock(&streams_lock);
    for (struct stream_stats *s = streams_by_handle; s != NULL; s = s->hh.next) {
        struct activity_counts counts;
        for (int a = 0; a < ACT_COUNT; a++)
            counts.n[a] = atomic_load_explicit(&s->n[a], memory_order_relaxed);
        fn(s->stream, &counts, ctx);
    }
    pthread_mutex_unlock(&streams_lock);
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

/* The whole program's profile, for the verdict. */
void observe_profile(struct program_profile *profile)
{
    *profile = (struct program_profile){0};
    for (int id = 0; id < HOOK_COUNT; id++)
        profile->calls += observe_hook_calls(id);
    profile->allocs_after_first_launch = atomic_load(&allocs_after_first_launch);
    profile->foreign_calls = foreign_calls_total();
    observe_each_stream(add_to_profile, profile);
}
