/* SPDX-License-Identifier: MIT */
/* The crash report's stack: the faulting thread's frames, each as MODULE+0xOFFSET and its symbol where known. */
#ifndef REPRISE_CRASH_STACK_H
#define REPRISE_CRASH_STACK_H

#include <stdint.h>

/* Loads what backtrace() needs (libgcc's unwinder, which it loads and allocates for on first use): before any signal. */
void crash_stack_prepare(void);

/* Writes the calling thread's stack to the log, a line per frame, from the frame at pc (0, or not found: all). */
void crash_stack_write(uintptr_t pc);

#endif
