/* reprise report: a per-region summary of a trace, and the program's numbers from its exit event. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chrome.h"
#include "reprise.h"
#include "trace_read.h"
#include "verdict.h"

/* The default cost of one eager kernel launch, in microseconds (an H200 with CUDA 13 takes about 2 to 5). */
#define DEFAULT_LAUNCH_US 4.0

/* Orders regions by process, thread and id. */
static int region_order(const void *a, const void *b)
{
    const struct region_info *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* Prints a duration in microseconds with a unit that suits it. */
static void print_duration(double us)
{
    if (us >= 1e6)
        printf("%.2f s", us / 1e6);
    else if (us >= 1e3)
        printf("%.2f ms", us / 1e3);
    else
        printf("%.1f us", us);
}

/* Prints the config event's header line. */
static void print_config(const struct json *ev)
{
    const struct json *opts = json_get(ev, "options");
    printf("process %ld: %s, reprise %s, mode %s\n", (long)json_num(ev, "pid", 0), json_str(ev, "program", "?"),
           json_str(ev, "version", "?"), json_str(opts, "REPRISE_MODE", "?"));
}

/* Prints the program-level numbers of an exit event. */
static void print_exit(const struct json *ev)
{
    /* Driver calls from outside the runtime (a static runtime's, a library's) are work too: count them. */
    const struct json *foreign = json_get(ev, "foreign_calls");
    double driver_calls = 0;
    for (size_t i = 0; foreign && foreign->type == JSON_OBJECT && i < foreign->count; i++)
        driver_calls += foreign->items[i]->number;
    printf("process %ld at exit (mode %s): %.0f runtime calls intercepted, %.0f driver calls from outside the "
           "runtime\n",
           (long)json_num(ev, "pid", 0), json_str(ev, "mode", "?"), json_num(ev, "calls_total", 0), driver_calls);
    const struct json *lists[] = {json_get(ev, "calls"), foreign};
    const char *labels[] = {"calls", "driver calls"};
    for (int l = 0; l < 2; l++) {
        if (lists[l] == NULL || lists[l]->type != JSON_OBJECT || lists[l]->count == 0)
            continue;
        printf("  %s:", labels[l]);
        for (size_t i = 0; i < lists[l]->count; i++)
            printf("%s %s %.0f", i ? "," : "", lists[l]->keys[i], lists[l]->items[i]->number);
        printf("\n");
    }
    const struct json *streams = json_get(ev, "streams");
    for (size_t i = 0; streams && streams->type == JSON_ARRAY && i < streams->count; i++) {
        const struct json *s = streams->items[i];
        printf("  stream %s:", json_str(s, "stream", "?"));
        bool any = false;
        for (size_t k = 0; s->type == JSON_OBJECT && k < s->count; k++)
            if (s->items[k]->type == JSON_NUMBER && s->items[k]->number != 0) {
                printf("%s %.0f %s", any ? "," : "", s->items[k]->number, s->keys[k]);
                any = true;
            }
        printf("%s\n", any ? "" : " nothing");
    }
    const struct json *timed = json_get(ev, "ceiling"); /* observe mode's */
    if (timed && timed->type == JSON_OBJECT) {
        struct ceiling c = {
            .node_calls = (unsigned long long)json_num(timed, "node_calls", 0),
            .node_ns = (unsigned long long)json_num(timed, "node_ns", 0),
            .between_ns = (unsigned long long)json_num(timed, "between_syncs_ns", 0),
        };
        char line[VERDICT_LINE_LEN];
        if (describe_ceiling(&c, line, sizeof line))
            printf("  ceiling: %s\n", line);
        else
            printf("  ceiling: unknown (no host time between two syncs was measured)\n");
    }
    const struct json *verdict = json_get(ev, "verdict");
    for (size_t i = 0; verdict && verdict->type == JSON_ARRAY && i < verdict->count; i++)
        if (verdict->items[i]->type == JSON_STRING)
            printf("  verdict: %s\n", verdict->items[i]->string);
}

/* Prints the table of regions and the launch time saved. */
static void print_regions(struct trace *t, double launch_us)
{
    if (t->region_count == 0) {
        printf("no regions (observe or off mode, or nothing repeated)\n");
        return;
    }
    qsort(t->regions, t->region_count, sizeof *t->regions, region_order);
    bool several_pids = t->regions[0].pid != t->regions[t->region_count - 1].pid;
    printf("%s%6s %6s %6s %-10s %10s %8s %11s %8s %6s %7s  %s\n", several_pids ? "    pid " : "", "region", "thread",
           "calls", "state", "iterations", "replays", "calls_saved", "patched", "builds", "evicted", "fallbacks");
    unsigned long long saved = 0;
    bool partial = false;
    for (size_t i = 0; i < t->region_count; i++) {
        const struct region_info *r = &t->regions[i];
        if (several_pids)
            printf("%7ld ", r->pid);
        const char *state = r->state ? r->state : r->not_graphed ? "not_graphed" : "no_summary";
        partial |= r->state == NULL;
        printf("%6u %6u %6u %-10s %10llu %8llu %11llu %8llu %6llu %7llu  ", r->id, r->tid, r->calls, state,
               r->sightings, r->replays, r->calls_saved, r->patched, r->builds, r->evictions);
        if (r->fallback_kinds == 0)
            printf("none");
        for (size_t k = 0; k < r->fallback_kinds; k++)
            printf("%s%s %llu", k ? ", " : "", r->fallbacks[k].reason, r->fallbacks[k].count);
        if (r->not_graphed)
            printf("; not graphed: %s", r->not_graphed);
        printf("\n");
        saved += r->calls_saved;
    }
    printf("launch time saved: about ");
    print_duration((double)saved * launch_us);
    printf(" (%llu calls not submitted one by one x %.2f us a launch; --launch-us sets it; the graph launches"
           " themselves are not subtracted)\n",
           saved, launch_us);
    if (partial)
        printf("regions in state no_summary have no region_summary event: their counts come from the other"
               " events (replays and calls saved are unknown)\n");
}

/* reprise report [--launch-us N] [--chrome-trace OUT] TRACE: returns the exit status. */
int cmd_report(int argc, char **argv)
{
    double launch_us = DEFAULT_LAUNCH_US;
    const char *chrome = NULL, *path = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (is_option(a, "--launch-us")) {
            const char *v = option_value(argc, argv, &i, "--launch-us");
            char *end;
            errno = 0;
            launch_us = strtod(v, &end);
            if (end == v || *end || errno || launch_us < 0)
                die("--launch-us %s is not valid (expected microseconds, e.g. 4 or 2.5)", v);
        } else if (is_option(a, "--chrome-trace")) {
            chrome = option_value(argc, argv, &i, "--chrome-trace");
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage();
            return 0;
        } else if (strcmp(a, "--") == 0 && i + 1 < argc && path == NULL) {
            path = argv[++i];
        } else if (a[0] == '-' && a[1] != '\0') {
            die("unknown option '%s' for reprise report; see reprise --help", a);
        } else if (path) {
            die("one trace at a time: '%s' and '%s' given", path, a);
        } else {
            path = a;
        }
    }
    if (path == NULL)
        die("no trace given: reprise report [--launch-us US] [--chrome-trace OUT.json] TRACE");
    struct trace t;
    trace_read(strcmp(path, "-") == 0 ? "/dev/stdin" : path, &t);

    printf("trace %s: %zu events\n", path, t.count);
    bool exited = false;
    for (size_t i = 0; i < t.count; i++)
        if (strcmp(json_str(t.events[i], "ev", ""), "config") == 0)
            print_config(t.events[i]);
    printf("\n");
    print_regions(&t, launch_us);
    for (size_t i = 0; i < t.count; i++)
        if (strcmp(json_str(t.events[i], "ev", ""), "period_found") == 0)
            printf("sync-free loop (thread %.0f): its calls repeat every %.0f; cut into regions of %.0f calls\n",
                   json_num(t.events[i], "tid", 0), json_num(t.events[i], "period", 0),
                   json_num(t.events[i], "region_calls", 0));
    for (size_t i = 0; i < t.count; i++)
        if (strcmp(json_str(t.events[i], "ev", ""), "exit") == 0) {
            printf("\n");
            print_exit(t.events[i]);
            exited = true;
        }
    fflush(stdout);
    if (t.truncated)
        note("%s is truncated: line %u is cut short (the program crashed or was killed while writing); reported up "
             "to there",
             path, t.truncated_line);
    else if (!exited)
        note("%s has no exit event: the program was killed, called _exit or is still running; region summaries "
             "and program totals are missing",
             path);
    if (chrome)
        chrome_trace_write(chrome, &t);
    return 0;
}
