/* SPDX-License-Identifier: MIT */
/* The exit summary: in the log for people, as an event in the trace. */
#ifndef REPRISE_SUMMARY_H
#define REPRISE_SUMMARY_H

/* Logs the summary (observe mode or REPRISE_STATS) and writes the exit event to the trace. */
void summary_at_exit(void);

#endif
