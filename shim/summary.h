/* The exit summary: in the log for people, as an event in the trace. */
#ifndef REPRISE_SUMMARY_H
#define REPRISE_SUMMARY_H

#include <stddef.h>

/* Logs the summary (observe mode or REPRISE_STATS) and writes the exit event to the trace. */
void summary_at_exit(void);

/* Appends "name n" to the comma-separated list in line (used: its length so far) if n is not 0 and it fits. */
void summary_append_count(char *line, size_t len, size_t *used, const char *name, unsigned long long n);

#endif
