/* SPDX-License-Identifier: MIT */
/* A line of the crash report: built in place, without stdio or malloc, and written with one write(2). */
#ifndef REPRISE_CRASH_LINE_H
#define REPRISE_CRASH_LINE_H

#include <stddef.h>
#include <stdint.h>

#define CRASH_LINE_MAX 1024

/* One line on the caller's stack (in a signal handler: the alternate stack). */
struct crash_line {
    char text[CRASH_LINE_MAX];
    size_t used;
};

/* Starts a line with the log's prefix: "reprise[PID:THREAD] error: crash: " ("... rank R] ..." with a rank). */
void crash_line_start(struct crash_line *line);

/* Appends s, cut where the line is full. */
void crash_line_text(struct crash_line *line, const char *s);

/* Appends n in decimal. */
void crash_line_number(struct crash_line *line, unsigned long long n);

/* Appends n in hexadecimal, with 0x before it. */
void crash_line_hex(struct crash_line *line, uintptr_t n);

/* Ends the line (a full one ends in "...") and writes it to the log's file descriptor with one write(2). */
void crash_line_write(struct crash_line *line);

#endif
