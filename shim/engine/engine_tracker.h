/* SPDX-License-Identifier: MIT */
/*
 * The engine's per-thread tracker, in parts, and the registry of them all
 * (engine_tracker.c).  Each part names the file that owns it: that file
 * alone reads and writes its fields, and the others call its functions
 * (inline, in its header, where a call would cost).  The engine's files
 * call each other one way, lowest first (docs/design.md lists them):
 * held, tracker, fast, crash, observed, events, on_behalf, in_flight, neighbours,
 * handover, capture, graph_keep, fallback, exit, watchdog, robust, graph,
 * lifetime, sequence, threads, aside, governor, call, direct_calls.
 */
#ifndef REPRISE_ENGINE_TRACKER_H
#define REPRISE_ENGINE_TRACKER_H

#include <pthread.h>
#include <stdatomic.h>

#include "engine.h"
#include "event_refs.h"
#include "graph_trial.h"
#include "period.h"
#include "held_calls.h"
#include "region_capture.h"
#include "regions.h"

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
 * engine_fast.c's (engine_fast.h): what the fast path needs to hold a
 * launch back without the engine: the thread replays a region and the
 * launch is its next call.  Only the tracker's own thread moves pos, under
 * the tracker's lock; the tracker's counts take those calls in at the next
 * lock (fast_sync).
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
    unsigned unnoted;             /* the first of those whose stream the held set lacks (UINT_MAX: none) */
    bool events_fixed;            /* the region's graph names its own events (region_graph_events_fixed) */
    const unsigned char *compare; /* the parameter blocks of the region's graph instance launched last */
    const uint32_t *compare_at;   /* where each node's block is in them */
    /* records.calls[0, slots_held) hold the calls of region slots_region (an id) at those positions, from
       this sequence or an earlier one: the fast path compares a launch with its slot and writes only its
       parameters, the rest of the slot is what it would write */
    unsigned slots_region, slots_held;
};

/*
 * engine_events.c's: the events the sequence named so far, where each last
 * did (an event call's signature says which earlier call named its event),
 * its calls before position upto taken in.
 */
struct sequence_events {
    struct event_refs refs;
    unsigned upto;
};

/* engine_held.c's: the streams and events the held-back calls use, for other threads to check against. */
struct held_set {
    const void *streams[8];
    unsigned stream_count;
    const void *events[16];
    unsigned event_count;
    bool everything; /* too many to list: assume any call interacts */
};

/*
 * engine_handover.c's: what another thread did that this thread acts on at
 * its next call (rejoin_moved_stream): it submitted held-back
 * per-thread-stream work on the legacy stream, up to moved_work, which
 * this thread's stream must wait for (moved); or it took over a stream of
 * the sequence this thread was passing through or recording (handed_over,
 * by thread `thread`'s call of `call`), which ends there.
 */
struct handover {
    atomic_bool pending;     /* set under the lock; read without it by direct calls and the fast path */
    bool moved, handed_over; /* under the lock */
    cudaEvent_t moved_work;
    unsigned thread;
    const char *call;
    unsigned quiet_starts;   /* its sequence starts since one took a stream over (its own thread) */
};

/* engine_capture.c's: the robust path's capture of this thread's region (FOLLOW_RECAPTURE). */
struct robust_capture {
    struct capture_session session; /* the capture in progress */
    atomic_bool forwarding;         /* a direct call taken into the capture is being forwarded */
};

/*
 * engine_in_flight.c's: the call this thread forwards now, while several
 * threads make CUDA calls: other threads' robust-path captures keep clear
 * of what it touches until it returns.
 */
struct in_flight {
    atomic_bool live;
    _Atomic int kind; /* an enum call_kind */
    _Atomic uintptr_t stream, event;
};

/* engine_on_behalf.c's: what work another thread (or the watchdog) does on this thread's behalf needs. */
struct on_behalf {
    /* The first error of this thread's held-back calls that another thread (or the watchdog)
       submitted: the program reads it from cudaGetLastError, as if it had submitted them itself. */
    _Atomic cudaError_t error_from_others;
    /* The first error of this thread's held-back driver calls, submitted late by anyone: the driver keeps no
       last error, so its next wait through the driver (engine_driver_error_owed) returns it. */
    _Atomic CUresult driver_error_owed;
    CUcontext context; /* current when its held-back work began: where others submit it */
};

/*
 * engine_watchdog.c's: its own thread bumps activity as it holds a call
 * back (note_progress, fast_sync); the watchdog alone writes the rest, the
 * activity it saw at round round_seen.
 */
struct watched {
    atomic_uint activity;
    unsigned activity_seen;
    unsigned long round_seen;
};

/* engine_crash.c's: the call the engine saw last on this thread, for a crash report (only its thread writes it). */
struct last_call {
    unsigned api;       /* its hook id (call_api_name), LAST_CALL_DIRECT or LAST_CALL_NONE (engine_crash.h) */
    const char *direct; /* a direct call's name, when api is LAST_CALL_DIRECT */
};

/* One host thread's view: the calls since its last boundary, and the regions it has learnt. */
struct tracker {
    /* engine_tracker.c's: the lock (taken as engine_fast.h says), the registry, and whether other threads look. */
    /* A lock: its own thread takes it on every call; another only to submit held-back work.  A word of its own,
       not a byte: the compiler reads the plain flags below together in one wider load, which must not take in
       the lock's byte as well (ThreadSanitizer reports that load as a race with another thread's exchange). */
    atomic_uint busy;
    bool pending;         /* records hold calls not yet submitted (set_pending) */
    bool counted;         /* in pending_trackers: other threads' calls look at it (it holds work back, or records) */
    bool recording_shown; /* counted while it records: a hand-over then ends the recorded occurrence */
    unsigned recording_looks; /* other threads' calls that looked at its shown recording (under the lock) */
    unsigned thread_number;   /* set once, when made: anyone's to read */
    struct tracker *next;
    struct region_table table; /* the regions it has learnt: made here, grown by the sequence's end */

    /*
     * The sequence: engine_sequence.c starts and ends it, engine_call.c
     * follows it call by call (engine_observed.c keeps its signatures), and
     * the steps they take read it under the lock: a graph built or launched
     * (engine_graph.c), a capture begun or finished (engine_robust.c), held
     * work submitted (engine_fallback.c), ended for another thread's call
     * (engine_threads.c) or an object's end (engine_lifetime.c).
     */
    enum follow_mode mode;
    struct region *region;
    struct held_list records;
    /* engine_observed.c's: the signatures of the calls since the sequence began.  While calls match the followed
       region, their signatures are its own: only observed[0..observed_stored) is written, the rest is copied from
       the region when needed (materialize_observed), saving a copy a call. */
    struct call_sig *observed;
    unsigned observed_count, observed_capacity;
    unsigned observed_stored;
    unsigned stand_ins; /* launches of another kernel that its node took in this sequence (engine_call.c) */
    /* engine_call.c's: the bytes this sequence copied from pageable memory (each rounded up to 16), and the most
       a sequence of the thread copied, up to STAGING_MAX: the robust path's first staging (a signature has no
       copy's size). */
    size_t sequence_pageable, pageable_most;
    struct sequence_events events; /* engine_events.c's: the events its calls name */
    bool overflow;
    /* engine_sequence.c's: where the calls are cut, and what ends a sequence's stretch. */
    struct period_detector *periods; /* fed the calls of a long stretch that follow no region: a sync-free loop */
    unsigned period;      /* nonzero: the calls repeat every this many, and are cut without waiting for a sync */
    struct cuts cuts;     /* where the calls are cut into graph launches */
    struct trial_timer trial;       /* the occurrence of a region on trial being timed, if any */
    bool direct_in_sequence;       /* driver-API work arrived inside the current sequence */

    struct fast_follow fast;        /* engine_fast.c's */
    struct held_set held;           /* engine_held.c's */
    struct handover handover;       /* engine_handover.c's */
    struct robust_capture capture;  /* engine_capture.c's */
    struct in_flight in_flight;     /* engine_in_flight.c's */
    struct on_behalf on_behalf;     /* engine_on_behalf.c's */
    struct watched watched;         /* engine_watchdog.c's */
    struct neighbours neighbours;   /* engine_neighbours.c's: its sequences, each compared with the last that began alike */
    struct last_call last_call;     /* engine_crash.c's */
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
/* The engine may hold calls back, record or capture them: cleared while the governor steps it aside (engine_aside.c). */
extern atomic_bool engine_holding;
extern atomic_ulong graphs_built; /* graphs built so far, every thread's (the governor learns until they stop) */
/* A robust-path capture has begun in this process: the governor does not step aside (engine_aside.c says why). */
extern atomic_bool captures_begun;
/* The governor stepped aside once: no robust-path capture begins any more (engine_aside.c says why). */
extern atomic_bool captures_refused;
extern __thread struct tracker *self __attribute__((tls_model("initial-exec")));
/* Set while this thread runs the engine: driver calls the shim's own runtime calls make are never direct calls. */
extern __thread bool in_engine __attribute__((tls_model("initial-exec")));
/* Whether work may reach the GPU unseen, as the front doors tell (engine_set_unseen_work_probe). */
extern bool (*unseen_work_possible)(char *who, size_t who_len);

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

/*
 * Whether the engine may begin to hold, record or capture calls: read under
 * the calling thread's tracker lock, which the governor's step aside takes
 * after clearing it, so that a thread either sees it cleared or has its
 * work submitted by the step aside.
 */
static inline bool engine_holds(void)
{
    return atomic_load_explicit(&engine_holding, memory_order_relaxed);
}

/* Whether t holds calls back not yet submitted (exact under t's lock). */
static inline bool holds_back(const struct tracker *t)
{
    return t->pending;
}

/* Whether t holds calls back, read without t's lock (the watchdog's first look). */
static inline bool holds_back_unlocked(const struct tracker *t)
{
    return __atomic_load_n(&t->pending, __ATOMIC_RELAXED);
}

/* Whether t replays its sequence's region: holds its calls back for the graph, or captures them (the sequence's). */
static inline bool replaying(const struct tracker *t)
{
    return t->mode == FOLLOW_REPLAY || t->mode == FOLLOW_RECAPTURE;
}

/* Whether other threads' calls look at t now (it holds work back, or shows its recording); read without t's lock. */
static inline bool tracker_counted(const struct tracker *t)
{
    return __atomic_load_n(&t->counted, __ATOMIC_RELAXED);
}

/* Whether t shows its recording to other threads' calls (under t's lock). */
static inline bool recording_shown(const struct tracker *t)
{
    return t->recording_shown;
}

/* Counts another thread's call that looked at t's shown recording; returns how many have (under t's lock). */
static inline unsigned recording_looked_at(struct tracker *t)
{
    return ++t->recording_looks;
}

/*
 * Closes the fast path of every thread but me (NULL: every thread), after
 * a rare state that concerns them began (its cause already stored,
 * sequentially consistent): against fast_open, one of the two sees the
 * other.  No lock: the list of trackers only grows.
 */
void fast_close_others(const struct tracker *me);

/* Whether a call of api (of kind CALL_CAPTURE) begins the program's capture, rather than ending it. */
bool program_capture_begins(enum hook_id api);

/* Counts a capture of the program's own beginning (delta 1) or ending (-1). */
void note_program_capture(int delta);

/* Marks whether t holds calls back. */
void set_pending(struct tracker *t, bool pending);

/* Shows t's recording to other threads' calls (a hand-over ends it), or stops showing it. */
void show_recording(struct tracker *t, bool shown);

#pragma GCC visibility pop

#endif
