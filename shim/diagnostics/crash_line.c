/* SPDX-License-Identifier: MIT */
/*
 * A line of the crash report, built in place and written with one write(2):
 * what a signal handler may call (no stdio, no malloc, no lock), in the
 * log's format, so that the report reads as the log does.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "crash_line.h"
#include "log.h"

/* Room kept for the "...\n" that ends a full line. */
#define CRASH_LINE_END 4

/* Starts a line with the log's prefix: "reprise[PID:THREAD] error: crash: " ("... rank R] ..." with a rank). */
void crash_line_start(struct crash_line *line)
{
    line->used = 0;
    crash_line_text(line, "reprise[");
    crash_line_number(line, (unsigned long long)getpid());
    crash_line_text(line, ":");
    crash_line_number(line, log_thread_number());
    if (log_rank() >= 0) {
        crash_line_text(line, " rank ");
        crash_line_number(line, (unsigned long long)log_rank());
    }
    crash_line_text(line, "] error: crash: ");
}

/* Appends s, cut where the line is full. */
void crash_line_text(struct crash_line *line, const char *s)
{
    size_t room = CRASH_LINE_MAX - CRASH_LINE_END;
    while (*s && line->used < room)
        line->text[line->used++] = *s++;
}

/* Appends the digits of n in base (10 or 16), most significant first. */
static void put_digits(struct crash_line *line, unsigned long long n, unsigned base)
{
    char digits[24];
    size_t count = 0;
    do {
        digits[count++] = "0123456789abcdef"[n % base];
        n /= base;
    } while (n);
    char text[sizeof digits + 1];
    for (size_t i = 0; i < count; i++)
        text[i] = digits[count - 1 - i];
    text[count] = '\0';
    crash_line_text(line, text);
}

/* Appends n in decimal. */
void crash_line_number(struct crash_line *line, unsigned long long n)
{
    put_digits(line, n, 10);
}

/* Appends n in hexadecimal, with 0x before it. */
void crash_line_hex(struct crash_line *line, uintptr_t n)
{
    crash_line_text(line, "0x");
    put_digits(line, n, 16);
}

/* Ends the line (a full one ends in "...") and writes it to the log's file descriptor with one write(2). */
void crash_line_write(struct crash_line *line)
{
    if (line->used >= CRASH_LINE_MAX - CRASH_LINE_END) {
        memcpy(line->text + line->used, "...", 3);
        line->used += 3;
    }
    line->text[line->used++] = '\n';
    int saved_errno = errno;
    const char *at = line->text;
    size_t left = line->used;
    while (left > 0) {
        ssize_t w = write(log_fd(), at, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        at += w;
        left -= (size_t)w;
    }
    errno = saved_errno;
}
