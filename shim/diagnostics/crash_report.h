/* SPDX-License-Identifier: MIT */
/*
 * A crash report a user can send: on SIGSEGV, SIGBUS, SIGILL, SIGFPE or
 * SIGABRT, the log gets the signal, the version, the shim's state for the
 * faulting thread and its stack, before the signal goes on to the
 * program's handler or its default action (signal_chain.h).
 */
#ifndef REPRISE_CRASH_REPORT_H
#define REPRISE_CRASH_REPORT_H

#include "crash_line.h"

/*
 * Appends to line what the shim knows of the calling thread (the engine's
 * engine_crash_state): called in the signal handler, so async-signal-safe,
 * taking no lock.
 */
typedef void (*crash_state_fn)(struct crash_line *line);

/*
 * Installs the report's handler for the five signals, with an alternate
 * signal stack for the calling thread (the main one, from the shim's
 * constructor); state (NULL: none, observe mode's) tells the faulting
 * thread's state.
 */
void crash_report_install(crash_state_fn state);

/* Gives the signals back to the program's dispositions and frees the calling thread's alternate stack (at exit). */
void crash_report_remove(void);

/*
 * Gives the calling thread an alternate signal stack if it has none, so
 * that its stack overflowing is reported too (freed when it exits): for
 * each thread that makes CUDA calls, once, when the engine first sees it.
 */
void crash_report_thread_stack(void);

#endif
