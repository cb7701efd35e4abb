/* SPDX-License-Identifier: MIT */
/* The reprise command: its subcommands and the helpers they share. */
#ifndef REPRISE_TOOL_H
#define REPRISE_TOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdnoreturn.h>

/* Prints "reprise: error: ..." on stderr and exits with status 2. */
noreturn void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints "reprise: note: ..." on stderr. */
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* realloc of n items of size bytes, or die. */
void *xrealloc(void *p, size_t n, size_t size);
/* The value of option argv[*i] (--name VALUE or --name=VALUE), advancing *i; dies if there is none (nor "--"). */
const char *option_value(int argc, char **argv, int *i, const char *name);
/* Whether arg is option name, alone or as name=VALUE. */
bool is_option(const char *arg, const char *name);
/* Prints the usage text (reprise --help) to stdout. */
void usage(void);

/* reprise run [OPTIONS] -- PROGRAM ARGS...: returns only on error. */
int cmd_run(int argc, char **argv);
/* reprise check [--json] PROGRAM: returns the exit status. */
int cmd_check(int argc, char **argv);
/* reprise report [--launch-us N] [--chrome-trace OUT] TRACE: returns the exit status. */
int cmd_report(int argc, char **argv);

#endif
