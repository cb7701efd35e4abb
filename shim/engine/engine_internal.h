/* SPDX-License-Identifier: MIT */
/* The engine's insides, shared by its files (engine_*.c): the per-thread tracker and what the files call of each other. */
#ifndef REPRISE_ENGINE_INTERNAL_H
#define REPRISE_ENGINE_INTERNAL_H

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "engine.h"
#include "graph_trial.h"
#include "period.h"
#include "record.h"
#include "region_capture.h"
#include "regions.h"
#include "watchdog.h"

/* Nothing here leaves the shim: the compiler may then reach these globals without the GOT, as when they were static. */
#pragma GCC visibility push(hidden)

/* What a thread is doing with its current sequence of calls. */
enum follow_mode {
    FOLLOW_NONE,   /* passing through, learning */
    FOLLOW_RECORD, /* passing through and recording, to build a graph at its end */
    FOLLOW_REPLAY, /* holding calls back, to launch a graph at its end */
    FOLLOW_RECAPTURE, /* forwarding calls into a capture of the region's streams, to launch it at its end */
};

/*
 * What the fast path (engine_fast.h) needs to hold a launch back without
 * the engine: the thread replays a region and the launch is its next call.
 * Only the tracker's own thread moves pos, under the tracker's lock; the
 * tracker's counts take those calls in at the next lock (fast_sync).
 */
struct fast_follow {
    /*
     * The rare word: the fast path takes the call at position pos only while
     * pos < until.  The thread's engine opens it after each call it handles
     * while it replays (until: where the engine must take over again, the
     * region's end or a sync-free loop's cut, fast_open) and closes it
     * otherwise; whoever causes a rare state closes it to 0: set_pending
     * when anyone submits the held-back work (another thread, the watchdog,
     * shutdown), a thread that begins to hold work back (for every other
     * thread), a program capture beginning anywhere (for every thread).
     */
    _Atomic unsigned until;
    unsigned pos;                 /* the position of the thread's next call in its sequence (the watchdog reads it) */
    unsigned synced;              /* pos when the tracker's counts last took in the fast path's calls (likewise) */
    unsigned unnoted;             /* the first of those whose stream held_streams lacks (UINT_MAX: none) */
    const unsigned char *compare; /* the parameter blocks of the region's graph instance launched last */
    const uint32_t *compare_at;   /* where each node's block is in them */
};

/* One host thread's view: the calls since its last boundary, and the regions it has learnt. */
struct tracker {
    atomic_bool busy;     /* a lock: its own thread takes it on every call; another only to submit held-back work */
    struct fast_follow fast;
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
    /* records.calls[0, slots_held) hold the calls of region slots_region (an id) at those positions, from
       this sequence or an earlier one: the fast path compares a launch with its slot and writes only its
       parameters, the rest of the slot is what it would write */
    unsigned slots_region, slots_held;
    bool pending;         /* records hold calls not yet submitted */
    bool counted;         /* in pending_trackers: other threads' calls look at it (it holds work back, or records) */
    bool recording_shown; /* counted while it records: a hand-over then ends the recorded occurrence */
    /* The streams and events the held-back calls use, for other threads to check against. */
    const void *held_streams[8];
    unsigned held_stream_count;
    const void *held_events[16];
    unsigned held_event_count;
    bool held_everything; /* too many to list: assume any call interacts */
    struct period_detector *periods; /* fed the calls of a long stretch that follow no region: a sync-free loop */
    unsigned period;      /* nonzero: the calls repeat every this many, and are cut without waiting for a sync */
    struct cuts cuts;     /* where the calls are cut into graph launches (engine_sequence.c) */
    struct region_table table;
    struct capture_session capture; /* FOLLOW_RECAPTURE: the capture in progress */
    bool foreign_in_sequence;       /* driver-API work arrived inside the current sequence */
    /* What another thread did that this thread acts on at its next call (rejoin_moved_work): it submitted
       held-back per-thread-stream work on the legacy stream, up to moved_work, which this thread's stream
       must wait for (moved); or it took over a stream of the sequence this thread was passing through or
       recording (handed_over, by thread handover_thread's call of handover_call), which ends there. */
    atomic_bool moved_pending;      /* set under the lock; read without it by foreign calls */
    bool moved, handed_over;        /* under the lock */
    cudaEvent_t moved_work;
    unsigned handover_thread;
    const char *handover_call;
    unsigned recording_looks;       /* other threads' calls that looked at its shown recording (under the lock) */
    unsigned quiet_starts;          /* its sequence starts since one took a stream over (its own thread) */
    struct trial_timer trial;       /* the occurrence of a region on trial being timed, if any */
    struct neighbours neighbours;   /* its sequences, each compared with the last that began alike (exit summary) */
    /* For the watchdog: its own thread bumps activity as it holds a call back; the watchdog alone
       writes watched_*, the activity it saw at round watched_round. */
    atomic_uint activity;
    atomic_bool forwarding;         /* a foreign call taken into the capture is being forwarded */
    /* The call this thread forwards now, while several threads make CUDA calls (engine_in_flight.c):
       other threads' robust-path captures keep clear of what it touches until it returns. */
    struct in_flight {
        atomic_bool live;
        _Atomic int kind;              /* an enum call_kind */
        _Atomic uintptr_t stream, event;
    } in_flight;
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

/* The engine's state, defined in engine_tracker.c. */
extern struct region_policy engine_policy;
extern pthread_mutex_t trackers_lock;
extern struct tracker *trackers;
extern atomic_int pending_trackers;  /* trackers holding calls back */
extern atomic_int program_captures;  /* the program's own captures in progress */
extern atomic_int shim_captures;     /* the shim's robust-path captures in progress */
extern atomic_int threads_seen;      /* host threads that have made CUDA calls (trackers made) */
extern atomic_bool shut_down;
extern __thread struct tracker *self __attribute__((tls_model("initial-exec")));
/* Set while this thread runs the engine: driver calls the shim's own runtime calls make are never foreign. */
extern __thread bool in_engine __attribute__((tls_model("initial-exec")));
/* Whether work may reach the GPU unseen, as the front doors tell (engine_set_unseen_work_probe). */
extern bool (*unseen_work_possible)(char *who, size_t who_len);

/* Takes the fast path's calls into t's counts and records, and, for another thread, held streams (under t's lock). */
void fast_sync(struct tracker *t);

/*
 * Takes t's lock.  Not a pthread mutex: its own thread takes it on every
 * call, almost always free, and one atomic exchange is all that costs;
 * another thread holds it only while it submits t's held-back work, so a
 * waiter yields rather than sleeps.  Whoever holds it then sees every
 * call the fast path held back in t's counts (fast_sync); the fast path
 * alone takes the lock without.
 */
static inline void tracker_lock(struct tracker *t)
{
    while (__builtin_expect(atomic_exchange_explicit(&t->busy, true, memory_order_acquire), 0))
        sched_yield();
    if (__builtin_expect(t->fast.pos != t->fast.synced || t->fast.unnoted < t->fast.pos, 0))
        fast_sync(t);
}

/* Releases t's lock. */
static inline void tracker_unlock(struct tracker *t)
{
    atomic_store_explicit(&t->busy, false, memory_order_release);
}

/* Creates this thread's tracker and registers it; NULL if memory ran out (tracker_self's slow path). */
struct tracker *tracker_create(void);

/* This thread's tracker, created on its first call; NULL if memory ran out. */
static inline struct tracker *tracker_self(void)
{
    if (__builtin_expect(self != NULL, 1))
        return self;
    return tracker_create();
}

/*
 * Whether threads other than me (NULL: any) hold calls back.  Another
 * thread that submits my work clears my counted, then takes me out of the
 * count (update_counted, under my lock): the count is read first, acquire,
 * so that one without me comes with counted false; one with me and counted
 * false at most sends the call to look at the others (which it does under
 * their locks).  counted is read atomically: that thread writes it.
 */
static inline bool others_hold_work(const struct tracker *me)
{
    int pending = atomic_load_explicit(&pending_trackers, memory_order_acquire);
    return pending > (me && __atomic_load_n(&me->counted, __ATOMIC_RELAXED) ? 1 : 0);
}

/* Tells the watchdog that t added a call to its held-back work: a plain store, only t's thread writes it. */
static inline void note_progress(struct tracker *t)
{
    atomic_store_explicit(&t->activity, atomic_load_explicit(&t->activity, memory_order_relaxed) + 1,
                          memory_order_relaxed);
}

/* Closes the fast path of t: its next call goes to the engine (a relaxed store: t's own engine re-checks). */
static inline void fast_close(struct tracker *t)
{
    atomic_store_explicit(&t->fast.until, 0, memory_order_relaxed);
}

/*
 * How far t has come, for the watchdog: the calls it held back, the fast
 * path's not taken into the count yet included (fast_sync moves them from
 * pos - synced into activity).  Exact under t's lock; read without it, a
 * read torn by a sync or a new sequence at that moment can only make it
 * differ from the last round's, which puts a time-out off by a round.
 */
static inline unsigned tracker_activity(const struct tracker *t)
{
    return atomic_load_explicit(&t->activity, memory_order_relaxed) + __atomic_load_n(&t->fast.pos, __ATOMIC_RELAXED) -
           __atomic_load_n(&t->fast.synced, __ATOMIC_RELAXED);
}

/* engine_tracker.c: the registry of threads. */

/*
 * Closes the fast path of every thread but me (NULL: every thread), after
 * a rare state that concerns them began (its cause already stored,
 * sequentially consistent): against fast_open, one of the two sees the
 * other.  No lock: the list of trackers only grows.
 */
void fast_close_others(const struct tracker *me);

/* Counts a capture of the program's own beginning (delta 1) or ending (-1). */
void note_program_capture(int delta);

/* Marks whether t holds calls back. */
void set_pending(struct tracker *t, bool pending);

/* Shows t's recording to other threads' calls (a hand-over ends it), or stops showing it. */
void show_recording(struct tracker *t, bool shown);

/* engine_call.c: each call, matched against the followed region. */

/* Notes the stream and event a held-back (or captured) call uses, for other threads' calls to check against. */
void note_held(struct tracker *t, const struct call *c);

/* Writes out the signatures counted while they matched the followed region. */
void materialize_observed(struct tracker *t);

/* engine_sequence.c: a sequence's start and end. */

/* Starts following a sequence at its first call: replay, record, or just learn. */
void start_sequence(struct tracker *t, const struct call_sig *sig, cudaStream_t stream);

/* Ends the current sequence (launch, build or learn); a replay it cuts short falls back for reason, naming name. */
void end_sequence(struct tracker *t, bool at_sync, enum fallback_reason reason, const char *name);

/* Ends the current sequence before runtime call c, a boundary, is forwarded. */
void end_sequence_before(struct tracker *t, const struct call *c);

/* Ends t's sequence where another thread's call took over its stream (from any thread, under t's lock); counted. */
void end_sequence_handed_over(struct tracker *t, enum fallback_reason reason, const char *name);

/* Feeds the period detector a call of a long stretch that follows no region; cuts at the period once it settled. */
void look_for_period(struct tracker *t, const struct call_sig *sig);

/* The cut check's slow path: ends a sequence that holds a whole cut, or feeds the period detector. */
void cut_check(struct tracker *t);

/* engine_graph.c: the fast path's graphs, built and launched. */

/* Fails region r for reason without a graph, saying why in the log (log_why; NULL: not there) and the trace. */
void not_graphed(struct tracker *t, struct region *r, enum fallback_reason reason, const char *log_why,
                 const char *trace_why);

/* Whether the user's policies keep r out of graphs now (a profiler, REPRISE_EXCLUDE_*): then it is failed, and said. */
bool user_refuses(struct tracker *t, struct region *r);

/* Whether no watchdog can bound the wait of r's held-back work (its thread would not start): then r is failed, and said. */
bool watchdog_refuses(struct tracker *t, struct region *r);

/* Destroys a region's graph, whichever path made it. */
void destroy_graph_of(struct region *r);

/* Registers a region's new graph (robust: a region_capture, else a region_graph) and puts it on trial. */
void keep_graph(struct tracker *t, struct region *r, void *graph, bool robust);

/* Builds the graph of the occurrence just recorded. */
void build_graph(struct tracker *t);

/* At the end of a recorded occurrence: its graph is built if an earlier one was recorded whole too, else noted. */
void record_done(struct tracker *t);

/* Launches the graph for a complete replayed occurrence, or submits the calls if that fails; true if launched. */
bool launch_replay(struct tracker *t);

/* engine_fallback.c: held-back work submitted one by one. */

/* Submits the held-back calls one by one, in the order the program made them (from any thread: see record.h). */
void submit_held_back(struct tracker *t);

/* Makes the work held back or captured so far run, in the program's order. */
void release_held(struct tracker *t);

/* Gives up replaying: submits what was held back and backs the region off. */
void fall_back(struct tracker *t, enum fallback_reason reason, const char *detail);

/* Makes t's context current for work done on t's behalf; true if it switched (undone by libcuda_context_leave). */
bool enter_context_of(const struct tracker *t, CUcontext *previous);

/* Owes t's program the first error of work another thread did on t's behalf (its next cudaGetLastError). */
void owe_error_to(struct tracker *t, cudaError_t error);

/* Owes t's program the first error of its driver calls submitted late (its next wait through the driver). */
void owe_driver_error_to(struct tracker *t, CUresult error);

/* engine_robust.c: the robust path's captures. */

/* Ends a robust-path capture early: runs what it holds once, in order (logged if the capture was lost). */
void release_capture(struct tracker *t);

/* Ends the capture of a complete occurrence on the robust path: update (or make) the graph, launch it; true if so. */
bool finish_recapture(struct tracker *t);

/* Starts a robust-path capture on the region's first stream; false (passing through) if the runtime refuses. */
bool start_recapture(struct tracker *t, cudaStream_t stream);

/* Whether t's capture may take call c in: no other thread's call in flight touches what c adds to it. */
bool capture_takes_call(struct tracker *t, const struct call *c);

/* Why the robust path cannot take a region that starts on stream (the legacy or per-thread default stream). */
const char *robust_path_refusal(cudaStream_t stream);

/* engine_in_flight.c: the call each thread forwards now, kept clear of by other threads' captures. */

/* Marks c as this thread's call in flight, while several threads make CUDA calls; before anything else looks. */
void in_flight_mark(struct tracker *t, const struct call *c);

/* Whether a call of another thread in flight touches what t's capture holds or takes in (t counted pending). */
bool in_flight_meets(const struct tracker *t);

/* engine_threads.c: other threads' held-back work. */

/* Whether another thread's call c could be ordered against the work t holds back. */
bool interacts(const struct tracker *t, const struct call *c);

/* Whether any held-back call of t is on its per-thread default stream. */
bool holds_per_thread_work(const struct tracker *t);

/* After another thread submitted t's per-thread-stream work on the legacy stream: marks where, for t to wait. */
void note_moved_work(struct tracker *t);

/* At this thread's next call after another thread moved its per-thread work: its stream waits for that work. */
void rejoin_moved_work(struct tracker *t);

/* Submits, first, the held-back work of every other thread that must_submit says (for call c); how many. */
unsigned submit_other_threads(struct tracker *me, bool (*must_submit)(const struct tracker *, const struct call *),
                              const struct call *c, enum fallback_reason why, const char *name);

/* At the first call of my sequence (sig, on stream): ends other threads' sequences it takes a stream over from. */
void note_handovers_at_start(struct tracker *me, const struct call_sig *sig, cudaStream_t stream);

/* engine_neighbours.c: why nothing repeats. */

/* At the end of a sequence that ran eagerly, a sighting of seen: compared with its neighbour, for the exit summary. */
void note_neighbours(struct tracker *t, const struct region *seen);

/* engine_watchdog.c: the watchdog's round over the trackers. */
extern const struct watchdog_client engine_watchdog;

/* engine_exit.c: shutdown. */

/* Makes sure engine_shutdown runs at exit, before the runtime's own exit handlers. */
void register_exit_hook_once(void);

#pragma GCC visibility pop

#endif
