/* SPDX-License-Identifier: MIT */
/* Work done on a thread's behalf by another (or the watchdog): in the thread's context, its errors owed to it. */
#ifndef REPRISE_ENGINE_ON_BEHALF_H
#define REPRISE_ENGINE_ON_BEHALF_H

#include "engine_tracker.h"

#pragma GCC visibility push(hidden)

/* Notes the current context as t's, where others submit the work t begins to hold back. */
void note_context(struct tracker *t);

/* Makes t's context current for work done on t's behalf; true if it switched (undone by libcuda_context_leave). */
bool enter_context_of(const struct tracker *t, CUcontext *previous);

/* Owes t's program the first error of work another thread did on t's behalf (its next cudaGetLastError). */
void owe_error_to(struct tracker *t, cudaError_t error);

/* Owes t's program the first error of its driver calls submitted late (its next wait through the driver). */
void owe_driver_error_to(struct tracker *t, CUresult error);

#pragma GCC visibility pop

#endif
