/* SPDX-License-Identifier: MIT */
/* Automatic graphs: follows each thread's calls, replays known regions as graphs, falls back safely. */
#ifndef REPRISE_ENGINE_H
#define REPRISE_ENGINE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "call.h"
#include "crash_line.h"
#include "driver_api.h"
#include "neighbours.h"
#include "regions.h"

/* Reads the engine's options; called once at init when the mode is auto. */
void engine_configure(void);

/*
 * How the engine asks the front doors whether work may reach the GPU
 * unseen (probe says why in who): set by init.c before the first call, so
 * that the engine needs nothing of the doors.  Until then it assumes so.
 */
void engine_set_unseen_work_probe(bool (*probe)(char *who, size_t who_len));

/*
 * Sees a call before it reaches the runtime.  Returns true if the engine
 * took it (held back for a graph) with *result to return to the program;
 * false if the wrapper must forward it now.
 */
bool engine_call(const struct call *call, cudaError_t *result);

/*
 * A driver call that can be a graph node (driver_hooks.def's DRIVER_NODE),
 * made by someone other than the interposed runtime: the driver's front
 * door, the same as engine_call (a driver call the shim itself makes is
 * never taken).  *result is then the CUresult for the caller.
 */
bool engine_driver_call(const struct call *call, cudaError_t *result);

/*
 * A driver call the runtime did not make (a library's own launch, copy or
 * sync, named by name), before it is forwarded.  capturable: it only adds
 * stream work a capture keeps (a launch, a memset, an event record...).
 * Such a call on a created stream is part of the thread's region: it lands
 * in the robust path's capture, or marks the region as needing that path
 * (held-back work falls back first).  Any other is a boundary: every other
 * thread's held-back work is submitted first, and this thread's region ends
 * there (a complete one is launched as its graph, an incomplete one falls
 * back, for reason).  captures is +1 for a capture begun, -1 for one
 * ended, else 0.  stretch_api: the call as a call's api (CALL_API_DRIVER)
 * if it is a host sync, which ends a stretch for the governor, else
 * HOOK_COUNT.
 * Returns true if the call goes into a capture of the shim's: the caller
 * calls engine_direct_done once it has forwarded it.
 */
bool engine_direct_call(cudaStream_t stream, const char *name, int captures, bool capturable,
                         enum fallback_reason reason, enum hook_id stretch_api);

/*
 * After forwarding a direct call that engine_direct_call returned true
 * for (it went into this thread's robust-path capture): the watchdog may
 * end that capture again.
 */
void engine_direct_done(void);

/*
 * Whether a capture query about stream must answer "not capturing": the
 * only capture there is the shim's (a blocking stream's, for the legacy
 * stream).  False for the shim's own queries.
 */
bool engine_hides_capture(cudaStream_t stream);

/* What the hooked cudaGetLastError (take) or cudaPeekAtLastError returns. */
cudaError_t engine_last_error(bool take);

/*
 * The first error of this thread's held-back driver calls that were
 * submitted one by one after returning success (a graph that could not be
 * launched, a fallback), taken: the driver wrappers of waits return it
 * (CUDA_SUCCESS if none), where an eager program learns of a launch's
 * failure at the latest.
 */
CUresult engine_driver_error_owed(void);

/*
 * Set while this thread's call in flight is marked for other threads'
 * captures (engine_in_flight.c), or while a sync is timed for a pace
 * sample (engine_sequence.c's pace_at_boundary): engine_call_returned has
 * something to do.
 */
extern __thread bool in_flight_marked __attribute__((tls_model("initial-exec")));

/* After a call this thread made returned: clears its mark, and takes the sample of a sync timed for a pace. */
void engine_call_returned(void);

/* After a wrapper forwarded a call the engine saw: the call is no longer in flight (one TLS test, usually). */
static inline void engine_forwarded(void)
{
    if (__builtin_expect(in_flight_marked, 0))
        engine_call_returned();
}

/* What a lifetime-ending call ends: each is something a graph node or a held-back call can refer to. */
enum object_end {
    ENDS_STREAM,  /* a stream destroyed */
    ENDS_EVENT,   /* an event destroyed */
    ENDS_MODULE,  /* a module unloaded: its functions */
    ENDS_LIBRARY, /* a library unloaded: its kernels */
    ENDS_CONTEXT, /* a context destroyed, or a device's primary context reset or released: everything in it */
};

/*
 * Before a call that ends an object (name, for the log) is forwarded: every
 * thread's sequence that holds or records work referring to it ends (its
 * held-back work submitted while the object still lives), and every graph
 * that refers to it is destroyed, to be learnt again; a context's end also
 * makes every owed record and wait and drops the shim's private streams and
 * events in it.  handle: the stream, event, module or library (NULL for a
 * context).  Nothing in another mode, or for the shim's own calls.
 */
void engine_object_ends(enum object_end what, const void *handle, const char *name);

/*
 * Appends the calling thread's engine state to line, for the crash report
 * (crash_report.h's crash_state_fn, in its signal handler): how it follows
 * which region, the calls it holds back, its last call, a graph in flight.
 */
void engine_crash_state(struct crash_line *line);

/* Submits every thread's held-back work (at exit); graphs are left to the driver. */
void engine_shutdown(void);

/* Reads REPRISE_GOVERNOR and its epochs; called once at init in auto mode, after engine_configure. */
void engine_governor_configure(void);

/*
 * The governor (engine_governor.c): set while it wants the stretches
 * between host syncs timed, learning or probing.  The front doors read it
 * only while auto mode steps aside (shim_looks false), at a host sync.
 */
extern atomic_bool engine_governor_measuring;

/* Whether the governor times stretches now: one relaxed load. */
static inline bool engine_governor_timing(void)
{
    return atomic_load_explicit(&engine_governor_measuring, memory_order_relaxed);
}

/*
 * A host sync of api (a runtime hook's id, or CALL_API_DRIVER) on stream,
 * forwarded by a front door while auto mode steps aside, returned: the
 * stretch it ends is the governor's (engine_governor_timing said so).
 */
void engine_stretch_ended(enum hook_id api, cudaStream_t stream);

/* While auto mode steps aside: the program's capture call api (kind CAPTURE) is counted as the engine counts it. */
void engine_capture_aside(enum hook_id api);

/* The same for a capture begun (delta 1) or ended (-1) through the driver by anyone but the runtime. */
void engine_capture_aside_count(int delta);

/* The exit summary's line on the governor, to the log if to_log, and to the trace. */
void engine_governor_summary(bool to_log);

/* Writes each region's counts to the trace, and to the log if to_log (exit summary). */
void engine_summary(bool to_log);

/*
 * Why nothing was graphed (exit summary): true if no thread built a graph,
 * with every thread's neighbouring sequences compared into out (its
 * difference, if found, the first thread's that found one).
 */
bool engine_no_repeat(struct no_repeat *out);

#endif
