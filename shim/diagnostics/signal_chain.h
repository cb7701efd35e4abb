/* SPDX-License-Identifier: MIT */
/*
 * The crash signals' dispositions while the shim reports crashes: the
 * shim's handler stays the kernel's, and what the program installs through
 * sigaction or signal (interposed here) is kept as the program's, which the
 * shim's handler hands each signal on to.
 */
#ifndef REPRISE_SIGNAL_CHAIN_H
#define REPRISE_SIGNAL_CHAIN_H

#include <signal.h>
#include <stdbool.h>

/* The signals whose crashes are reported: SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT. */
#define SIGNAL_CHAIN_COUNT 5
extern const int signal_chain_signals[SIGNAL_CHAIN_COUNT];

/* The name of one of them ("SIGSEGV"), or "a signal". */
const char *signal_chain_name(int sig);

/*
 * Makes handler the kernel's for each of the signals (on the alternate
 * stack, nested faults let in), keeping what was there as the program's;
 * false if the C library's sigaction cannot be found.
 */
bool signal_chain_guard(void (*handler)(int, siginfo_t *, void *));

/* Gives each signal back to the program's disposition: the shim's handler leaves the kernel. */
void signal_chain_release(void);

/* Whether the program ignores sig and this one was sent, not a fault: it changes nothing (in the handler). */
bool signal_chain_ignored(int sig, const siginfo_t *info);

/* Whether the program has a handler of its own for sig (in the handler). */
bool signal_chain_handled(int sig);

/*
 * Hands sig on as the kernel would have without the shim (in the
 * handler): to the program's handler, with its mask and flags, or to the
 * default action, which ends the process.  Returns if the program's
 * handler returned, or the signal is ignored.
 */
void signal_chain_pass(int sig, siginfo_t *info, void *context);

#endif
