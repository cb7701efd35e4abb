/* SPDX-License-Identifier: MIT */
/* The forwarding test's fake runtime: what it recorded. */
#ifndef REPRISE_RECORDER_H
#define REPRISE_RECORDER_H

/* The code the recorder returns for hook id: distinct per function, never cudaSuccess. */
static inline cudaError_t recorder_result(int id)
{
    return (cudaError_t)(1000 + id);
}

/* The last call recorded: its hook id and argument hash. */
int recorder_last(unsigned long long *hash);

/* How many times the recorder's function for id ran. */
unsigned long long recorder_calls(int id);

#endif
