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

/* What the hooked cudaGetLastError (take) or cudaPeekAtLastError returns. */
cudaError_t engine_last_error(bool take);

/* Submits every thread's held-back work and destroys every graph (at exit). */
void engine_shutdown(void);

/* Writes each region's counts to the trace, and to the log if to_log (exit summary). */
void engine_summary(bool to_log);

#endif
