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
/* Whether argv[*i] ends the options before PROGRAM: "--" (*i moves past it) or a word not beginning with '-'. */
bool options_end(char **argv, int *i);
/* Prints the usage text (reprise --help) to stdout. */
void usage(void);

/* What each REPRISE_* option accepts (policy/options.def), indexed by OPT_*. */
extern const char *const option_choices[];
/* The choice value names among option's '|'-separated choices, in any case, spelt as they are, or die. */
const char *choice_of(const char *option, const char *value, const char *choices);
/* The shim to preload: given, else the build tree's, else the installed one; dies unless the loader can preload it. */
const char *find_library(const char *given);
/* LD_PRELOAD's value with shim put first, what the environment had kept after it (malloc'd). */
char *preload_with(const char *shim);
/* Why program could not be executed (err: execvp's errno), into why: its missing interpreter, else strerror. */
void describe_exec_error(const char *program, int err, char *why, size_t size);

/* reprise run [OPTIONS] -- PROGRAM ARGS...: returns only on error. */
int cmd_run(int argc, char **argv);
/* reprise check [--json] PROGRAM: returns the exit status. */
int cmd_check(int argc, char **argv);
/* reprise report [--launch-us N] [--chrome-trace OUT] TRACE: returns the exit status. */
int cmd_report(int argc, char **argv);
/* reprise compare [OPTIONS] -- PROGRAM ARGS...: returns the exit status. */
int cmd_compare(int argc, char **argv);

#endif
