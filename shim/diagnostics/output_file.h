/* SPDX-License-Identifier: MIT */
/* Files named by the user: REPRISE_LOG_FILE and REPRISE_TRACE. */
#ifndef REPRISE_OUTPUT_FILE_H
#define REPRISE_OUTPUT_FILE_H

#include <stdbool.h>
#include <stddef.h>

/* Expands %p to pid, %r to rank (pid when rank is -1: no rank) and %% to %; false if the result does not fit. */
bool expand_path_template(const char *tmpl, long pid, long rank, char *out, size_t len);

/* Opens the expanded template (%r: the rank log_set_rank set) for appending, never through a symbolic link;
   -1 with errno set on failure. */
int open_output_file(const char *tmpl, char *expanded, size_t len);

#endif
