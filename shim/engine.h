/* Automatic graphs: follows each thread's calls, replays known regions as graphs, falls back safely. */
#ifndef REPRISE_ENGINE_H
#define REPRISE_ENGINE_H

#include <stdbool.h>

#include "call.h"

/* Reads the engine's options; called once at init when the mode is auto. */
void engine_configure(void);

/*
 * Sees a call before it reaches the runtime.  Returns true if the engine
 * took it (held back for a graph) with *result to return to the program;
 * false if the wrapper must forward it now.
 */
bool engine_call(const struct call *call, cudaError_t *result);

/*
 * A driver call the runtime did not make (a library's own launch, copy or
 * sync, named by name), before it is forwarded.  capturable: it only adds
 * stream work a capture keeps (a launch, a memset, an event record...).
 * Such a call on a created stream is part of the thread's region: it lands
 * in the robust path's capture, or marks the region as needing that path
 * (held-back work falls back first).  Any other is a boundary: every other
 * thread's held-back work is submitted first, and this thread's region ends
 * there (a complete one is launched as its graph, an incomplete one falls
 * back).  captures is +1 for a capture begun, -1 for one ended, else 0.
 */
void engine_foreign_call(cudaStream_t stream, const char *name, int captures, bool capturable);

/* What the hooked cudaGetLastError (take) or cudaPeekAtLastError returns. */
cudaError_t engine_last_error(bool take);

/* Submits every thread's held-back work and destroys every graph (at exit). */
void engine_shutdown(void);

/* Writes each region's counts to the trace, and to the log if to_log (exit summary). */
void engine_summary(bool to_log);

#endif
