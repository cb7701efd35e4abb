/* Automatic graphs: follows each thread's calls, replays known regions as graphs, falls back safely. */
#include "config.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "errors.h"
#include "exclusions.h"
#include "graph_trial.h"
#include "hidden_work.h"
#include "libcuda.h"
#include "log.h"
#include "period.h"
#include "profiler.h"
#include "real.h"
#include "record.h"
#include "region_capture.h"
#include "region_graph.h"
#include "regions.h"
#include "runtime.h"
#include "shim.h"
#include "stream_order.h"
#include "summary.h"
#include "trace.h"
#include "watchdog.h"

/* Pageable copies larger than this are not held back: staging them would cost more than a launch saves. */
#define STAGING_MAX (16u << 20)

/* A sync-free loop is cut into regions of whole periods, about this many calls each. */
#define PERIODIC_REGION_CALLS 64

/* What a thread is doing with its current sequence of calls. */
enum follow_mode {
    FOLLOW_NONE,   /* passing through, learning */
    FOLLOW_RECORD, /* passing through and recording, to build a graph at its end */
    FOLLOW_REPLAY, /* holding calls back, to launch a graph at its end */
    FOLLOW_RECAPTURE, /* forwarding calls into a capture of the region's streams, to launch it at its end */
};

/* One host thread's view: the calls since its last boundary, and the regions it has learnt. */
struct tracker {
    atomic_bool busy;     /* a lock: its own thread takes it on every call; another only to submit held-back work */
    enum follow_mode mode;
    struct region *region;
    struct call_sig *observed;
    unsigned observed_count, observed_capacity;
    /* While calls match the followed region, their signatures are its own:
       only observed[0..observed_stored) is written, the rest is copied from
       the region when needed (materialize_observed), saving a copy a call. */
    unsigned observed_stored;
    bool overflow;
    struct record_list records;
    bool pending;         /* records hold calls not yet submitted */
    /* The streams and events the held-back calls use, for other threads to check against. */
    const void *held_streams[8];
    unsigned held_stream_count;
    const void *held_events[16];
    unsigned held_event_count;
    bool held_everything; /* too many to list: assume any call interacts */
    struct period_detector *periods; /* fed once a sequence outgrows max_calls: a sync-free loop */
    unsigned period;      /* nonzero: cut the calls into regions of this many, without waiting for a sync */
    struct region_table table;
    struct capture_session capture; /* FOLLOW_RECAPTURE: the capture in progress */
    bool foreign_in_sequence;       /* driver-API work arrived inside the current sequence */
    /* Another thread submitted held-back per-thread-stream work on the legacy stream, up to moved_work:
       this thread's stream must wait for it before its next call (rejoin_moved_work). */
    atomic_bool moved_pending;      /* set under the lock; read without it by foreign calls */
    cudaEvent_t moved_work;
    struct trial_timer trial;       /* the occurrence of a region on trial being timed, if any */
    /* For the watchdog: its own thread bumps activity as it holds a call back; the watchdog alone
       writes watched_*, the activity it saw at round watched_round. */
    atomic_uint activity;
    atomic_bool forwarding;         /* a foreign call taken into the capture is being forwarded */
    unsigned watched_activity;
    unsigned long watched_round;
    /* The first error of this thread's held-back calls that another thread (or the watchdog)
       submitted: the program reads it from cudaGetLastError, as if it had submitted them itself. */
    _Atomic cudaError_t error_from_others;
    /* The first error of this thread's held-back driver calls, submitted late by anyone: the driver keeps no
       last error, so its next wait through the driver (engine_driver_error_owed) returns it. */
    _Atomic CUresult driver_error_owed;
    CUcontext context;              /* current when its held-back work began: where others submit it */
    unsigned thread_number;
    struct tracker *next;
};

static struct region_policy policy;

static void materialize_observed(struct tracker *t);
static pthread_mutex_t trackers_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tracker *trackers;
static atomic_int pending_trackers;  /* trackers holding calls back */
static atomic_int program_captures;  /* the program's own captures in progress */
static atomic_int shim_captures;     /* the shim's robust-path captures in progress */
static atomic_int threads_seen;      /* host threads that have made CUDA calls (trackers made) */
static atomic_bool shut_down;
static __thread struct tracker *self __attribute__((tls_model("initial-exec")));
/* Set while this thread runs the engine: driver calls the shim's own runtime calls make are never foreign. */
static __thread bool in_engine __attribute__((tls_model("initial-exec")));

/*
 * Takes t's lock.  Not a pthread mutex: its own thread takes it on every
 * call, almost always free, and one atomic exchange is all that costs;
 * another thread holds it only while it submits t's held-back work, so a
 * waiter yields rather than sleeps.
 */
static inline void tracker_lock(struct tracker *t)
{
    while (__builtin_expect(atomic_exchange_explicit(&t->busy, true, memory_order_acquire), 0))
        sched_yield();
}

/* Releases t's lock. */
static inline void tracker_unlock(struct tracker *t)
{
    atomic_store_explicit(&t->busy, false, memory_order_release);
}

/* Reads the engine's options; called once at init when the mode is auto. */
void engine_configure(void)
{
    policy.min_repeats = (unsigned)shim_options.num[OPT_MIN_REPEATS];
    policy.min_calls = (unsigned)shim_options.num[OPT_MIN_REGION_CALLS];
    policy.max_calls = (unsigned)shim_options.num[OPT_MAX_REGION_CALLS];
    policy.max_graphs = (unsigned)shim_options.num[OPT_MAX_GRAPHS];
    policy.max_regions = policy.max_graphs * 4 + 64;
    policy.trial_pairs = (unsigned)shim_options.num[OPT_TRIAL];
    exclusions_configure();
}

static void end_captures_for_second_thread(struct tracker *me);

/* This thread's tracker, created on its first call; NULL if memory ran out. */
static struct tracker *tracker_self(void)
{
    if (__builtin_expect(self != NULL, 1))
        return self;
    struct tracker *t = calloc(1, sizeof *t);
    if (t == NULL)
        return NULL;
    regions_init(&t->table, &policy);
    t->thread_number = log_thread_number();
    pthread_mutex_lock(&trackers_lock);
    t->next = trackers;
    trackers = t;
    int threads = atomic_fetch_add(&threads_seen, 1) + 1;
    pthread_mutex_unlock(&trackers_lock);
    self = t;
    if (threads == 2)
        end_captures_for_second_thread(t);
    return t;
}

/* Whether threads other than me (NULL: any) hold calls back. */
static inline bool others_hold_work(const struct tracker *me)
{
    return atomic_load_explicit(&pending_trackers, memory_order_relaxed) > (me && me->pending ? 1 : 0);
}

/* Counts a capture of the program's own beginning (delta 1) or ending (-1). */
static void note_program_capture(int delta)
{
    if (delta > 0)
        atomic_fetch_add(&program_captures, 1);
    else if (delta < 0 && atomic_load(&program_captures) > 0)
        atomic_fetch_sub(&program_captures, 1);
}

/* Tells the watchdog that t added a call to its held-back work: a plain store, only t's thread writes it. */
static inline void note_progress(struct tracker *t)
{
    atomic_store_explicit(&t->activity, atomic_load_explicit(&t->activity, memory_order_relaxed) + 1,
                          memory_order_relaxed);
}

/* Marks whether t holds calls back. */
static void set_pending(struct tracker *t, bool pending)
{
    if (t->pending != pending) {
        __atomic_store_n(&t->pending, pending, __ATOMIC_RELAXED); /* the watchdog reads it without the lock */
        atomic_fetch_add(&pending_trackers, pending ? 1 : -1);
        if (pending)
            watchdog_note_held();
    }
    if (!pending) {
        t->held_stream_count = 0;
        t->held_event_count = 0;
        t->held_everything = false;
    }
}

/* Adds item to a small set; false if it was not there and the set is full. */
static bool add_unique(const void **set, unsigned *count, unsigned capacity, const void *item)
{
    for (unsigned i = 0; i < *count; i++)
        if (set[i] == item)
            return true;
    if (*count == capacity)
        return false;
    set[(*count)++] = item;
    return true;
}

/* Notes the stream and event a held-back call uses. */
static void note_held(struct tracker *t, const struct call *c)
{
    /* Most held-back calls are on the stream of the call before them. */
    bool same_stream = t->held_stream_count > 0 && t->held_streams[t->held_stream_count - 1] == c->stream;
    unsigned stream_capacity = sizeof t->held_streams / sizeof *t->held_streams;
    if (!same_stream && !add_unique(t->held_streams, &t->held_stream_count, stream_capacity, c->stream))
        t->held_everything = true;
    if ((c->kind == CALL_EVENT_RECORD || c->kind == CALL_EVENT_WAIT) &&
        !add_unique(t->held_events, &t->held_event_count, sizeof t->held_events / sizeof *t->held_events, c->event))
        t->held_everything = true;
}

/* Whether another thread's call c could be ordered against the work t holds back. */
static bool interacts(const struct tracker *t, const struct call *c)
{
    switch (c->kind) {
    case CALL_ERROR_CHECK:
    case CALL_EVENT_CREATE:
    case CALL_STREAM_CREATE:
    case CALL_CAPTURE_QUERY:
    case CALL_CAPTURE_STATUS:
    case CALL_CAPTURE_INFO:
        return false;
    case CALL_LAUNCH:
    case CALL_COPY:
    case CALL_SET:
    case CALL_HOST_FUNC:
    case CALL_EVENT_RECORD:
    case CALL_EVENT_WAIT:
    case CALL_STREAM_SYNC:
    case CALL_QUERY:
    case CALL_EVENT_SYNC:
    case CALL_EVENT_QUERY:
        break;
    default:
        return true; /* device-wide: syncs, allocations, frees, graphs, other copies */
    }
    if (t->held_everything)
        return true;
    bool has_stream = c->kind != CALL_EVENT_SYNC && c->kind != CALL_EVENT_QUERY;
    /* The legacy stream waits for, and is waited for by, every blocking stream. */
    if (has_stream && c->stream == cudaStreamLegacy)
        return true;
    /* cudaStreamPerThread names each thread's own stream: the same handle is never the same stream here. */
    bool same_stream_possible = has_stream && c->stream != cudaStreamPerThread;
    for (unsigned i = 0; i < t->held_stream_count; i++)
        if (t->held_streams[i] == (const void *)cudaStreamLegacy ||
            (same_stream_possible && t->held_streams[i] == c->stream))
            return true;
    bool has_event = c->kind == CALL_EVENT_RECORD || c->kind == CALL_EVENT_WAIT || c->kind == CALL_EVENT_SYNC ||
                     c->kind == CALL_EVENT_QUERY;
    for (unsigned i = 0; has_event && i < t->held_event_count; i++)
        if (t->held_events[i] == c->event)
            return true;
    return false;
}

/* Whether any held-back call of t is on its per-thread default stream. */
static bool holds_per_thread_work(const struct tracker *t)
{
    for (unsigned i = 0; i < t->records.count; i++)
        if (t->records.calls[i].call.stream == cudaStreamPerThread)
            return true;
    return false;
}

/*
 * After another thread submitted t's per-thread-stream work on the legacy
 * stream: marks the legacy stream's position, for t's stream to wait for
 * at t's next call.  Later work on t's stream waits for the legacy stream
 * anyway, but a sync or query of that stream with nothing new on it would
 * not (found by tests/fuzz/threads_differential.sh).
 */
static void note_moved_work(struct tracker *t)
{
    CUresult err = private_event(&t->moved_work);
    if (err == CUDA_SUCCESS)
        err = DEVICE_CALL(cuEventRecord, t->moved_work, cudaStreamLegacy);
    if (err == CUDA_SUCCESS)
        atomic_store_explicit(&t->moved_pending, true, memory_order_relaxed);
    else
        log_warn("thread %u's held-back work was submitted from another thread on the legacy stream, and its own "
                 "stream could not be made to wait for it (%s): a sync of that stream alone may return early",
                 t->thread_number, libcuda_error_name(err));
}

/* At this thread's next call after another thread moved its per-thread work: its stream waits for that work. */
static void rejoin_moved_work(struct tracker *t)
{
    (void)DEVICE_CALL(cuStreamWaitEvent, cudaStreamPerThread, t->moved_work, 0);
    atomic_store_explicit(&t->moved_pending, false, memory_order_relaxed);
}

/* Submits the held-back calls one by one, in the order the program made them (from any thread: see record.h). */
static void submit_held_back(struct tracker *t)
{
    bool owner = t == self;
    /* Another thread submits in the owner's context: the driver's calls act on the current one. */
    CUcontext mine = NULL;
    bool switched = !owner && t->context != NULL && DEVICE_CALL(cuCtxGetCurrent, &mine) == CUDA_SUCCESS &&
                    mine != t->context && DEVICE_CALL(cuCtxSetCurrent, t->context) == CUDA_SUCCESS;
    CUresult driver_error;
    cudaError_t error = record_forward_all(&t->records, owner ? cudaStreamPerThread : cudaStreamLegacy, &driver_error);
    if (switched)
        (void)DEVICE_CALL(cuCtxSetCurrent, mine);
    if (driver_error != CUDA_SUCCESS) {
        CUresult none = CUDA_SUCCESS;
        atomic_compare_exchange_strong(&t->driver_error_owed, &none, driver_error);
    }
    if (!owner) {
        cudaError_t none = cudaSuccess;
        if (error != cudaSuccess)
            atomic_compare_exchange_strong(&t->error_from_others, &none, error);
        if (holds_per_thread_work(t))
            note_moved_work(t);
    }
    set_pending(t, false);
}

/* Ends this thread's robust-path capture and runs what it holds (see capture_finish); nothing is pending after. */
static enum capture_outcome end_capture(struct tracker *t, struct region_capture **rc, bool keep, cudaError_t *error)
{
    enum capture_outcome outcome = capture_finish(&t->capture, rc, keep, &t->records, error);
    atomic_fetch_sub(&shim_captures, 1);
    set_pending(t, false);
    return outcome;
}

/* Ends a robust-path capture early: runs what it holds once, in order (logged if the capture was lost). */
static void release_capture(struct tracker *t)
{
    struct region_capture *none = NULL;
    cudaError_t error;
    enum capture_outcome outcome = end_capture(t, &none, false, &error);
    if (outcome == CAPTURE_RESUBMITTED) {
        char who[256];
        if (hidden_work_possible(who, sizeof who))
            log_warn("a capture of the robust path was lost (%s): the %u calls the shim saw were submitted one by "
                     "one; work that %s submitted into that capture did not run",
                     cudaGetErrorName(error), t->records.count, who);
        else
            log_info("a capture of the robust path was lost (%s): its %u calls were submitted one by one",
                     cudaGetErrorName(error), t->records.count);
    }
}

/* Makes the work held back or captured so far run, in the program's order. */
static void release_held(struct tracker *t)
{
    if (t->capture.active)
        release_capture(t);
    else
        submit_held_back(t);
}

static void destroy_graph_of(struct region *r);

/* Gives up replaying: submits what was held back and backs the region off. */
static void fall_back(struct tracker *t, enum fallback_reason reason, const char *detail)
{
    struct region *r = t->region;
    materialize_observed(t);
    unsigned held = t->records.count;
    release_held(t);
    bool refused = regions_failed(&t->table, r, reason);
    char next[160];
    if (refused)
        snprintf(next, sizeof next, "not graphed again: its held-back work timed out %u times in a row (the program "
                 "waits for the GPU without a CUDA call)", r->timeouts);
    else
        snprintf(next, sizeof next, "passing through until it is stable again (%u sightings)",
                 regions_backoff_needed(&t->table, r));
    log_info("region %u: fell back after %u of %u calls (%s%s%s); %s", r->id, held, r->length,
             fallback_reason_name(reason), detail ? ": " : "", detail ? detail : "", next);
    /* "thread" names the region's thread: the watchdog and other threads fall back regions not their own. */
    trace_event("fallback", "\"region\":%u,\"thread\":%u,\"reason\":\"%s\",\"after\":%u,\"length\":%u", r->id,
                t->thread_number, fallback_reason_name(reason), held, r->length);
    if (refused) {
        trace_event("not_graphed", "\"region\":%u,\"thread\":%u,\"why\":\"deferral_timeout\"", r->id,
                    t->thread_number);
        if (r->graph) {
            destroy_graph_of(r);
            regions_graph_dropped(&t->table, r);
        }
    }
    t->mode = FOLLOW_NONE;
    t->region = NULL;
}

/*
 * A call must not overtake work another thread holds back or captures that
 * it could be ordered against: submits, first, the work of every other
 * thread that must_submit says (interacts, for call c); why and name go to
 * the log.  Returns how many threads' work it submitted.
 */
static unsigned submit_other_threads(struct tracker *me, bool (*must_submit)(const struct tracker *, const struct call *),
                                     const struct call *c, enum fallback_reason why, const char *name)
{
    unsigned submitted = 0;
    pthread_mutex_lock(&trackers_lock);
    for (struct tracker *t = trackers; t; t = t->next) {
        if (t == me || !t->pending)
            continue;
        tracker_lock(t);
        if (t->pending && (t->mode == FOLLOW_REPLAY || t->mode == FOLLOW_RECAPTURE) && must_submit(t, c)) {
            fall_back(t, why, name);
            submitted++;
        }
        tracker_unlock(t);
    }
    pthread_mutex_unlock(&trackers_lock);
    return submitted;
}

/* Whether t is capturing on the robust path (the call does not matter). */
static bool capturing(const struct tracker *t, const struct call *c)
{
    (void)c;
    return t->mode == FOLLOW_RECAPTURE;
}

/*
 * The robust path keeps one host thread at most: another thread's call that
 * touches a captured stream or event (a sync, a query, the legacy stream
 * while a blocking stream captures) must find no capture, and between
 * ending a capture for it and forwarding it the owner could begin the next
 * one (the multi-threaded differential test caught programs getting
 * cudaErrorStreamCaptureUnsupported so).  So once a second thread makes a
 * CUDA call, no capture begins again (start_recapture), and the ones in
 * progress end here, before that call goes on.
 */
static void end_captures_for_second_thread(struct tracker *me)
{
    unsigned ended = submit_other_threads(me, capturing, NULL, FALLBACK_THREAD, "a second host thread");
    if (shim_options.num[OPT_REPLAY] == REPLAY_ROBUST || ended || atomic_load(&shim_captures) > 0)
        log_info("a second host thread makes CUDA calls: the robust path is off from now on (its captures cannot be "
                 "kept out of other threads' way); regions that need it pass through");
}

/* Where the memory behind a host-side pointer lives (libcuda does not know pageable memory). */
static enum host_memory memory_of(const void *ptr)
{
    CUmemorytype type = 0;
    if (DEVICE_CALL(cuPointerGetAttribute, &type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)ptr) !=
        CUDA_SUCCESS)
        return MEMORY_PAGEABLE;
    return type == CU_MEMORYTYPE_HOST ? MEMORY_PINNED : MEMORY_DEVICE;
}

/* Makes room for n observed signatures; false (and overflow) if it cannot. */
static bool observed_reserve(struct tracker *t, unsigned n)
{
    while (n > t->observed_capacity) {
        unsigned capacity = t->observed_capacity ? t->observed_capacity * 2 : 256;
        if (capacity > policy.max_calls + 1)
            capacity = policy.max_calls + 1;
        struct call_sig *grown =
            capacity > t->observed_capacity ? realloc(t->observed, sizeof *grown * capacity) : NULL;
        if (grown == NULL) {
            t->overflow = true;
            return false;
        }
        t->observed = grown;
        t->observed_capacity = capacity;
    }
    return true;
}

/* Writes out the signatures counted while they matched the followed region. */
static void materialize_observed(struct tracker *t)
{
    if (t->observed_stored == t->observed_count || t->region == NULL)
        return;
    if (observed_reserve(t, t->observed_count))
        memcpy(t->observed + t->observed_stored, t->region->sigs + t->observed_stored,
               sizeof *t->observed * (t->observed_count - t->observed_stored));
    t->observed_stored = t->observed_count;
}

/* Appends a signature to the sequence being observed. */
static void observe_sig(struct tracker *t, const struct call_sig *sig)
{
    materialize_observed(t);
    if (t->overflow || !observed_reserve(t, t->observed_count + 1))
        return;
    t->observed[t->observed_count++] = *sig;
    t->observed_stored = t->observed_count;
}

static pthread_once_t exit_hook_once = PTHREAD_ONCE_INIT;

/* Runs engine_shutdown at exit before the runtime's own exit handlers, which were registered earlier. */
static void register_exit_hook(void)
{
    atexit(engine_shutdown);
}

/* Whether graphs must not be built now: a profiler is attached and REPRISE_PROFILER says step aside. */
static bool profiler_forbids(void)
{
    static atomic_bool told;
    char why[256];
    if (shim_options.num[OPT_PROFILER] != PROFILER_STEP_ASIDE || !profiler_attached(why, sizeof why))
        return false;
    if (!atomic_exchange(&told, true))
        log_info("a profiler is attached (%s): graphing nothing, so that it measures the program as written "
                 "(REPRISE_PROFILER=ignore graphs anyway)",
                 why);
    return true;
}

/* Fails region r for reason without a graph, saying why in the log (log_why; NULL: not there) and the trace. */
static void not_graphed(struct tracker *t, struct region *r, enum fallback_reason reason, const char *log_why,
                        const char *trace_why)
{
    if (log_why)
        log_info("region %u: not graphed: %s", r->id, log_why);
    trace_event("not_graphed", "\"region\":%u,\"why\":\"%s\"", r->id, trace_why);
    regions_failed(&t->table, r, reason);
}

/* Whether the user's policies keep r out of graphs now (a profiler, REPRISE_EXCLUDE_*): then it is failed, and said. */
static bool user_refuses(struct tracker *t, struct region *r)
{
    char why[320];
    if (profiler_forbids()) {
        not_graphed(t, r, FALLBACK_PROFILER, NULL, "a profiler is attached");
        return true;
    }
    if (!region_excluded(r->sigs, r->length, why, sizeof why))
        return false;
    not_graphed(t, r, FALLBACK_EXCLUDED, why, "excluded");
    return true;
}

/* Whether no watchdog can bound the wait of r's held-back work (its thread would not start): then r is failed, and said. */
static bool watchdog_refuses(struct tracker *t, struct region *r)
{
    if (watchdog_ensure())
        return false;
    not_graphed(t, r, FALLBACK_UNSUPPORTED, NULL, "no watchdog");
    return true;
}

/* Destroys a region's graph, whichever path made it. */
static void destroy_graph_of(struct region *r)
{
    if (r->robust)
        region_capture_destroy(r->graph);
    else
        region_graph_destroy(r->graph);
}

/*
 * Registers a region's new graph (robust: a region_capture, else a
 * region_graph), evicting the least recently used one if there are too
 * many, and puts it on trial from the next occurrence (this one made it).
 */
static void keep_graph(struct tracker *t, struct region *r, void *graph, bool robust)
{
    r->robust = robust;
    struct region *victim = regions_graph_built(&t->table, r, graph);
    if (victim) {
        log_info("region %u: graph evicted (least recently used; REPRISE_MAX_GRAPHS=%u)", victim->id,
                 policy.max_graphs);
        trace_event("evicted", "\"region\":%u", victim->id);
        destroy_graph_of(victim);
        regions_evicted(&t->table, victim);
    }
    payoff_start(&r->trial, policy.trial_pairs);
}

/* Builds the graph of the occurrence just recorded. */
static void build_graph(struct tracker *t)
{
    struct region *r = t->region;
    char why[256];
    pthread_once(&exit_hook_once, register_exit_hook);
    if (shim_options.num[OPT_REPLAY] == REPLAY_ROBUST) {
        /* The robust path chose not to capture it (see start_sequence): its first stream cannot be captured. */
        not_graphed(t, r, FALLBACK_UNSUPPORTED,
                    "REPRISE_REPLAY=robust, and it starts on the legacy or per-thread default stream, which cannot "
                    "be captured",
                    "robust path on an uncapturable stream");
        return;
    }
    if (user_refuses(t, r))
        return;
    if (watchdog_refuses(t, r))
        return;
    if (hidden_work_possible(why, sizeof why)) {
        char unseen[320];
        snprintf(unseen, sizeof unseen, "work may reach the GPU unseen: %s", why);
        not_graphed(t, r, FALLBACK_HIDDEN_WORK, unseen, unseen);
        return;
    }
    bool unsupported;
    struct region_graph *g = region_graph_build(&t->records, why, sizeof why, &unsupported);
    if (g == NULL) {
        not_graphed(t, r, unsupported ? FALLBACK_UNSUPPORTED : FALLBACK_GRAPH_ERROR, why, why);
        return;
    }
    unsigned nodes, streams;
    region_graph_shape(g, &nodes, &streams);
    log_info("region %u: graph built (%u nodes on %u stream%s); replaying from its next occurrence", r->id, nodes,
             streams, streams == 1 ? "" : "s");
    trace_event("graph_built", "\"region\":%u,\"nodes\":%u,\"streams\":%u,\"path\":\"fast\"", r->id, nodes,
                streams);
    keep_graph(t, r, g, false);
}

/* Ends the capture of a complete occurrence on the robust path: update (or make) the graph, launch it; true if so. */
static bool finish_recapture(struct tracker *t)
{
    struct region *r = t->region;
    bool first = r->graph == NULL;
    struct region_capture *rc = r->graph;
    cudaError_t error;
    enum capture_outcome outcome = end_capture(t, &rc, true, &error);
    if (first && outcome != CAPTURE_RESUBMITTED) {
        log_info("region %u: graph captured on the robust path (%u calls re-captured each time, applied with "
                 "cudaGraphExecUpdate)",
                 r->id, r->length);
        /* Its node count is the capture's, which holds work the shim did not see: give the calls it saw. */
        trace_event("graph_built", "\"region\":%u,\"calls\":%u,\"streams\":%u,\"path\":\"robust\"", r->id,
                    r->length, t->capture.stream_count);
        keep_graph(t, r, rc, true);
    } else if (first) {
        region_capture_destroy(rc);
    }
    if (outcome == CAPTURE_RESUBMITTED) {
        regions_failed(&t->table, r, FALLBACK_GRAPH_ERROR);
        log_info("region %u: fell back: the capture failed (%s); its calls were submitted one by one", r->id,
                 cudaGetErrorName(error));
        trace_event("fallback", "\"region\":%u,\"reason\":\"graph_error\",\"after\":%u,\"length\":%u", r->id,
                    t->records.count, r->length);
        return false;
    }
    bool announce = r->stats.recaptures == 0;
    regions_recaptured(&t->table, r);
    if (announce)
        log_info("region %u: replayed on the robust path (%s)", r->id,
                 outcome == CAPTURE_UPDATED ? "executable graph updated" : "instantiated");
    else if (outcome == CAPTURE_INSTANTIATED)
        log_debug("region %u: cudaGraphExecUpdate refused the new capture; instantiated again", r->id);
    return true;
}

/* Launches the graph for a complete replayed occurrence, or submits the calls if that fails; true if launched. */
static bool launch_replay(struct tracker *t)
{
    struct region *r = t->region;
    char who[256];
    if (hidden_work_possible(who, sizeof who)) {
        fall_back(t, FALLBACK_HIDDEN_WORK, who);
        return false;
    }
    cudaError_t error;
    int patched = region_graph_launch(r->graph, &t->records, &error);
    if (patched < 0) {
        fall_back(t, FALLBACK_GRAPH_ERROR, cudaGetErrorName(error));
        return false;
    }
    set_pending(t, false);
    bool first = r->stats.replays == 0;
    regions_replayed(&t->table, r, (unsigned)patched);
    if (first)
        log_info("region %u: replayed as a graph (%u calls in one launch, %d nodes patched)", r->id, r->length,
                 patched);
    else
        log_debug("region %u: replayed (%d nodes patched)", r->id, patched);
    return true;
}

/* The reason to give when a boundary of this kind cuts a replay short. */
static enum fallback_reason boundary_reason(enum call_kind kind)
{
    switch (kind) {
    case CALL_QUERY:
    case CALL_EVENT_QUERY:
    case CALL_EVENT_SYNC:
    case CALL_STREAM_SYNC:
    case CALL_DEVICE_SYNC:
    case CALL_COPY_SYNC:
    case CALL_SET_SYNC: return FALLBACK_SYNC_INSIDE;
    case CALL_ALLOC:
    case CALL_FREE: return FALLBACK_ALLOCATION;
    case CALL_CAPTURE:
    case CALL_GRAPH_LAUNCH: return FALLBACK_PROGRAM_GRAPH;
    default: return FALLBACK_MISMATCH;
    }
}

/* Forgets the calls observed and recorded since the sequence began and what they followed; the next call starts a new one. */
static void forget_sequence(struct tracker *t)
{
    t->observed_count = 0;
    t->observed_stored = 0;
    t->overflow = false;
    t->mode = FOLLOW_NONE;
    t->region = NULL;
    record_reset(&t->records);
}

/*
 * Ends the current sequence: launch, build or learn.  at_sync: before a
 * boundary call is forwarded (false: a sync-free loop's cut); a replay it
 * cuts short falls back for reason, naming the call (name).
 */
static void end_sequence(struct tracker *t, bool at_sync, enum fallback_reason reason, const char *name)
{
    struct region *r = t->region;
    /* A sequence that matched r call by call is r: its signatures need not be written out, hashed and compared. */
    bool exactly_r = r != NULL && t->observed_stored == 0 && t->observed_count == r->length;
    if (!exactly_r)
        materialize_observed(t);
    if (at_sync && t->period) {
        /* A sync ends the sync-free stretch: look for regions between syncs again. */
        t->period = 0;
        period_reset(t->periods);
    }
    struct region *graphed = NULL; /* r, once its occurrence ran as its graph */
    if (t->mode == FOLLOW_REPLAY || t->mode == FOLLOW_RECAPTURE) {
        if (t->records.count < r->length)
            fall_back(t, reason, name);
        else if (t->mode == FOLLOW_REPLAY ? launch_replay(t) : finish_recapture(t))
            graphed = r;
    } else if (t->mode == FOLLOW_RECORD && t->records.count == r->length && r->state == REGION_WANTED) {
        build_graph(t);
    }
    struct region *seen = NULL;
    if (!t->overflow && t->observed_count > 0) {
        seen = exactly_r ? regions_sighting_of(&t->table, r)
                         : regions_sighting(&t->table, t->observed, t->observed_count);
        if (seen && t->foreign_in_sequence && !seen->needs_robust) {
            seen->needs_robust = true;
            log_info("region %u: driver-API work (a library's own launches) runs inside it: it takes the robust path",
                     seen->id);
        }
        if (seen && seen->state == REGION_WANTED && seen->stats.builds == 0 && seen->stable == policy.min_repeats) {
            char streams[256] = "its streams";
            if (log_enabled(LOG_INFO))
                describe_streams(seen->sigs, seen->length, streams, sizeof streams);
            log_info("region %u: %u calls on %s seen %u times alike; recording its next occurrence", seen->id,
                     seen->length, streams, seen->stable);
            trace_event("region_found", "\"region\":%u,\"calls\":%u,\"sightings\":%u", seen->id, seen->length,
                        seen->stable);
        }
    }
    trial_end(&t->trial, graphed, seen);
    forget_sequence(t);
    t->foreign_in_sequence = false;
}

/* Ends the current sequence before runtime call c, a boundary, is forwarded. */
static void end_sequence_before(struct tracker *t, const struct call *c)
{
    end_sequence(t, true, boundary_reason(c->kind), call_api_name(c->api));
}

/* A sequence longer than any region: feed the period detector, and cut at the period once found. */
static void look_for_period(struct tracker *t, const struct call_sig *sig)
{
    if (t->periods == NULL) {
        t->periods = malloc(sizeof *t->periods);
        if (t->periods == NULL || !period_init(t->periods, policy.max_calls < 4096 ? policy.max_calls : 4096,
                                               policy.min_repeats + 1)) {
            free(t->periods);
            t->periods = NULL;
            return;
        }
    }
    unsigned p = period_feed(t->periods, sig_hash(sig));
    if (p == 0)
        return;
    unsigned group = (PERIODIC_REGION_CALLS + p - 1) / p;
    t->period = p * group <= policy.max_calls ? p * group : p;
    /* Whatever this sequence held back or recorded belongs to no cut: submit it, forget it. */
    if (t->pending)
        fall_back(t, FALLBACK_MISMATCH, "sync-free loop");
    log_info("sync-free loop: the calls repeat every %u; cutting them into regions of %u calls", p, t->period);
    trace_event("period_found", "\"period\":%u,\"region_calls\":%u", p, t->period);
    /* The calls so far are not a region; the next one starts the first cut. */
    forget_sequence(t);
}

/* In a sync-free loop, ends the sequence once it holds a whole cut. */
static void cut_if_period_done(struct tracker *t)
{
    if (t->period && t->observed_count >= t->period)
        end_sequence(t, false, FALLBACK_MISMATCH, "sync-free loop");
}

/* Why region r wants the robust path now (into why), or NULL for the fast path. */
static const char *robust_path_reason(const struct region *r, char *why, size_t len)
{
    if (shim_options.num[OPT_REPLAY] == REPLAY_ROBUST)
        return "REPRISE_REPLAY=robust";
    if (r->needs_robust)
        return "driver-API work runs inside it";
    return hidden_work_possible(why, len) ? why : NULL;
}

/* Starts a robust-path capture on the region's first stream; false (passing through) if the runtime refuses. */
static bool start_recapture(struct tracker *t, cudaStream_t stream)
{
    struct region *r = t->region;
    if (atomic_load(&threads_seen) > 1) {
        regions_failed(&t->table, r, FALLBACK_THREAD); /* see end_captures_for_second_thread */
        return false;
    }
    if (watchdog_refuses(t, r))
        return false;
    if (real_function(HOOK_ID_cudaStreamBeginCapture) == NULL) {
        not_graphed(t, r, FALLBACK_UNSUPPORTED,
                    "it needs the robust path, which captures through a dynamic CUDA runtime, and this program "
                    "loads none (its runtime is linked statically)",
                    "robust path without a dynamic runtime");
        return false;
    }
    cudaError_t err = capture_begin(&t->capture, stream, sigs_pageable_bytes(r->sigs, r->length));
    if (err != cudaSuccess) {
        log_debug("region %u: cannot begin a capture: %s", r->id, cudaGetErrorName(err));
        regions_failed(&t->table, r, FALLBACK_GRAPH_ERROR);
        return false;
    }
    pthread_once(&exit_hook_once, register_exit_hook);
    atomic_fetch_add(&shim_captures, 1);
    return true;
}

/* Whether r's trial passes this occurrence through (the thread then follows nothing); it times the occurrence. */
static bool trial_passes_through(struct tracker *t, struct region *r)
{
    if (r->graph == NULL || trial_begin(&t->trial, r, policy.trial_pairs) != PAYOFF_EAGER)
        return false;
    t->region = NULL;
    t->mode = FOLLOW_NONE;
    return true;
}

/*
 * Starts following a sequence at its first call: replay, record, or just
 * learn.  A region wanted or graphed on the robust path starts its capture
 * here, before its first call is forwarded.  A graphed region on trial
 * (either path) may pass the occurrence through instead, timed.
 */
static void start_sequence(struct tracker *t, const struct call_sig *sig, cudaStream_t stream)
{
    t->trial.region = 0; /* a sequence cut short without end_sequence (look_for_period) is not timed */
    struct region *r = regions_candidate(&t->table, sig, 1);
    t->region = r;
    t->mode = r == NULL ? FOLLOW_NONE : r->state == REGION_GRAPHED ? FOLLOW_REPLAY : FOLLOW_RECORD;
    if (r == NULL)
        return;
    if (!(r->graph && r->robust)) {
        char why[256];
        /* The free test first: robust_path_reason may scan the loaded objects. */
        const char *reason = capture_stream_eligible(stream) ? robust_path_reason(r, why, sizeof why) : NULL;
        if (reason == NULL) {
            trial_passes_through(t, r);
            return; /* the fast path; build_graph or launch_replay say why if it cannot be taken */
        }
        if (r->graph) {
            log_info("region %u: moving to the robust path (%s)", r->id, reason);
            trace_event("path_changed", "\"region\":%u,\"path\":\"robust\"", r->id);
            destroy_graph_of(r);
            regions_graph_dropped(&t->table, r);
        }
    }
    if (r->graph == NULL && user_refuses(t, r)) {
        t->region = NULL;
        t->mode = FOLLOW_NONE;
        return;
    }
    if (trial_passes_through(t, r))
        return;
    t->mode = start_recapture(t, stream) ? FOLLOW_RECAPTURE : FOLLOW_NONE;
}

/*
 * Forwards a matched call into the robust path's capture.  If the runtime
 * refuses it there, the capture may be lost: the calls before it run (from
 * the capture or one by one), and the call is made again as the program
 * made it, whose result is the one the program gets.
 */
static void recapture_call(struct tracker *t, cudaError_t *result)
{
    struct saved_error saved;
    errors_save(&saved);
    const struct recorded *last = &t->records.calls[t->records.count - 1];
    cudaError_t err = capture_forward(&t->capture, &t->records, last);
    errors_restore(&saved);
    if (err == cudaSuccess)
        return;
    struct recorded failed = *last;
    t->records.count--;
    fall_back(t, FALLBACK_GRAPH_ERROR, cudaGetErrorName(err));
    *result = record_forward(&t->records, &failed, cudaStreamPerThread); /* its bytes stay in the arena until the sequence ends */
}

/* Whether the thread can switch to following other without changing what it does with the calls so far. */
static bool follows_same_path(const struct tracker *t, const struct region *other)
{
    if (t->mode == FOLLOW_RECAPTURE)
        return other->graph ? other->robust : other->state == REGION_WANTED;
    if (other->graph && other->robust)
        return false;
    return (t->mode == FOLLOW_REPLAY) == (other->state == REGION_GRAPHED);
}

static bool follow_signature(struct tracker *t, const struct call *c, enum host_memory src_memory,
                             enum host_memory dst_memory);
static bool hold_or_record(struct tracker *t, const struct call *c, enum host_memory src_memory, cudaError_t *result);

/* A call that can be a graph node: hold it back, record it, or let it pass. */
static bool follow_node_call(struct tracker *t, const struct call *c, cudaError_t *result)
{
    enum host_memory src_memory = MEMORY_DEVICE, dst_memory = MEMORY_DEVICE;
    if (c->kind == CALL_COPY && c->copy_kind != cudaMemcpyDeviceToDevice) {
        dst_memory = c->copy_kind == cudaMemcpyHostToDevice ? MEMORY_DEVICE : memory_of(c->dst);
        /* A copy into pageable memory returns only once done: the program may read it at once. */
        if (dst_memory == MEMORY_PAGEABLE) {
            end_sequence_before(t, c);
            return false;
        }
        src_memory = c->copy_kind == cudaMemcpyDeviceToHost ? MEMORY_DEVICE : memory_of(c->src);
        if (src_memory == MEMORY_PAGEABLE && c->bytes > STAGING_MAX) {
            end_sequence_before(t, c);
            return false;
        }
    } else if (c->kind == CALL_SET) {
        dst_memory = memory_of(c->dst); /* a memset node cannot move between device and host memory either */
    }
    unsigned position = t->observed_count;
    struct region *r = t->region;
    /* The common case, a launch that is the region's next call, is compared in place: no signature is built. */
    if (position > 0 && t->mode != FOLLOW_NONE && position < r->length && c->kind == CALL_LAUNCH &&
        launch_matches(c, &r->sigs[position]))
        t->observed_count++; /* its signature is r->sigs[position]: written out only if needed */
    else if (!follow_signature(t, c, src_memory, dst_memory)) {
        cut_if_period_done(t); /* in a sync-free loop, a call that is not followed still counts towards the cut */
        return false;
    }
    bool held = hold_or_record(t, c, src_memory, result);
    cut_if_period_done(t);
    return held;
}

/* Matches a node call's signature against the followed region (or finds one); false if it passes through. */
static bool follow_signature(struct tracker *t, const struct call *c, enum host_memory src_memory,
                             enum host_memory dst_memory)
{
    struct call_sig sig;
    call_signature(c, src_memory, dst_memory, &sig);
    unsigned position = t->observed_count;
    if (position == 0)
        start_sequence(t, &sig, c->stream);
    struct region *r = t->region;
    bool matches = t->mode != FOLLOW_NONE && position < r->length && sig_equal(&r->sigs[position], &sig);
    if (matches) {
        t->observed_count++; /* its signature is r->sigs[position]: written out only if needed */
    } else {
        observe_sig(t, &sig);
        if (t->overflow && t->period == 0)
            look_for_period(t, &sig);
        if (t->mode == FOLLOW_NONE)
            return false;
        if (!t->overflow) {
            /* Another known region may begin with the same calls. */
            struct region *other = regions_candidate(&t->table, t->observed, position + 1);
            if (other && follows_same_path(t, other)) {
                t->region = r = other;
                matches = true;
            }
        }
    }
    if (!matches) {
        if (t->mode == FOLLOW_REPLAY || t->mode == FOLLOW_RECAPTURE)
            fall_back(t, FALLBACK_MISMATCH, call_api_name(c->api));
        t->mode = FOLLOW_NONE;
        if (t->period) {
            /* The loop changed its pattern: find its period anew. */
            t->period = 0;
            period_reset(t->periods);
        }
        return false;
    }
    return true;
}

/* Keeps a call that matched the followed region: held back (true, with *result) or recorded and passed on. */
static bool hold_or_record(struct tracker *t, const struct call *c, enum host_memory src_memory, cudaError_t *result)
{
    const char *why;
    if (t->mode == FOLLOW_RECAPTURE &&
        !capture_admits(&t->capture, c, src_memory == MEMORY_PAGEABLE, &why)) {
        fall_back(t, FALLBACK_UNSUPPORTED, why);
        return false;
    }
    if (!record_append(&t->records, c, src_memory)) {
        if (t->mode == FOLLOW_REPLAY || t->mode == FOLLOW_RECAPTURE)
            fall_back(t, FALLBACK_GRAPH_ERROR, "cannot record the call");
        t->mode = FOLLOW_NONE;
        return false;
    }
    if (t->mode == FOLLOW_RECORD)
        return false;
    if (!t->pending) {
        set_pending(t, true); /* the region's first held-back call: the rest skip the call */
        /* Where its work goes if another thread (or the watchdog) must submit it. */
        if (DEVICE_CALL(cuCtxGetCurrent, &t->context) != CUDA_SUCCESS)
            t->context = NULL;
    }
    note_held(t, c);
    note_progress(t);
    *result = cudaSuccess;
    if (t->mode == FOLLOW_RECAPTURE)
        recapture_call(t, result);
    return true;
}

/* Whether stream takes part in one of the shim's robust-path captures, on any thread. */
static bool shim_captures_stream(cudaStream_t stream)
{
    bool found = false;
    pthread_mutex_lock(&trackers_lock);
    for (struct tracker *t = trackers; t && !found; t = t->next) {
        tracker_lock(t);
        found = t->capture.active && capture_holds(&t->capture, stream);
        tracker_unlock(t);
    }
    pthread_mutex_unlock(&trackers_lock);
    return found;
}

/* Whether the only capture a query about stream would see is the shim's (see engine.h). */
bool engine_hides_capture(cudaStream_t stream)
{
    if (in_engine || atomic_load_explicit(&shim_captures, memory_order_relaxed) == 0)
        return false;
    /* The legacy stream reports a blocking stream's capture as an error of its own: none of the shim's is the
       program's (the shim captures nothing while the program does). */
    return stream == cudaStreamLegacy || shim_captures_stream(stream);
}

/* Answers the program's capture-status question itself when the only capture on the stream is the shim's. */
static bool answer_capture_query(const struct call *c, cudaError_t *result)
{
    if (c->status_out == NULL)
        return false; /* let the runtime report the bad argument */
    if (!engine_hides_capture(c->stream))
        return false;
    *c->status_out = cudaStreamCaptureStatusNone;
    *result = cudaSuccess;
    return true;
}

/* Sees a call before it reaches the runtime; true if held back, with *result for the program. */
bool engine_call(const struct call *c, cudaError_t *result)
{
    struct tracker *t = tracker_self();
    if (t == NULL || atomic_load_explicit(&shut_down, memory_order_relaxed))
        return false;
    if (c->kind == CALL_CAPTURE_STATUS || c->kind == CALL_CAPTURE_INFO)
        return answer_capture_query(c, result);
    in_engine = true;
    if (__builtin_expect(others_hold_work(t), 0))
        submit_other_threads(t, interacts, c, FALLBACK_THREAD, call_api_name(c->api));
    bool taken = false;
    tracker_lock(t);
    if (__builtin_expect(atomic_load_explicit(&t->moved_pending, memory_order_relaxed), 0))
        rejoin_moved_work(t);
    if (__builtin_expect(t->trial.ended != NULL, 0))
        trial_sample(&t->trial, &t->table); /* the call that ended a timed occurrence has returned */
    switch (c->kind) {
    case CALL_LAUNCH:
    case CALL_COPY:
    case CALL_SET:
    case CALL_HOST_FUNC:
    case CALL_EVENT_RECORD:
    case CALL_EVENT_WAIT:
        if (atomic_load_explicit(&program_captures, memory_order_relaxed) == 0) {
            taken = follow_node_call(t, c, result);
            break;
        }
        end_sequence_before(t, c); /* the program captures: stay out of its way */
        break;
    case CALL_EVENT_CREATE:
    case CALL_STREAM_CREATE:
    case CALL_CAPTURE_QUERY:
    case CALL_CAPTURE_STATUS:
    case CALL_CAPTURE_INFO:
    case CALL_ERROR_CHECK:
        break; /* no effect on ordering */
    case CALL_CAPTURE: {
        bool begins = c->api == HOOK_ID_cudaStreamBeginCapture || c->api == HOOK_ID_cudaStreamBeginCapture_ptsz ||
                      c->api == HOOK_ID_cudaStreamBeginCaptureToGraph ||
                      c->api == HOOK_ID_cudaStreamBeginCaptureToGraph_ptsz;
        end_sequence_before(t, c);
        note_program_capture(begins ? 1 : -1);
        break;
    }
    default:
        end_sequence_before(t, c);
        break;
    }
    tracker_unlock(t);
    in_engine = false;
    return taken;
}

/* A driver call that can be a graph node, from someone other than the runtime: engine_call, unless the shim made it. */
bool engine_driver_call(const struct call *c, cudaError_t *result)
{
    if (in_engine)
        return false; /* the shim's own work through a runtime not recognised as the caller */
    return engine_call(c, result);
}

/*
 * Takes a capturable foreign call on a created stream into this thread's
 * sequence; false if it must be a boundary instead (other threads hold work
 * back).  In a robust-path capture it is captured, in the program's order
 * (a stream new to the capture joins it first).  Otherwise nothing of this
 * thread is held back once it returns, and the sequence is marked: its
 * region needs the robust path.
 */
static bool inside_region(struct tracker *me, cudaStream_t stream, const char *name)
{
    if (others_hold_work(me))
        return false;
    tracker_lock(me);
    bool taken = true;
    if (me->mode == FOLLOW_RECAPTURE) {
        taken = capture_join(&me->capture, stream) == cudaSuccess;
        if (taken) {
            /* Until it is forwarded, the watchdog must not end the capture under it (engine_foreign_done). */
            atomic_store_explicit(&me->forwarding, true, memory_order_relaxed);
            note_progress(me);
        } else {
            fall_back(me, FALLBACK_HIDDEN_WORK, name);
        }
    } else {
        if (me->mode == FOLLOW_REPLAY) {
            /* Held back, it would be overtaken: submit it, and take the robust path from now on. */
            me->region->needs_robust = true;
            fall_back(me, FALLBACK_HIDDEN_WORK, name);
        } else if (me->mode == FOLLOW_RECORD) {
            me->mode = FOLLOW_NONE; /* the record lacks this call: no fast-path graph from it */
        }
        me->foreign_in_sequence = true;
    }
    tracker_unlock(me);
    return taken;
}

/* A driver call the runtime did not make: a boundary for this thread and for all held-back work. */
bool engine_foreign_call(cudaStream_t stream, const char *name, int captures, bool capturable,
                         enum fallback_reason reason)
{
    if (in_engine || atomic_load_explicit(&shut_down, memory_order_relaxed))
        return false; /* the shim's own work (a runtime not recognised as the caller): taking a lock again would hang */
    in_engine = true;
    struct tracker *me = tracker_self(); /* a thread that only calls the driver counts (see tracker_self) */
    if (me && __builtin_expect(atomic_load_explicit(&me->moved_pending, memory_order_relaxed), 0)) {
        tracker_lock(me);
        if (atomic_load_explicit(&me->moved_pending, memory_order_relaxed))
            rejoin_moved_work(me);
        tracker_unlock(me);
    }
    if (me && capturable && captures == 0 && capture_stream_eligible(stream) && inside_region(me, stream, name)) {
        in_engine = false;
        return atomic_load_explicit(&me->forwarding, memory_order_relaxed);
    }
    /* Like a call the engine does not know (a device-wide one): it interacts with all held-back work. */
    static const struct call foreign = {.api = HOOK_COUNT, .kind = CALL_DEVICE_SYNC};
    if (others_hold_work(me))
        submit_other_threads(me, interacts, &foreign, FALLBACK_HIDDEN_WORK, name);
    note_program_capture(captures);
    if (me == NULL) {
        in_engine = false;
        return false;
    }
    /* The sequence ends here, before the call. */
    tracker_lock(me);
    end_sequence(me, true, reason, name);
    tracker_unlock(me);
    in_engine = false;
    return false;
}

/* After a foreign call taken into this thread's capture has been forwarded. */
void engine_foreign_done(void)
{
    if (self)
        atomic_store_explicit(&self->forwarding, false, memory_order_relaxed);
}

/* Marks the calling thread as the watchdog's: its CUDA calls are the shim's own. */
void engine_watchdog_thread(void)
{
    in_engine = true; /* never cleared: every call this thread makes is the shim's */
}

/* Whether any thread holds work back now. */
bool engine_holds_work(void)
{
    return atomic_load(&pending_trackers) > 0;
}

/* The watchdog gives up waiting for t's next call: its held-back work is submitted, in order. */
static void time_out(struct tracker *t)
{
    char detail[128];
    snprintf(detail, sizeof detail, "thread %u added no call for %ld us", t->thread_number,
             shim_options.num[OPT_DEFERRAL_TIMEOUT_US]);
    fall_back(t, FALLBACK_DEFERRAL_TIMEOUT, detail);
}

/*
 * One round of the watchdog.  Correct against the owner resuming at the
 * same moment: the owner's calls and the submission both hold the
 * tracker's lock, and the watchdog submits only if, under it, the work is
 * still held and nothing was added since the last round.  The owner then
 * finds its region fallen back, as after another thread's call.
 */
enum watchdog_round engine_watchdog_round(void)
{
    static unsigned long round = 1; /* a tracker never watched has watched_round 0: two rounds back */
    round++;
    if (atomic_load(&pending_trackers) == 0)
        return atomic_load(&shut_down) ? ROUND_STOP : ROUND_IDLE;
    pthread_mutex_lock(&trackers_lock);
    if (atomic_load(&shut_down)) {
        pthread_mutex_unlock(&trackers_lock); /* no CUDA call once the engine has shut down */
        return ROUND_STOP;
    }
    for (struct tracker *t = trackers; t; t = t->next) {
        if (!__atomic_load_n(&t->pending, __ATOMIC_RELAXED))
            continue;
        unsigned activity = atomic_load_explicit(&t->activity, memory_order_relaxed);
        if (t->watched_round + 1 != round || t->watched_activity != activity ||
            atomic_load_explicit(&t->forwarding, memory_order_relaxed)) {
            t->watched_round = round;
            t->watched_activity = activity;
            continue;
        }
        tracker_lock(t);
        if (t->pending && (t->mode == FOLLOW_REPLAY || t->mode == FOLLOW_RECAPTURE) &&
            atomic_load_explicit(&t->activity, memory_order_relaxed) == activity &&
            !atomic_load_explicit(&t->forwarding, memory_order_relaxed))
            time_out(t);
        tracker_unlock(t);
    }
    pthread_mutex_unlock(&trackers_lock);
    return ROUND_HELD;
}

/* What the hooked cudaGetLastError (take) or cudaPeekAtLastError returns. */
cudaError_t engine_last_error(bool take)
{
    /* An error in the runtime now came after the one the shim owes: the
       runtime keeps only the latest error, and so does the program's view. */
    cudaError_t latest = take ? REAL_CALL(cudaGetLastError) : REAL_CALL(cudaPeekAtLastError);
    cudaError_t owed = errors_owed(take);
    if (owed == cudaSuccess && self && atomic_load_explicit(&self->error_from_others, memory_order_relaxed))
        owed = take ? atomic_exchange(&self->error_from_others, cudaSuccess) : atomic_load(&self->error_from_others);
    return latest != cudaSuccess ? latest : owed;
}

/* The error owed to this thread's next driver wait (a stream or context synchronize, a query), taken. */
CUresult engine_driver_error_owed(void)
{
    if (self == NULL || atomic_load_explicit(&self->driver_error_owed, memory_order_relaxed) == CUDA_SUCCESS)
        return CUDA_SUCCESS;
    return atomic_exchange(&self->driver_error_owed, CUDA_SUCCESS);
}

/* Submits every thread's held-back work and destroys every graph (at exit). */
void engine_shutdown(void)
{
    if (atomic_exchange(&shut_down, true))
        return;
    in_engine = true; /* never cleared: the engine is done */
    pthread_mutex_lock(&trackers_lock);
    for (struct tracker *t = trackers; t; t = t->next) {
        tracker_lock(t);
        if (t->pending)
            release_held(t);
        struct region *r, *tmp;
        HASH_ITER(hh, t->table.by_hash, r, tmp)
            if (r->graph) {
                destroy_graph_of(r);
                r->graph = NULL;
            }
        capture_session_fini(&t->capture);
        private_event_destroy(t->moved_work);
        tracker_unlock(t);
    }
    pthread_mutex_unlock(&trackers_lock);
}

/* Writes each region's counts to the trace, and to the log if to_log (exit summary). */
void engine_summary(bool to_log)
{
    pthread_mutex_lock(&trackers_lock);
    for (struct tracker *t = trackers; t; t = t->next) {
        struct region *r, *tmp;
        HASH_ITER(hh, t->table.by_hash, r, tmp) {
            const struct region_stats *s = &r->stats;
            if (s->builds == 0 && s->replays == 0 && s->sightings < policy.min_repeats)
                continue;
            char reasons[512];
            size_t used = 0;
            reasons[0] = '\0';
            for (int k = 0; k < FALLBACK_REASON_COUNT; k++)
                summary_append_count(reasons, sizeof reasons, &used, fallback_reason_name(k), s->fallbacks[k]);
            if (to_log)
                log_always(LOG_INFO,
                       "region %u (thread %u, %u calls): %llu passed through, %llu replays (%llu re-captured), "
                       "%llu calls not submitted one by one, %llu nodes patched, fallbacks: %s",
                       r->id, t->thread_number, r->length, s->sightings, s->replays, s->recaptures, s->calls_saved,
                       s->args_patched, used ? reasons : "none");
            trace_event("region_summary",
                        "\"region\":%u,\"thread\":%u,\"calls\":%u,\"state\":\"%s\",\"sightings\":%llu,"
                        "\"replays\":%llu,\"recaptures\":%llu,\"calls_saved\":%llu,\"patched\":%llu,\"builds\":%llu,"
                        "\"evictions\":%llu",
                        r->id, t->thread_number, r->length, region_state_name(r->state), s->sightings, s->replays,
                        s->recaptures, s->calls_saved, s->args_patched, s->builds, s->evictions);
        }
    }
    pthread_mutex_unlock(&trackers_lock);
}
