/* SPDX-License-Identifier: MIT */
/* Keeping the program's view of cudaGetLastError true while the shim makes calls of its own. */
#ifndef REPRISE_ERRORS_H
#define REPRISE_ERRORS_H

#include <stdbool.h>

#include <cuda_runtime_api.h>

/* The program's pending error, taken out of the runtime while the shim works. */
struct saved_error {
    cudaError_t error;
};

/* Takes the program's pending error out of the runtime before the shim's own calls. */
void errors_save(struct saved_error *saved);

/* Clears whatever the shim's calls left, and owes the program its own error back. */
void errors_restore(const struct saved_error *saved);

/* Owes the program an error from work the shim submitted for it (a deferred launch that failed). */
void errors_owe(cudaError_t error);

/* The error owed to this thread, cleared if take is true; cudaSuccess if none. */
cudaError_t errors_owed(bool take);

/* Counts an error owed to a program's thread (delta 1), or one it read (-1), wherever the shim keeps it. */
void errors_outstanding_add(int delta);

/* Whether any thread owes its program an error it has not read yet (auto mode cannot step aside then). */
bool errors_outstanding(void);

#endif
