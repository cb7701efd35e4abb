/* SPDX-License-Identifier: MIT */
/* The diagnostic log: one line per message, one write(2) per line. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

#define LOG_LINE_MAX 1024

static const char *const level_words[] = {
    [LOG_ERROR] = "error", [LOG_WARN] = "warning", [LOG_INFO] = "info", [LOG_DEBUG] = "debug"};

static atomic_int log_threshold = LOG_WARN;
static atomic_int log_out = STDERR_FILENO;
static atomic_uint next_thread_number = 1;
static __thread unsigned thread_number;
static __thread bool in_log; /* a message formatted while logging is dropped, not recursed into */
static long log_rank_value = -1; /* the process's rank (RANK or LOCAL_RANK), -1 when none: set once at init */

/* Sets the rank shown in each line's prefix (-1: none); called once at init, before the first line. */
void log_set_rank(long rank)
{
    log_rank_value = rank < 0 ? -1 : rank;
}

/* The rank set by log_set_rank, or -1. */
long log_rank(void)
{
    return log_rank_value;
}

/* A small number for the calling thread: 1 for the first thread that logs. */
unsigned log_thread_number(void)
{
    if (thread_number == 0)
        thread_number = atomic_fetch_add(&next_thread_number, 1);
    return thread_number;
}

/* "reprise[PID:THREAD] LEVEL: message\n" into buf, "reprise[PID:THREAD rank R] ..." when a rank is set; returns
   its length. */
size_t log_format_line(char *buf, size_t len, long pid, unsigned thread, enum log_level level, const char *msg)
{
    const char *word = (unsigned)level <= LOG_DEBUG ? level_words[level] : "log";
    int n = log_rank_value >= 0
                ? snprintf(buf, len, "reprise[%ld:%u rank %ld] %s: %s", pid, thread, log_rank_value, word, msg)
                : snprintf(buf, len, "reprise[%ld:%u] %s: %s", pid, thread, word, msg);
    size_t used = n < 0 ? 0 : (size_t)n;
    if (used >= len - 1) {
        /* Truncated: keep the line a line, and say so. */
        used = len - 1;
        memcpy(buf + used - 4, "...", 3);
        used -= 1;
    }
    buf[used++] = '\n';
    buf[used] = '\0';
    return used;
}

/* Formats and writes one line with a single write(2). */
static void log_vwrite(enum log_level level, const char *fmt, va_list ap)
{
    if (in_log)
        return;
    in_log = true;
    int saved_errno = errno;
    char msg[LOG_LINE_MAX], line[LOG_LINE_MAX + 64];
    vsnprintf(msg, sizeof msg, fmt, ap);
    size_t n = log_format_line(line, sizeof line, (long)getpid(), log_thread_number(), level, msg);
    ssize_t w;
    do
        w = write(atomic_load_explicit(&log_out, memory_order_relaxed), line, n);
    while (w < 0 && errno == EINTR);
    errno = saved_errno;
    in_log = false;
}

/* Whether a message at level would be written. */
bool log_enabled(enum log_level level)
{
    return (int)level <= atomic_load_explicit(&log_threshold, memory_order_relaxed);
}

/* Writes one message if level is within the threshold. */
void log_msg(enum log_level level, const char *fmt, ...)
{
    if (!log_enabled(level))
        return;
    va_list ap;
    va_start(ap, fmt);
    log_vwrite(level, fmt, ap);
    va_end(ap);
}

/* Writes one message whatever the threshold (summaries the user asked for). */
void log_always(enum log_level level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    log_vwrite(level, fmt, ap);
    va_end(ap);
}

/* Sends the log to fd from now on (tests). */
void log_set_fd(int fd)
{
    atomic_store(&log_out, fd);
}

/* The file descriptor the log writes to. */
int log_fd(void)
{
    return atomic_load(&log_out);
}

/* Sets the threshold: messages above it are dropped (log_always's excepted). */
void log_set_threshold(enum log_level threshold)
{
    atomic_store(&log_threshold, threshold);
}

/* Appends "name n" to the comma-separated list in line (used: its length so far) if n is not 0 and it fits. */
void log_append_count(char *line, size_t len, size_t *used, const char *name, unsigned long long n)
{
    if (n == 0 || *used >= len)
        return;
    int w = snprintf(line + *used, len - *used, "%s%s %llu", *used ? ", " : "", name, n);
    *used += w > 0 ? (size_t)w : 0;
}
