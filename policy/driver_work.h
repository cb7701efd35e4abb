/* SPDX-License-Identifier: MIT */
/* Which CUDA driver functions submit, wait for or query stream work: the ones that must not go unseen. */
#ifndef REPRISE_DRIVER_WORK_H
#define REPRISE_DRIVER_WORK_H

#include <stdbool.h>

/*
 * Shell patterns for the driver's work families, by name: a library handed
 * one of these that shim/base/driver_hooks.def has no wrapper for (a version the
 * table does not know yet) could submit work the shim does not see.
 */
#define DRIVER_WORK_PATTERNS                                                                                     \
    "cuLaunch*, cuMemcpy*, cuMemset*, cuEventRecord*, cuEventSynchronize*, cuEventQuery*, cuStreamWaitEvent*, " \
    "cuStreamWaitValue*, cuStreamWriteValue*, cuStreamBatchMemOp*, cuStreamSynchronize*, cuStreamQuery*, "      \
    "cuStreamAddCallback*, cuStreamAttachMemAsync*, cuStreamBeginCapture*, cuStreamEndCapture*, "               \
    "cuCtxSynchronize*, cuGraphLaunch*, cuGraphUpload*, cuMemAlloc*, cuMemFree*, cuMemHostAlloc*, "             \
    "cuMemPrefetch*, cuMemDiscard*, cuMemMapArrayAsync*, cuMemBatchDecompress*, cuSignalExternalSemaphores*, "  \
    "cuWaitExternalSemaphores*"

/* Whether a driver symbol (as asked of cuGetProcAddress, or as exported) belongs to a work family. */
bool driver_symbol_is_work(const char *symbol);

#endif
