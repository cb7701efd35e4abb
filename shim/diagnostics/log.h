/* SPDX-License-Identifier: MIT */
/* The diagnostic log: one line per message, one write(2) per line. */
#ifndef REPRISE_LOG_H
#define REPRISE_LOG_H

#include <stdbool.h>
#include <stddef.h>

#include "options.h"

/* Sets the threshold: messages above it are dropped (log_always's excepted). */
void log_set_threshold(enum log_level threshold);

/* Sends the log to fd from now on (tests). */
void log_set_fd(int fd);

/* The file descriptor the log writes to. */
int log_fd(void);

/* Whether a message at level would be written. */
bool log_enabled(enum log_level level);

/* Writes one message if level is within the threshold. */
void log_msg(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Writes one message whatever the threshold (summaries the user asked for). */
void log_always(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "reprise[PID:THREAD] LEVEL: message\n" into buf, "reprise[PID:THREAD rank R] ..." when a rank is set; returns
   its length. */
size_t log_format_line(char *buf, size_t len, long pid, unsigned thread, enum log_level level, const char *msg);

/* Sets the rank shown in each line's prefix (-1: none); called once at init, before the first line. */
void log_set_rank(long rank);

/* The rank set by log_set_rank, or -1. */
long log_rank(void);

/* A small number for the calling thread: 1 for the first thread that logs. */
unsigned log_thread_number(void);

/* Appends "name n" to the comma-separated list in line (used: its length so far) if n is not 0 and it fits. */
void log_append_count(char *line, size_t len, size_t *used, const char *name, unsigned long long n);

#define log_error(...) log_msg(LOG_ERROR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARN, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

#endif
