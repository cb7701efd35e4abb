/* SPDX-License-Identifier: MIT */
/* The trace: machine-readable events, one JSON object per line (REPRISE_TRACE). */
#ifndef REPRISE_TRACE_H
#define REPRISE_TRACE_H

#include <stdbool.h>

/* Opens the trace file; warns and disables the trace if it cannot. */
void trace_setup(const char *path_template);

/* Whether events are being written. */
bool trace_enabled(void);

/* Writes {"ev":event,"t_us":..,"pid":..,"tid":..,FIELDS} where FIELDS is fmt's output (may be empty). */
void trace_event(const char *event, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Closes the trace file. */
void trace_close(void);

#endif
