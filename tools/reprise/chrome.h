/* A timeline of a trace in the Chrome trace event format (Perfetto, chrome://tracing). */
#ifndef REPRISE_CHROME_H
#define REPRISE_CHROME_H

#include "trace_read.h"

/* Writes the timeline to path; dies with one line if it cannot. */
void chrome_trace_write(const char *path, const struct trace *t);

#endif
