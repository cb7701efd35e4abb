/* SPDX-License-Identifier: MIT */
/* A timeline of a trace in the Chrome trace event format (Perfetto, chrome://tracing). */
#ifndef REPRISE_CHROME_H
#define REPRISE_CHROME_H

#include "trace_read.h"

/* Writes the timeline to path; dies with one line if it cannot. */
void chrome_trace_write(const char *path, const struct trace *t);

/* A process of one of several traces and the track (Chrome's pid) it is drawn on, with the track's name. */
struct chrome_track {
    size_t trace;
    long pid;
    long track; /* its rank, or its pid when it has none */
    const char *name;
};

/* Writes one timeline of several traces to path, each process on its track (a rank's: the rank); dies if it cannot. */
void chrome_trace_write_job(const char *path, const struct trace *traces, size_t n, const struct chrome_track *tracks,
                            size_t ntracks);

#endif
