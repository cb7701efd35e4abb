/* SPDX-License-Identifier: MIT */
/* Files named by the user: REPRISE_LOG_FILE and REPRISE_TRACE; the log opens its own here, above log.c. */
#ifndef REPRISE_OUTPUT_FILE_H
#define REPRISE_OUTPUT_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "options.h"

/* Expands %p to pid, %r to rank (pid when rank is -1: no rank) and %% to %; false if the result does not fit. */
bool expand_path_template(const char *tmpl, long pid, long rank, char *out, size_t len);

/* Opens the expanded template (%r: the rank log_set_rank set) for appending, never through a symbolic link;
   -1 with errno set on failure. */
int open_output_file(const char *tmpl, char *expanded, size_t len);

/* Sets the log's threshold and opens path_template for it ("" = stderr); falls back to stderr with a warning. */
void log_setup(enum log_level threshold, const char *path_template);

#endif
