/* SPDX-License-Identifier: MIT */
/* reprise: runs programs with the shim preloaded, compares them without it, checks them, reports on traces. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reprise.h"

/* Prints "reprise: error: ..." on stderr and exits with status 2. */
noreturn void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("reprise: error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

/* Prints "reprise: note: ..." on stderr. */
void note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("reprise: note: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* realloc of n items of size bytes, or die. */
void *xrealloc(void *p, size_t n, size_t size)
{
    void *q = realloc(p, n * size);
    if (q == NULL)
        die("out of memory");
    return q;
}

/*
 * The value of option argv[*i] (--name VALUE or --name=VALUE), advancing *i;
 * dies if there is none, or if the next word is "--" or another option
 * (--trace -- prog, --trace --stats): a value that begins with "--" is taken
 * only as --name=VALUE.
 */
const char *option_value(int argc, char **argv, int *i, const char *name)
{
    size_t n = strlen(name);
    if (argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (*i + 1 >= argc)
        die("option %s needs a value (%s VALUE or %s=VALUE)", name, name, name);
    const char *next = argv[*i + 1];
    if (strcmp(next, "--") == 0)
        die("option %s needs a value, and '--' (the end of the options) is not one: write %s VALUE before '--'",
            name, name);
    if (strncmp(next, "--", 2) == 0)
        die("option %s needs a value, and '%s' is an option, not one (a value beginning with '--' is given as "
            "%s=VALUE)",
            name, next, name);
    return argv[++*i];
}

/* Whether arg is option name, alone or as name=VALUE. */
bool is_option(const char *arg, const char *name)
{
    size_t n = strlen(name);
    return strncmp(arg, name, n) == 0 && (arg[n] == '\0' || arg[n] == '=');
}

/* Whether argv[*i] ends the options before PROGRAM: "--" (*i moves past it) or a word not beginning with '-'. */
bool options_end(char **argv, int *i)
{
    if (strcmp(argv[*i], "--") == 0) {
        ++*i;
        return true;
    }
    return argv[*i][0] != '-';
}

/* Prints the usage text (reprise --help) to stdout. */
void usage(void)
{
    fputs("usage: reprise run [OPTIONS] -- PROGRAM [ARGS...]\n"
          "       reprise compare [OPTIONS] -- PROGRAM [ARGS...]\n"
          "       reprise check [--json] PROGRAM\n"
          "       reprise report [--launch-us US] [--chrome-trace OUT.json] TRACE...\n"
          "       reprise --help | --version\n"
          "\n"
          "run     runs PROGRAM with libreprise.so preloaded (prepended to LD_PRELOAD);\n"
          "        its exit status, signals and standard streams pass through, and\n"
          "        the processes it starts (torchrun's ranks) inherit the shim.\n"
          "          --mode off|observe|auto   REPRISE_MODE (default auto)\n"
          "          --log error|warn|info|debug  REPRISE_LOG\n"
          "          --log-file FILE           REPRISE_LOG_FILE (%p: the pid, %r: the rank)\n"
          "          --trace FILE              REPRISE_TRACE: JSON lines for `reprise report`\n"
          "          (a FILE without %p or %r gets .%p before its extension, one file\n"
          "          per process: --trace t.trace writes t.PID.trace)\n"
          "          --stats                   REPRISE_STATS=1: a summary at exit\n"
          "          --library PATH            the shim to preload (default: the build tree's\n"
          "                                    when run from it, else " REPRISE_LIBDIR "/libreprise.so)\n"
          "        Other REPRISE_* variables already set pass through (see reprise(7)).\n"
          "compare runs PROGRAM N times without the shim and N times under it, interleaved,\n"
          "        and prints the wall-clock medians, the speedup (the median of none / shim\n"
          "        within each round), whether stdout and exit status were those of the\n"
          "        first run without the shim, and what the shim's log says (regions\n"
          "        replayed, fallbacks); exit 0 when they were, 1 when not or when PROGRAM\n"
          "        fails without the shim;\n"
          "          --rounds N                rounds (default 5)\n"
          "          --mode off|observe|auto   the mode compared with none (default auto)\n"
          "          --ignore-lines REGEX      leave lines matching REGEX (extended) out of the\n"
          "                                    stdout compare (timings); may be repeated\n"
          "          --timeout S               kill a run after S seconds (a failed run)\n"
          "          --warmup N                N untimed runs without the shim first\n"
          "          --stats                   REPRISE_STATS=1 in the shim's runs: the exit\n"
          "                                    summary's replays (counting every call costs)\n"
          "          --json FILE               also write the results as JSON\n"
          "          --keep DIR                keep every run's stdout, stderr and log in DIR\n"
          "          --library PATH            the shim to preload (as for run)\n"
          "check   tells, without running PROGRAM, whether the shim can see its work:\n"
          "        how it links the CUDA runtime, which hooked functions it imports,\n"
          "        which libraries launch through the driver API; --json for scripts.\n"
          "report  summarises a trace written with --trace / REPRISE_TRACE per region;\n"
          "        several traces (one per rank or process): one table for the job,\n"
          "        a line per rank, and the ranks whose decisions differ;\n"
          "          --launch-us US            cost of one launch for the time saved (default 4)\n"
          "          --chrome-trace OUT.json   also write a timeline for Perfetto / chrome://tracing\n"
          "\n"
          "See reprise(1) and reprise(7).\n",
          stdout);
}

/* Dispatches to a subcommand. */
int main(int argc, char **argv)
{
    if (argc < 2)
        die("no command given (run, compare, check or report); see reprise --help");
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        usage();
        return 0;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("reprise %s\n", PACKAGE_VERSION);
        return 0;
    }
    if (strcmp(cmd, "run") == 0)
        return cmd_run(argc - 1, argv + 1);
    if (strcmp(cmd, "compare") == 0)
        return cmd_compare(argc - 1, argv + 1);
    if (strcmp(cmd, "check") == 0)
        return cmd_check(argc - 1, argv + 1);
    if (strcmp(cmd, "report") == 0)
        return cmd_report(argc - 1, argv + 1);
    die("unknown command '%s' (expected run, compare, check or report); see reprise --help", cmd);
}
