/* SPDX-License-Identifier: MIT */
/* reprise run: executes a program with the shim preloaded and REPRISE_* options set. */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf_read.h"
#include "options.h"
#include "reprise.h"
#include "values.h"

/* What each REPRISE_* option accepts, from policy/options.def (the shim's own list). */
const char *const option_choices[] = {
#define OPTION(id, type, def, choices, help) [OPT_##id] = choices,
#include "options.def"
#undef OPTION
};

/* Dies saying that value is not one of the choices option accepts. */
static noreturn void die_not_one_of(const char *option, const char *value, const char *choices)
{
    char expected[256];
    describe_choices(choices, expected, sizeof expected);
    die("%s %s is not valid (expected %s)", option, value, expected);
}

/* The choice value names among option's '|'-separated choices, in any case, spelt as they are (AUTO: auto), or die. */
const char *choice_of(const char *option, const char *value, const char *choices)
{
    static char name[64];
    long index;
    if (!parse_choice(value, choices, &index))
        die_not_one_of(option, value, choices);
    choice_name(choices, index, name, sizeof name);
    return name;
}

/* Whether a file exists and is readable. */
static bool readable(const char *path)
{
    return access(path, R_OK) == 0;
}

/* Dies unless the dynamic loader can preload the shim at path (where: how it was chosen, for the message). */
static void check_preloadable(const char *path, const char *where)
{
    char why[PATH_MAX + 128];
    if (!elf_preloadable(path, why, sizeof why))
        die("%s: %s; the program would run without the shim (expected libreprise.so, a shared library of this "
            "machine)",
            where, why);
}

/*
 * The shim to preload: --library PATH; else, when this program runs from a
 * build tree (it is TOP/tools/reprise/reprise and TOP/.libs/libreprise.so
 * exists), that one; else the installed $(libdir)/libreprise.so.  Dies,
 * before anything runs, unless the loader can preload it.
 */
const char *find_library(const char *given)
{
    static char path[PATH_MAX + 64];
    if (given) {
        if (!readable(given))
            die("cannot read the shim %s: %s", given, strerror(errno));
        check_preloadable(given, "--library");
        return given;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        const char *tail = "/tools/reprise";
        if (slash) {
            *slash = '\0';
            size_t len = strlen(exe), tlen = strlen(tail);
            if (len >= tlen && strcmp(exe + len - tlen, tail) == 0) {
                exe[len - tlen] = '\0';
                snprintf(path, sizeof path, "%s/.libs/libreprise.so", exe);
                if (readable(path)) {
                    check_preloadable(path, "the build tree's shim");
                    return path;
                }
            }
        }
    }
    snprintf(path, sizeof path, "%s/libreprise.so", REPRISE_LIBDIR);
    if (!readable(path))
        die("cannot find the shim: %s: %s (give it with --library PATH)", path, strerror(errno));
    check_preloadable(path, "the installed shim");
    return path;
}

/* Sets an environment variable or dies. */
static void set_env(const char *name, const char *value)
{
    if (setenv(name, value, 1) != 0)
        die("cannot set %s: %s", name, strerror(errno));
}

/* Whether a path template names one file per process: it holds %p (the pid) or %r (the rank, else the pid). */
static bool per_process(const char *tmpl)
{
    for (const char *p = tmpl; *p; p++)
        if (p[0] == '%' && p[1] != '\0') {
            if (p[1] == 'p' || p[1] == 'r')
                return true;
            p++; /* %% and the like: the next character is not a directive */
        }
    return false;
}

/*
 * Sets variable name to the path template given: as is when it holds %p or
 * %r, else with ".%p" put before its extension (t.trace: t.%p.trace) or at its
 * end (t: t.%p), so that the processes a program starts (torchrun's ranks) do
 * not write into one file.  Empty (stderr) and /dev/ paths stay as they are.
 */
static void set_path_env(const char *name, const char *tmpl)
{
    if (per_process(tmpl) || tmpl[0] == '\0' || strncmp(tmpl, "/dev/", 5) == 0) {
        set_env(name, tmpl);
        return;
    }
    const char *base = strrchr(tmpl, '/');
    base = base ? base + 1 : tmpl;
    const char *dot = strrchr(base, '.');
    size_t cut = dot && dot != base ? (size_t)(dot - tmpl) : strlen(tmpl);
    size_t len = strlen(tmpl) + 4;
    char *path = malloc(len);
    if (path == NULL)
        die("out of memory");
    snprintf(path, len, "%.*s.%%p%s", (int)cut, tmpl, tmpl + cut);
    set_env(name, path);
    free(path);
}

/* Finds program as execvp does (in PATH when it has no slash) into out; false if there is no such file. */
static bool find_program(const char *program, char *out, size_t size)
{
    if (strchr(program, '/')) {
        snprintf(out, size, "%s", program);
        return access(out, F_OK) == 0;
    }
    const char *path = getenv("PATH");
    if (path == NULL)
        path = "/usr/local/bin:/usr/bin:/bin";
    for (;;) {
        size_t len = strcspn(path, ":");
        snprintf(out, size, "%.*s/%s", (int)(len ? len : 1), len ? path : ".", program);
        if (access(out, X_OK) == 0)
            return true;
        if (path[len] == '\0')
            return false;
        path += len + 1;
    }
}

/*
 * Why execve said "No such file or directory" of a file that exists: the
 * interpreter its #! line names, or the loader its ELF header names, is
 * missing.  Writes the reason into why; false when it is neither.
 */
static bool missing_interpreter(const char *path, char *why, size_t size)
{
    char head[256 + 1] = "";
    FILE *in = fopen(path, "r");
    if (in == NULL)
        return false;
    size_t n = fread(head, 1, sizeof head - 1, in);
    fclose(in);
    head[n] = '\0';
    char loader[PATH_MAX];
    if (n > 2 && head[0] == '#' && head[1] == '!') {
        const char *name = head + 2 + strspn(head + 2, " \t");
        size_t len = strcspn(name, " \t\r\n");
        if (len == 0) {
            snprintf(why, size, "its #! line names no interpreter");
            return true;
        }
        snprintf(loader, sizeof loader, "%.*s", (int)len, name);
        if (access(loader, F_OK) == 0)
            return false;
        snprintf(why, size, "its interpreter %s (named on its #! line) does not exist", loader);
        return true;
    }
    if (elf_interpreter(path, loader, sizeof loader) && access(loader, F_OK) != 0) {
        snprintf(why, size, "the dynamic loader it was linked for, %s, does not exist here (a program built for "
                 "another system?)", loader);
        return true;
    }
    return false;
}

/* LD_PRELOAD's value with shim put first, what the environment had kept after it (malloc'd). */
char *preload_with(const char *shim)
{
    const char *old = getenv("LD_PRELOAD");
    size_t len = strlen(shim) + (old ? strlen(old) : 0) + 2;
    char *both = malloc(len);
    if (both == NULL)
        die("out of memory");
    if (old && *old)
        snprintf(both, len, "%s:%s", shim, old);
    else
        snprintf(both, len, "%s", shim);
    return both;
}

/* Why program could not be executed (err: execvp's errno), into why: its missing interpreter, else strerror. */
void describe_exec_error(const char *program, int err, char *why, size_t size)
{
    char found[PATH_MAX];
    if (err == ENOENT && find_program(program, found, sizeof found) && missing_interpreter(found, why, size))
        return;
    snprintf(why, size, "%s", strerror(err));
}

/* reprise run [OPTIONS] -- PROGRAM ARGS...: returns only on error. */
int cmd_run(int argc, char **argv)
{
    const char *library = NULL;
    int i = 1;
    for (; i < argc && !options_end(argv, &i); i++) {
        const char *a = argv[i];
        if (is_option(a, "--mode")) {
            const char *v = option_value(argc, argv, &i, "--mode");
            set_env("REPRISE_MODE", choice_of("--mode", v, option_choices[OPT_MODE]));
        } else if (is_option(a, "--log")) {
            const char *v = option_value(argc, argv, &i, "--log");
            set_env("REPRISE_LOG", choice_of("--log", v, option_choices[OPT_LOG]));
        } else if (is_option(a, "--log-file")) {
            set_path_env("REPRISE_LOG_FILE", option_value(argc, argv, &i, "--log-file"));
        } else if (is_option(a, "--trace")) {
            set_path_env("REPRISE_TRACE", option_value(argc, argv, &i, "--trace"));
        } else if (strcmp(a, "--stats") == 0) {
            set_env("REPRISE_STATS", "1");
        } else if (is_option(a, "--library")) {
            library = option_value(argc, argv, &i, "--library");
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage();
            exit(0);
        } else {
            die("unknown option '%s' for reprise run; see reprise --help", a);
        }
    }
    if (i >= argc)
        die("no program to run: reprise run [OPTIONS] -- PROGRAM [ARGS...]");
    char *preload = preload_with(find_library(library));
    set_env("LD_PRELOAD", preload);
    free(preload);
    execvp(argv[i], argv + i);
    int err = errno;
    char why[PATH_MAX + 128];
    describe_exec_error(argv[i], err, why, sizeof why);
    fprintf(stderr, "reprise: error: cannot run %s: %s\n", argv[i], why);
    /* Like a shell: 127 when the program is not found, 126 when it cannot be executed. */
    exit(err == ENOENT ? 127 : 126);
}
