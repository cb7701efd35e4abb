/* SPDX-License-Identifier: MIT */
/* The trace: machine-readable events, one JSON object per line (REPRISE_TRACE). */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "output_file.h"
#include "trace.h"

/* Events larger than this (the exit summary) are built on the heap. */
#define TRACE_LINE_STACK 2048

static atomic_int trace_fd = -1;
static struct timespec trace_start;

/* Opens the trace file; warns and disables the trace if it cannot. */
void trace_setup(const char *path_template)
{
    clock_gettime(CLOCK_MONOTONIC, &trace_start);
    if (path_template == NULL || path_template[0] == '\0')
        return;
    char path[4096];
    int fd = open_output_file(path_template, path, sizeof path);
    if (fd < 0) {
        log_always(LOG_WARN, "cannot open trace file %s: %s; no trace will be written", path_template,
                   strerror(errno));
        return;
    }
    atomic_store(&trace_fd, fd);
}

/* Whether events are being written. */
bool trace_enabled(void)
{
    return atomic_load_explicit(&trace_fd, memory_order_relaxed) >= 0;
}

/* Microseconds since the trace was set up. */
static long long trace_now_us(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - trace_start.tv_sec) * 1000000LL + (now.tv_nsec - trace_start.tv_nsec) / 1000;
}

/* Writes {"ev":event,"t_us":..,"pid":..,"tid":..,FIELDS} where FIELDS is fmt's output (may be empty). */
void trace_event(const char *event, const char *fmt, ...)
{
    int fd = atomic_load_explicit(&trace_fd, memory_order_relaxed);
    if (fd < 0)
        return;
    char head[160];
    int head_len = snprintf(head, sizeof head, "{\"ev\":\"%s\",\"t_us\":%lld,\"pid\":%ld,\"tid\":%u", event,
                            trace_now_us(), (long)getpid(), log_thread_number());
    va_list ap;
    va_start(ap, fmt);
    va_list again;
    va_copy(again, ap);
    int body_len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    size_t need = (size_t)head_len + (size_t)(body_len > 0 ? body_len : 0) + 4;
    char stack_line[TRACE_LINE_STACK];
    char *line = need <= sizeof stack_line ? stack_line : malloc(need);
    if (line == NULL) {
        va_end(again);
        return;
    }
    memcpy(line, head, (size_t)head_len);
    size_t used = (size_t)head_len;
    if (body_len > 0) {
        line[used++] = ',';
        vsnprintf(line + used, need - used, fmt, again);
        used += (size_t)body_len;
    }
    va_end(again);
    line[used++] = '}';
    line[used++] = '\n';
    ssize_t w;
    do
        w = write(fd, line, used);
    while (w < 0 && errno == EINTR);
    if (line != stack_line)
        free(line);
}

/* Closes the trace file. */
void trace_close(void)
{
    int fd = atomic_exchange(&trace_fd, -1);
    if (fd >= 0)
        close(fd);
}
