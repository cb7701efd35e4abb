/* SPDX-License-Identifier: MIT */
/*
 * reprise compare: runs a program without the shim and under it, in
 * interleaved rounds, and says whether it gets faster and still prints the same.
 */
#define _GNU_SOURCE
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json.h"
#include "options.h"
#include "reprise.h"
#include "same_output.h"
#include "summary_read.h"
#include "timed_run.h"

/* The two ways each round runs the program: without the shim, and preloaded in the mode compared. */
enum variant { NONE, SHIM, VARIANTS };

/* What reprise compare was asked. */
struct compare_options {
    long rounds, warmup;
    bool stats; /* the shim's runs with REPRISE_STATS=1: the exit summary's replays and calls saved */
    const char *mode, *library, *json, *keep;
    char *ignore_text; /* the --ignore-lines given, as one regular expression (malloc'd) */
    double timeout;
    char **program; /* PROGRAM ARGS..., NULL-terminated */
};

/* One run of a round. */
struct run_record {
    bool ran;
    struct run_outcome outcome;
    bool same;                      /* its stdout is the reference's (the first run without the shim) */
    struct output_difference where; /* where it first differs, if not */
    struct shim_summary summary;    /* SHIM: its logs' exit summary */
};

/* The whole comparison: every round's two runs, and where their files are. */
struct comparison {
    struct compare_options opt;
    regex_t ignore;
    bool has_ignore;
    char dir[PATH_MAX];
    char *preload; /* LD_PRELOAD's value for the shim's runs */
    struct run_record (*runs)[VARIANTS];
    long done; /* rounds with both runs done */
};

/* A number option's value in min..max, or die. */
static long number_option(const char *name, const char *value, long min, long max)
{
    char *end;
    errno = 0;
    long n = strtol(value, &end, 10);
    if (errno || end == value || *end || n < min || n > max)
        die("%s %s is not valid (expected a whole number from %ld to %ld)", name, value, min, max);
    return n;
}

/* A time in seconds above 0, or die. */
static double seconds_option(const char *name, const char *value)
{
    char *end;
    errno = 0;
    double s = strtod(value, &end);
    if (errno || end == value || *end || !(s > 0) || s > 1e6)
        die("%s %s is not valid (expected seconds above 0, such as 60 or 2.5)", name, value);
    return s;
}

/* Adds another --ignore-lines REGEX to those given (malloc'd, so_far freed): "(A)|(B)". */
static char *add_alternative(char *so_far, const char *regex)
{
    size_t len = (so_far ? strlen(so_far) + 6 : 1) + strlen(regex);
    char *joined = xrealloc(NULL, len, 1);
    if (so_far)
        snprintf(joined, len, "(%s)|(%s)", so_far, regex);
    else
        snprintf(joined, len, "%s", regex);
    free(so_far);
    return joined;
}

/* Reads reprise compare's options; dies on bad usage. */
static void parse_options(int argc, char **argv, struct compare_options *o)
{
    *o = (struct compare_options){.rounds = 5, .mode = "auto"};
    int i = 1;
    for (; i < argc && !options_end(argv, &i); i++) {
        const char *a = argv[i];
        if (is_option(a, "--rounds"))
            o->rounds = number_option("--rounds", option_value(argc, argv, &i, "--rounds"), 1, 1000);
        else if (is_option(a, "--warmup"))
            o->warmup = number_option("--warmup", option_value(argc, argv, &i, "--warmup"), 0, 100);
        else if (is_option(a, "--mode"))
            o->mode = choice_of("--mode", option_value(argc, argv, &i, "--mode"), option_choices[OPT_MODE]);
        else if (strcmp(a, "--stats") == 0)
            o->stats = true;
        else if (is_option(a, "--library"))
            o->library = option_value(argc, argv, &i, "--library");
        else if (is_option(a, "--json"))
            o->json = option_value(argc, argv, &i, "--json");
        else if (is_option(a, "--keep"))
            o->keep = option_value(argc, argv, &i, "--keep");
        else if (is_option(a, "--timeout"))
            o->timeout = seconds_option("--timeout", option_value(argc, argv, &i, "--timeout"));
        else if (is_option(a, "--ignore-lines"))
            o->ignore_text = add_alternative(o->ignore_text, option_value(argc, argv, &i, "--ignore-lines"));
        else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage();
            exit(0);
        } else
            die("unknown option '%s' for reprise compare; see reprise --help", a);
    }
    if (i >= argc)
        die("no program to compare: reprise compare [OPTIONS] -- PROGRAM [ARGS...]");
    o->program = argv + i;
}

/* The folder of the runs' files: --keep DIR (made if missing), else a new one under $TMPDIR. */
static void make_folder(struct comparison *c)
{
    if (c->opt.keep) {
        if (mkdir(c->opt.keep, 0755) != 0 && errno != EEXIST)
            die("--keep: cannot make %s: %s", c->opt.keep, strerror(errno));
        snprintf(c->dir, sizeof c->dir, "%s", c->opt.keep);
        return;
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(c->dir, sizeof c->dir, "%s/reprise-compare.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (mkdtemp(c->dir) == NULL)
        die("cannot make a folder in %s: %s", tmp && *tmp ? tmp : "/tmp", strerror(errno));
}

/* Removes the runs' folder and its files, unless it is --keep's. */
static void remove_folder(const struct comparison *c)
{
    if (c->opt.keep || c->dir[0] == '\0')
        return;
    DIR *d = opendir(c->dir);
    if (d) {
        char path[PATH_MAX + 256];
        for (struct dirent *e; (e = readdir(d)) != NULL;) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            snprintf(path, sizeof path, "%s/%s", c->dir, e->d_name);
            unlink(path);
        }
        closedir(d);
    }
    rmdir(c->dir);
}

/* A variant's name: "none", or the mode compared. */
static const char *variant_name(const struct comparison *c, int v)
{
    return v == NONE ? "none" : c->opt.mode;
}

/* The path of a run's file: DIR/NAME.ROUND.EXT (round 0: the warm-ups', each run's over the last's). */
static void run_file(const struct comparison *c, char *path, size_t size, const char *name, long round,
                     const char *ext)
{
    snprintf(path, size, "%s/%s.%ld.%s", c->dir, name, round, ext);
}

/* The name of a signal that commonly ends a program ("SEGV"), else NULL. */
static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGHUP: return "HUP";
    case SIGINT: return "INT";
    case SIGQUIT: return "QUIT";
    case SIGILL: return "ILL";
    case SIGABRT: return "ABRT";
    case SIGBUS: return "BUS";
    case SIGFPE: return "FPE";
    case SIGKILL: return "KILL";
    case SIGSEGV: return "SEGV";
    case SIGPIPE: return "PIPE";
    case SIGTERM: return "TERM";
    }
    return NULL;
}

/* What an exit status means, for people: "0", "timeout", "134 (SIGABRT)". */
static void status_words(const struct run_outcome *o, char *buf, size_t size)
{
    const char *name = o->status > 128 ? signal_name(o->status - 128) : NULL;
    if (o->timed_out)
        snprintf(buf, size, "timeout");
    else if (name)
        snprintf(buf, size, "%d (SIG%s)", o->status, name);
    else
        snprintf(buf, size, "%d", o->status);
}

/* How a run ended, for sentences: "exited 3", "was killed by SIGSEGV (139)", "was killed after --timeout 60 s". */
static void ended_words(const struct comparison *c, const struct run_outcome *o, char *buf, size_t size)
{
    const char *name = o->status > 128 ? signal_name(o->status - 128) : NULL;
    if (o->timed_out)
        snprintf(buf, size, "was killed after --timeout %g s", c->opt.timeout);
    else if (name)
        snprintf(buf, size, "was killed by SIG%s (%d)", name, o->status);
    else
        snprintf(buf, size, "exited %d", o->status);
}

/* Prints the last lines of a run's stderr on reprise's, indented. */
static void show_stderr_tail(const char *path)
{
    FILE *in = fopen(path, "r");
    if (in == NULL)
        return;
    char *lines[6] = {0};
    size_t caps[6] = {0};
    unsigned n = 0;
    while (getline(&lines[n % 6], &caps[n % 6], in) > 0)
        n++;
    fclose(in);
    unsigned first = n > 6 ? n - 6 : 0;
    if (n)
        fprintf(stderr, "  its stderr's last lines:\n");
    for (unsigned k = first; k < n; k++)
        fprintf(stderr, "  | %.*s\n", (int)strcspn(lines[k % 6], "\n"), lines[k % 6]);
    for (unsigned k = 0; k < 6; k++)
        free(lines[k]);
}

/* Runs variant v of round r (0: a warm-up), its files in the folder; dies if it cannot be executed. */
static void run_variant(struct comparison *c, long r, int v, struct run_record *rec)
{
    char out[PATH_MAX + 64], err[PATH_MAX + 64], log[PATH_MAX + 128], prefix[64];
    const char *name = r == 0 ? "warmup" : v == NONE ? "none" : "shim";
    run_file(c, out, sizeof out, name, r, "out");
    run_file(c, err, sizeof err, name, r, "err");
    snprintf(prefix, sizeof prefix, "log.shim.%ld.", r);
    snprintf(log, sizeof log, "REPRISE_LOG_FILE=%s/%s%%p", c->dir, prefix);
    const char *level = getenv("REPRISE_LOG");
    char *mode = xrealloc(NULL, strlen(c->opt.mode) + 14, 1), *preload = xrealloc(NULL, strlen(c->preload) + 12, 1);
    sprintf(mode, "REPRISE_MODE=%s", c->opt.mode);
    sprintf(preload, "LD_PRELOAD=%s", c->preload);
    /* Decisions in the log at info (debug kept); the exit summary too with --stats, which counts every call. */
    const char *env[] = {preload, mode, level && strcasecmp(level, "debug") == 0 ? "REPRISE_LOG=debug" : "REPRISE_LOG=info",
                         log, c->opt.stats ? "REPRISE_STATS=1" : NULL, NULL};
    struct run_request req = {
        .argv = c->opt.program, .env = v == SHIM ? env : NULL, .out = out, .err = err, .timeout = c->opt.timeout};
    timed_run(&req, &rec->outcome);
    free(mode);
    free(preload);
    rec->ran = true;
    if (rec->outcome.exec_error) {
        char why[PATH_MAX + 128];
        describe_exec_error(c->opt.program[0], rec->outcome.exec_error, why, sizeof why);
        remove_folder(c);
        die("cannot run %s: %s", c->opt.program[0], why);
    }
    if (v == SHIM)
        summary_read(c->dir, prefix, &rec->summary);
}

/* The median of n values (n > 0; reorders them). */
static double median(double *x, long n)
{
    for (long i = 1; i < n; i++)
        for (long j = i; j > 0 && x[j - 1] > x[j]; j--) {
            double t = x[j];
            x[j] = x[j - 1];
            x[j - 1] = t;
        }
    return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

/* What the rounds done say, for the table's last lines and the JSON. */
struct findings {
    double none_s, shim_s, speedup; /* medians */
    bool identical, same_status;
    long first_differs, first_differs_v;   /* the first run whose stdout differs: round, variant (-1: none) */
    long first_status, first_status_v;     /* the first run whose status is not the reference's */
    unsigned none_differs;                 /* runs without the shim whose stdout is not the reference's */
    unsigned logged, summaries, replaying, aside; /* shim runs with a log, an exit summary, a region replayed, that
                                                     stepped aside */
    double graphed, replayed, replays, saved;     /* per shim run, medians */
    struct reason_counts fallbacks;               /* every shim run's, summed */
    unsigned warnings, errors;
    char stepped_aside[256], ceiling[256];        /* the first run's that says it */
    long aside_round;
};

/* The columns of the rounds' numbers whose medians find takes. */
enum column { COL_NONE, COL_SHIM, COL_RATIO, COL_GRAPHED, COL_REPLAYED, COL_REPLAYS, COL_SAVED, COLUMNS };

/* Works out the findings of the rounds done. */
static void find(const struct comparison *c, struct findings *f)
{
    memset(f, 0, sizeof *f);
    f->identical = f->same_status = true;
    f->first_differs = f->first_status = -1;
    long n = c->done;
    double *x = xrealloc(NULL, (size_t)(n + 1) * COLUMNS, sizeof *x);
    const struct run_outcome *ref = &c->runs[0][NONE].outcome;
    for (long r = 0; r < n; r++) {
        const struct shim_summary *s = &c->runs[r][SHIM].summary;
        x[COL_NONE * n + r] = c->runs[r][NONE].outcome.seconds;
        x[COL_SHIM * n + r] = c->runs[r][SHIM].outcome.seconds;
        x[COL_RATIO * n + r] = x[COL_SHIM * n + r] > 0 ? x[COL_NONE * n + r] / x[COL_SHIM * n + r] : 0;
        x[COL_GRAPHED * n + r] = (double)s->graphed;
        x[COL_REPLAYED * n + r] = (double)s->replayed;
        x[COL_REPLAYS * n + r] = (double)s->replays;
        x[COL_SAVED * n + r] = (double)s->calls_saved;
        for (int v = 0; v < VARIANTS; v++) {
            const struct run_record *rec = &c->runs[r][v];
            f->none_differs += v == NONE && !rec->same;
            if (!rec->same && f->identical) {
                f->identical = false;
                f->first_differs = r, f->first_differs_v = v;
            }
            if ((rec->outcome.status != ref->status || rec->outcome.timed_out) && f->same_status) {
                f->same_status = false;
                f->first_status = r, f->first_status_v = v;
            }
        }
        f->logged += s->logs > 0;
        f->summaries += s->exits > 0;
        f->replaying += s->replayed > 0;
        if (s->stepped_aside[0] && f->aside++ == 0) {
            memcpy(f->stepped_aside, s->stepped_aside, sizeof s->stepped_aside);
            f->aside_round = r + 1;
        }
        for (unsigned k = 0; k < s->fallbacks.count; k++)
            reasons_add(&f->fallbacks, s->fallbacks.reason[k].name, strlen(s->fallbacks.reason[k].name),
                        s->fallbacks.reason[k].count);
        f->warnings += s->warnings;
        f->errors += s->errors;
        if (!f->ceiling[0])
            memcpy(f->ceiling, s->ceiling, sizeof s->ceiling);
    }
    if (n > 0) {
        f->none_s = median(x + COL_NONE * n, n);
        f->shim_s = median(x + COL_SHIM * n, n);
        f->speedup = median(x + COL_RATIO * n, n);
        f->graphed = median(x + COL_GRAPHED * n, n);
        f->replayed = median(x + COL_REPLAYED * n, n);
        f->replays = median(x + COL_REPLAYS * n, n);
        f->saved = median(x + COL_SAVED * n, n);
    }
    free(x);
}

/* A name and the mode compared spelt after it: "auto_s", "exit_auto". */
static const char *mode_column(const struct comparison *c, const char *before, const char *after)
{
    static char names[3][48];
    static int next;
    char *name = names[next++ % 3];
    snprintf(name, sizeof names[0], "%s%s%s", before, c->opt.mode, after);
    return name;
}

/* What the table shows of a run's stdout: the reference, same or differs. */
static const char *stdout_word(long r, int v, const struct run_record *rec)
{
    return r == 0 && v == NONE ? "reference" : rec->same ? "same" : "differs";
}

/* Prints the rounds' table: a row per round, then the medians. */
static void print_table(const struct comparison *c, const struct findings *f)
{
    int mode_len = (int)strlen(c->opt.mode);
    int first_w = mode_len > 5 ? mode_len : 5, exit_w = 5 + mode_len, out_w = 7 + mode_len;
    bool regions = strcmp(c->opt.mode, "auto") == 0;
    printf("%-6s %-*s %10s %10s %8s %-*s %-*s %-*s %-*s %-9s %s\n", "round", first_w, "first", "none_s",
           mode_column(c, "", "_s"), "speedup", exit_w, "exit_none", exit_w, mode_column(c, "exit_", ""), out_w,
           "stdout_none", out_w, mode_column(c, "stdout_", ""), "replayed", "fallbacks");
    for (long r = 0; r < c->done; r++) {
        const struct run_record *none = &c->runs[r][NONE], *shim = &c->runs[r][SHIM];
        char exit_none[32], exit_shim[32], replayed[48] = "-", fallbacks[24] = "-";
        status_words(&none->outcome, exit_none, sizeof exit_none);
        status_words(&shim->outcome, exit_shim, sizeof exit_shim);
        if (regions && shim->summary.logs) {
            snprintf(replayed, sizeof replayed, "%llu/%llu", shim->summary.replayed, shim->summary.graphed);
            snprintf(fallbacks, sizeof fallbacks, "%llu", shim->summary.fallbacks.total);
        }
        double ratio = shim->outcome.seconds > 0 ? none->outcome.seconds / shim->outcome.seconds : 0;
        printf("%-6ld %-*s %10.4f %10.4f %8.3f %-*s %-*s %-*s %-*s %-9s %s\n", r + 1, first_w,
               r % 2 ? c->opt.mode : "none", none->outcome.seconds, shim->outcome.seconds, ratio, exit_w, exit_none,
               exit_w, exit_shim, out_w, stdout_word(r, NONE, none), out_w, stdout_word(r, SHIM, shim), replayed,
               fallbacks);
    }
    printf("%-6s %-*s %10.4f %10.4f %8.3f\n", "median", first_w, "", f->none_s, f->shim_s, f->speedup);
}

/* "round 2's run under auto" or "round 2's run without the shim", for messages. */
static void run_words(const struct comparison *c, long r, int v, char *buf, size_t size)
{
    if (v == NONE)
        snprintf(buf, size, "round %ld's run without the shim", r + 1);
    else
        snprintf(buf, size, "round %ld's run under %s", r + 1, c->opt.mode);
}

/* Prints whether every run printed the same, and where the first one that did not differs. */
static void print_identical(const struct comparison *c, const struct findings *f)
{
    const char *left_out = c->has_ignore ? ", the lines --ignore-lines matches left out" : "";
    if (f->identical) {
        printf("identical: yes (every run's stdout is round 1's without the shim%s)\n", left_out);
        return;
    }
    char who[96];
    run_words(c, f->first_differs, (int)f->first_differs_v, who, sizeof who);
    const struct output_difference *d = &c->runs[f->first_differs][f->first_differs_v].where;
    printf("identical: no: %s printed other than round 1's run without the shim%s; first at ", who, left_out);
    if (d->line_a == 0)
        printf("its line %lu, \"%s\", after the reference's end\n", d->line_b, d->text_b);
    else if (d->line_b == 0)
        printf("the reference's line %lu, \"%s\", after its end\n", d->line_a, d->text_a);
    else
        printf("the reference's line %lu, \"%s\", against its line %lu, \"%s\"\n", d->line_a, d->text_a, d->line_b,
               d->text_b);
    if (f->none_differs)
        printf("(and %u of the other runs without the shim printed other than the first: the program's output varies "
               "from run to run; --ignore-lines REGEX leaves such lines out)\n",
               f->none_differs);
}

/* Prints whether every run exited as the first run without the shim did; if not, the first that did not. */
static void print_status(const struct comparison *c, const struct findings *f)
{
    char ref[32], got[64], who[96];
    status_words(&c->runs[0][NONE].outcome, ref, sizeof ref);
    if (f->same_status) {
        printf("exit status: %s in every run\n", ref);
        return;
    }
    const struct run_record *rec = &c->runs[f->first_status][f->first_status_v];
    ended_words(c, &rec->outcome, got, sizeof got);
    run_words(c, f->first_status, (int)f->first_status_v, who, sizeof who);
    printf("exit status: differs: %s %s, round 1's without the shim %s\n", who, got, ref);
    char err[PATH_MAX + 64];
    run_file(c, err, sizeof err, f->first_status_v == NONE ? "none" : "shim", f->first_status + 1, "err");
    fflush(stdout);
    show_stderr_tail(err);
}

/* Prints what the shim's logs say of its runs: regions replayed, fallbacks, stepping aside. */
static void print_shim(const struct comparison *c, const struct findings *f)
{
    const char *m = c->opt.mode;
    bool is_auto = strcmp(m, "auto") == 0, summarised = c->opt.stats || strcmp(m, "observe") == 0;
    long n = c->done;
    if (f->logged < n)
        printf("shim (%s): no log in %ld of %ld runs: the shim did not start in them (not preloaded?)\n", m,
               n - (long)f->logged, n);
    else if (summarised && f->summaries < n)
        printf("shim (%s): no exit summary in the logs of %ld of %ld runs (a run that crashed, was killed or made "
               "no CUDA call writes none)\n",
               m, n - (long)f->summaries, n);
    if (f->logged == 0)
        return;
    if (is_auto) {
        printf("shim (%s): regions replayed in %u of %ld runs; a run (medians): %.0f regions graphed, %.0f replayed", m,
               f->replaying, n, f->graphed, f->replayed);
        if (c->opt.stats)
            printf(", %.0f replays, %.0f calls not submitted one by one", f->replays, f->saved);
        printf("\n");
    }
    if (f->ceiling[0])
        printf("shim (%s): ceiling: %s (round 1)\n", m, f->ceiling);
    if (f->fallbacks.count) {
        printf("fell back:");
        for (unsigned k = 0; k < f->fallbacks.count; k++)
            printf("%s %s %llu", k ? "," : "", f->fallbacks.reason[k].name, f->fallbacks.reason[k].count);
        printf(" (summed over %ld run%s%s)\n", n, n == 1 ? "" : "s",
               c->opt.stats ? "" : "; the log's lines: a region that does not pay is said once");
    } else if (is_auto) {
        printf("fell back: never\n");
    }
    if (f->aside)
        printf("stepped aside: in %u of %ld runs (round %ld: %s)\n", f->aside, n, f->aside_round, f->stepped_aside);
    else if (is_auto)
        printf("stepped aside: no\n");
    if (f->warnings || f->errors)
        printf("shim (%s): %u warnings and %u errors in its logs%s\n", m, f->warnings, f->errors,
               c->opt.keep ? "" : " (--keep DIR keeps them)");
}

/* Writes the comparison as one JSON object to --json's file. */
static void write_json(const struct comparison *c, const struct findings *f, const char *result)
{
    FILE *out = fopen(c->opt.json, "w");
    if (out == NULL) {
        note("--json: cannot write %s: %s", c->opt.json, strerror(errno));
        return;
    }
    fputs("{\"program\":[", out);
    for (char **a = c->opt.program; *a; a++) {
        fputs(a == c->opt.program ? "" : ",", out);
        json_write_string(out, *a);
    }
    fputs("],\"mode\":", out);
    json_write_string(out, c->opt.mode);
    fprintf(out, ",\"reference_status\":%d,\"rounds\":%ld,\"rounds_done\":%ld,\"warmup\":%ld,\"none_s\":%.6f,\"shim_s\":%.6f,"
                 "\"speedup\":%.4f,\"identical\":%s,\"same_status\":%s,\"result\":",
            c->runs[0][NONE].outcome.status, c->opt.rounds, c->done, c->opt.warmup, f->none_s, f->shim_s, f->speedup, f->identical ? "true" : "false",
            f->same_status ? "true" : "false");
    json_write_string(out, result);
    fprintf(out, ",\"stats\":%s,\"logged\":%u,\"summaries\":%u,\"replaying\":%u,\"graphed\":%.1f,\"replayed\":%.1f,"
                 "\"replays\":%.1f,\"calls_saved\":%.1f,\"stepped_aside\":%u,\"fallbacks\":{",
            c->opt.stats ? "true" : "false", f->logged, f->summaries, f->replaying, f->graphed, f->replayed,
            f->replays, f->saved, f->aside);
    for (unsigned k = 0; k < f->fallbacks.count; k++) {
        fputs(k ? "," : "", out);
        json_write_string(out, f->fallbacks.reason[k].name);
        fprintf(out, ":%llu", f->fallbacks.reason[k].count);
    }
    fputs("},\"runs\":[", out);
    for (long r = 0; r < c->done; r++)
        for (int v = 0; v < VARIANTS; v++) {
            const struct run_record *rec = &c->runs[r][v];
            const struct shim_summary *s = &rec->summary;
            fprintf(out, "%s{\"round\":%ld,\"variant\":\"%s\",\"seconds\":%.6f,\"status\":%d,\"timed_out\":%s,"
                         "\"same_stdout\":%s",
                    r || v ? "," : "", r + 1, variant_name(c, v), rec->outcome.seconds, rec->outcome.status,
                    rec->outcome.timed_out ? "true" : "false", rec->same ? "true" : "false");
            if (v == SHIM)
                fprintf(out, ",\"logs\":%u,\"summary\":%s,\"graphed\":%llu,\"replayed\":%llu,\"replays\":%llu,"
                             "\"calls_saved\":%llu,\"fallbacks\":%llu,\"warnings\":%u",
                        s->logs, s->exits ? "true" : "false", s->graphed, s->replayed, s->replays, s->calls_saved,
                        s->fallbacks.total, s->warnings);
            if (v == SHIM && s->stepped_aside[0]) {
                fputs(",\"stepped_aside\":", out);
                json_write_string(out, s->stepped_aside);
            }
            fputs("}", out);
        }
    fputs("]}\n", out);
    if (fclose(out) != 0)
        note("--json: cannot write %s: %s", c->opt.json, strerror(errno));
}

/* Ends reprise compare after a signal: the run in progress was ended; its files removed. */
static noreturn void interrupted(struct comparison *c)
{
    int sig = run_interrupted;
    remove_folder(c);
    fprintf(stderr, "reprise: compare interrupted (%s)\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
    signal(sig, SIG_DFL);
    raise(sig);
    exit(128 + sig);
}

/* Prints a word of the command line after a space, in single quotes if a shell would split or expand it. */
static void print_word(const char *w)
{
    if (*w && strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=/.,:@%") == strlen(w)) {
        printf(" %s", w);
        return;
    }
    fputs(" '", stdout);
    for (; *w; w++)
        fputs(*w == '\'' ? "'\\''" : (char[]){*w, '\0'}, stdout);
    fputs("'", stdout);
}

/* Runs the first run without the shim (round 1's), after the warm-ups; false if the program fails without it. */
static bool run_reference(struct comparison *c)
{
    struct run_record warm;
    for (long k = 0; k < c->opt.warmup; k++) {
        run_variant(c, 0, NONE, &warm);
        if (run_interrupted)
            interrupted(c);
    }
    struct run_record *ref = &c->runs[0][NONE];
    run_variant(c, 1, NONE, ref);
    if (run_interrupted)
        interrupted(c);
    ref->same = true;
    if (ref->outcome.status == 0 && !ref->outcome.timed_out)
        return true;
    char words[64], err[PATH_MAX + 64];
    ended_words(c, &ref->outcome, words, sizeof words);
    printf("the program fails without the shim: it %s (round 1's run without the shim); nothing to compare\n", words);
    printf("result: fails without the shim\n");
    fflush(stdout);
    run_file(c, err, sizeof err, "none", 1, "err");
    show_stderr_tail(err);
    return false;
}

/* Runs round r's two runs, none first in odd rounds, the shim first in even ones; compares their stdout. */
static void run_round(struct comparison *c, long r, const regex_t *ignore)
{
    char ref[PATH_MAX + 64], out[PATH_MAX + 64];
    run_file(c, ref, sizeof ref, "none", 1, "out");
    for (int k = 0; k < VARIANTS; k++) {
        int v = r % 2 ? (k == 0 ? SHIM : NONE) : k;
        struct run_record *rec = &c->runs[r][v];
        if (rec->ran) /* round 1's reference */
            continue;
        run_variant(c, r + 1, v, rec);
        if (run_interrupted)
            interrupted(c);
        run_file(c, out, sizeof out, v == NONE ? "none" : "shim", r + 1, "out");
        rec->same = same_output(ref, out, ignore, &rec->where);
    }
    c->done = r + 1;
    note("round %ld of %ld: none %.4f s, %s %.4f s", r + 1, c->opt.rounds, c->runs[r][NONE].outcome.seconds,
         c->opt.mode, c->runs[r][SHIM].outcome.seconds);
}

/* reprise compare [OPTIONS] -- PROGRAM ARGS...: returns the exit status. */
int cmd_compare(int argc, char **argv)
{
    struct comparison c = {0};
    parse_options(argc, argv, &c.opt);
    if (c.opt.ignore_text) {
        int e = regcomp(&c.ignore, c.opt.ignore_text, REG_EXTENDED | REG_NOSUB);
        if (e != 0) {
            char why[256];
            regerror(e, &c.ignore, why, sizeof why);
            die("--ignore-lines %s is not a valid extended regular expression: %s", c.opt.ignore_text, why);
        }
        c.has_ignore = true;
    }
    c.preload = preload_with(find_library(c.opt.library));
    const char *old = getenv("LD_PRELOAD");
    if (old && strstr(old, "libreprise"))
        note("LD_PRELOAD already holds %s: the runs \"without the shim\" have it too", old);
    c.runs = xrealloc(NULL, (size_t)c.opt.rounds, sizeof *c.runs);
    memset(c.runs, 0, (size_t)c.opt.rounds * sizeof *c.runs);
    make_folder(&c);
    timed_run_catch_signals();
    printf("reprise compare:");
    for (char **a = c.opt.program; *a; a++)
        print_word(*a);
    printf("\nrounds: %ld, each a run without the shim (none) and one under %s, the order alternating\n", c.opt.rounds,
           c.opt.mode);
    fflush(stdout);
    int status = 1;
    struct findings f;
    if (run_reference(&c)) {
        for (long r = 0; r < c.opt.rounds; r++)
            run_round(&c, r, c.has_ignore ? &c.ignore : NULL);
        find(&c, &f);
        print_table(&c, &f);
        printf("speedup: %.3f (the median over rounds of none_s / %s_s within the round); medians: none %.4f s, "
               "%s %.4f s\n",
               f.speedup, c.opt.mode, f.none_s, c.opt.mode, f.shim_s);
        print_identical(&c, &f);
        print_status(&c, &f);
        print_shim(&c, &f);
        status = f.identical && f.same_status ? 0 : 1;
        printf("result: %s\n", status == 0                       ? "same stdout and exit status in every run"
                               : !f.identical && !f.same_status ? "differs: stdout and exit status"
                               : !f.identical                   ? "differs: stdout"
                                                                : "differs: exit status");
        if (c.opt.json)
            write_json(&c, &f, status == 0 ? "same" : "differs");
    } else {
        c.done = 0;
        find(&c, &f);
        if (c.opt.json)
            write_json(&c, &f, "fails without the shim");
    }
    if (c.opt.keep)
        note("every run's stdout, stderr and the shim's logs are in %s", c.dir);
    remove_folder(&c);
    if (c.has_ignore)
        regfree(&c.ignore);
    free(c.opt.ignore_text);
    free(c.runs);
    free(c.preload);
    return status;
}
