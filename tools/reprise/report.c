/* SPDX-License-Identifier: MIT */
/* reprise report: a per-region summary of a trace, and the program's numbers from its exit event. */
#include "config.h"

#include <errno.h>
#include <glob.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "activity.h"
#include "chrome.h"
#include "neighbours.h"
#include "options.h"
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

/* Copies a string of an event into a word of fixed size. */
static void copy_word(char *word, size_t len, const struct json *ev, const char *name)
{
    snprintf(word, len, "%s", json_str(ev, name, ""));
}

/* Why nothing was graphed, from a no_repeat event, in the words the exit summary used; false if it cannot be said. */
static bool describe_no_repeat_event(const struct json *ev, char *line, size_t len)
{
    struct no_repeat r = {
        .found = true,
        .compared = (unsigned long long)json_num(ev, "compared", 0),
        .recurred = (unsigned long long)json_num(ev, "recurred", 0),
        .compared_calls = (unsigned long long)json_num(ev, "compared_calls", 0),
        .most_seen = (unsigned)json_num(ev, "most_seen", 0),
        .thread = (unsigned)json_num(ev, "thread", 0),
    };
    double call = json_num(ev, "call", 0);
    r.difference.position = call >= 1 ? (unsigned)call - 1 : 0;
    r.difference.field = sig_field_named(json_str(ev, "field", ""));
    r.difference.before_length = (unsigned)json_num(ev, "before_calls", 0);
    r.difference.after_length = (unsigned)json_num(ev, "after_calls", 0);
    copy_word(r.words.api, sizeof r.words.api, ev, "api");
    copy_word(r.words.kernel, sizeof r.words.kernel, ev, "kernel");
    copy_word(r.words.field, sizeof r.words.field, ev, "what");
    copy_word(r.words.before, sizeof r.words.before, ev, "before");
    copy_word(r.words.after, sizeof r.words.after, ev, "after");
    return describe_no_repeat(&r, line, len);
}

/* Prints the program-level numbers of an exit event; a verdict line the same as said is left out (said already). */
static void print_exit(const struct json *ev, const char *said)
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
            .warmup_ns = (unsigned long long)json_num(timed, "warmup_ns", 0),
            .warmup_spans = (unsigned long long)json_num(timed, "warmup_spans", 0),
        };
        char line[VERDICT_LINE_LEN];
        if (describe_ceiling(&c, line, sizeof line))
            printf("  ceiling: %s\n", line);
        else
            printf("  ceiling: unknown (no host time between two syncs was measured)\n");
    }
    const struct json *verdict = json_get(ev, "verdict");
    for (size_t i = 0; verdict && verdict->type == JSON_ARRAY && i < verdict->count; i++)
        if (verdict->items[i]->type == JSON_STRING && strcmp(verdict->items[i]->string, said) != 0)
            printf("  verdict: %s\n", verdict->items[i]->string);
}

/* Each REPRISE_* option's default, from policy/options.def (REPRISE_MIN_REGION_CALLS's: shorter gain little). */
static const char *const option_defaults[] = {
#define OPTION(id, type, def, choices, help) [OPT_##id] = def,
#include "options.def"
#undef OPTION
};

/* The first event called name, or NULL. */
static const struct json *first_event(const struct trace *t, const char *name)
{
    for (size_t i = 0; i < t->count; i++)
        if (strcmp(json_str(t->events[i], "ev", ""), name) == 0)
            return t->events[i];
    return NULL;
}

/* Sums, over the exit events' streams, the calls a region holds (node calls) and the boundaries between regions. */
static void count_node_calls(const struct trace *t, double *calls, double *boundaries)
{
    *calls = *boundaries = 0;
    for (size_t i = 0; i < t->count; i++) {
        if (strcmp(json_str(t->events[i], "ev", ""), "exit") != 0)
            continue;
        const struct json *streams = json_get(t->events[i], "streams");
        for (size_t k = 0; streams && streams->type == JSON_ARRAY && k < streams->count; k++)
            for (enum activity a = 0; a < ACT_COUNT; a++) {
                double n = json_num(streams->items[k], activity_name(a), 0);
                if (a <= ACT_EVENT_WAIT)
                    *calls += n;
                else
                    *boundaries += n;
            }
    }
}

/*
 * Says why a trace has no regions: its mode; or, in auto mode, sequences of
 * calls shorter on average than REPRISE_MIN_REGION_CALLS (the config event's),
 * from the exit event's counts of node calls (launches, copies, sets, events,
 * host functions) and of what ends a region (syncs, queries, allocations,
 * frees, the program's captures and graph launches); else that nothing repeated
 * (as far as a trace without its exit event goes).
 */
static void print_no_regions(const struct trace *t)
{
    const struct json *options = json_get(first_event(t, "config"), "options");
    const char *mode = json_str(options, "REPRISE_MODE", NULL);
    if (mode == NULL) {
        printf("no regions (observe or off mode, or nothing repeated; the trace has no config event)\n");
        return;
    }
    if (strcmp(mode, "auto") != 0) {
        printf("no regions (mode %s: only auto looks for regions)\n", mode);
        return;
    }
    const char *min_text = json_str(options, "REPRISE_MIN_REGION_CALLS", "");
    char *end;
    double min_calls = strtod(min_text, &end);
    double calls, boundaries;
    count_node_calls(t, &calls, &boundaries);
    if (*min_text && *end == '\0' && calls > 0 && boundaries > 0 && calls / boundaries < min_calls) {
        double average = calls / boundaries;
        printf("no regions: sequences of calls were seen, but shorter than REPRISE_MIN_REGION_CALLS=%s (from the "
               "trace's config event), below which regions are not graphed: %.1f calls on average between two host "
               "syncs, queries or allocations (%.0f calls, %.0f of those); a smaller REPRISE_MIN_REGION_CALLS lets "
               "them be graphed if they repeat%s\n",
               min_text, average, calls, boundaries,
               average < atof(option_defaults[OPT_MIN_REGION_CALLS]) ? ", though regions this short gain little" : "");
        return;
    }
    if (first_event(t, "exit") == NULL)
        printf("no regions (nothing repeated, as far as the trace goes: it has no exit event to count the calls)\n");
    else
        printf("no regions (nothing repeated)\n");
}

/* Prints the table of regions and the launch time saved. */
static void print_regions(struct trace *t, double launch_us)
{
    if (t->region_count == 0) {
        print_no_regions(t);
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

/* reprise report TRACE: one trace, per region. */
static int report_one(const char *path, double launch_us, const char *chrome)
{
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
    char why[VERDICT_LINE_LEN] = "";
    const char *mode = json_str(json_get(first_event(&t, "config"), "options"), "REPRISE_MODE", "auto");
    for (size_t i = 0; i < t.count; i++)
        if (strcmp(json_str(t.events[i], "ev", ""), "no_repeat") == 0 &&
            describe_no_repeat_event(t.events[i], why, sizeof why))
            printf("why nothing %s graphed (thread %.0f): %s\n", strcmp(mode, "auto") == 0 ? "was" : "would be",
                   json_num(t.events[i], "thread", 0), why);
    for (size_t i = 0; i < t.count; i++)
        if (strcmp(json_str(t.events[i], "ev", ""), "exit") == 0) {
            printf("\n");
            print_exit(t.events[i], why);
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

/* One process of a job: its trace, where the launcher put it, and its totals. */
struct member {
    size_t trace;               /* which of the traces */
    const char *path;
    long pid, rank, local_rank, world_size; /* -1 when the config event has none */
    const char *program, *mode;
    const struct json *exit;
    size_t regions, replaying;  /* regions, and those replayed as a graph at least once */
    unsigned long long iterations, replays, calls_saved, fallbacks;
    double calls;               /* calls intercepted, runtime and driver (from the exit event) */
    double communication;       /* of those, communication libraries' calls passed through (NCCL's collectives) */
    bool compared;              /* weighed against the others for "differs" */
    char differs[512];          /* why it differs, or "" */
    char name[96];              /* "rank 1" or "process 1234" */
};

/* The member of trace k's process pid, added when new. */
static struct member *member_of(struct member **ms, size_t *n, size_t k, const char *path, long pid)
{
    for (size_t i = 0; i < *n; i++)
        if ((*ms)[i].trace == k && (*ms)[i].pid == pid)
            return &(*ms)[i];
    *ms = xrealloc(*ms, *n + 1, sizeof **ms);
    struct member *m = &(*ms)[(*n)++];
    memset(m, 0, sizeof *m);
    m->trace = k;
    m->path = path;
    m->pid = pid;
    m->rank = m->local_rank = m->world_size = -1;
    m->program = m->mode = "?";
    return m;
}

/* Ranks first, by rank; then processes without one, by pid. */
static int member_order(const void *a, const void *b)
{
    const struct member *x = a, *y = b;
    if ((x->rank < 0) != (y->rank < 0))
        return x->rank < 0 ? 1 : -1;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return x->trace < y->trace ? -1 : x->trace > y->trace;
}

/* The value more than half of the compared members have (value(m) for each), or -1 if none. */
static long majority(const struct member *ms, size_t n, long (*value)(const struct member *))
{
    size_t compared = 0;
    for (size_t i = 0; i < n; i++)
        compared += ms[i].compared;
    for (size_t i = 0; i < n; i++) {
        if (!ms[i].compared)
            continue;
        size_t same = 0;
        for (size_t j = 0; j < n; j++)
            same += ms[j].compared && value(&ms[j]) == value(&ms[i]);
        if (2 * same > compared)
            return value(&ms[i]);
    }
    return -1;
}

static long replaying_of(const struct member *m) { return (long)m->replaying; }
static long regions_of(const struct member *m) { return (long)m->regions; }

/* Appends "; " and the formatted reason to m's differs. */
static void add_difference(struct member *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_difference(struct member *m, const char *fmt, ...)
{
    size_t used = strlen(m->differs);
    if (used + 3 >= sizeof m->differs)
        return;
    if (used)
        used += (size_t)snprintf(m->differs + used, sizeof m->differs - used, "; ");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->differs + used, sizeof m->differs - used, fmt, ap);
    va_end(ap);
}

/* Marks the members whose decisions differ from the others': no replays while others replay, another number
   of replaying regions or of regions than most, another mode than most.  Returns how many were compared. */
static size_t find_differences(struct member *ms, size_t n, const char *others)
{
    bool any_rank = false;
    for (size_t i = 0; i < n; i++)
        any_rank |= ms[i].rank >= 0;
    /* The launcher and helpers (no rank among ranks, or no CUDA work) are not weighed. */
    size_t compared = 0;
    for (size_t i = 0; i < n; i++) {
        ms[i].compared = (!any_rank || ms[i].rank >= 0) && (ms[i].regions > 0 || ms[i].calls > 0);
        compared += ms[i].compared;
    }
    if (compared < 2)
        return compared;
    bool some_replay = false;
    for (size_t i = 0; i < n; i++)
        some_replay |= ms[i].compared && ms[i].replays > 0;
    long replaying = majority(ms, n, replaying_of), regions = majority(ms, n, regions_of);
    /* The mode most have: the first one more than half share. */
    const char *mode = NULL;
    for (size_t i = 0; i < n && mode == NULL; i++) {
        size_t same = 0;
        for (size_t j = 0; j < n; j++)
            same += ms[i].compared && ms[j].compared && strcmp(ms[i].mode, ms[j].mode) == 0;
        if (2 * same > compared)
            mode = ms[i].mode;
    }
    for (size_t i = 0; i < n; i++) {
        struct member *m = &ms[i];
        if (!m->compared)
            continue;
        if (some_replay && m->replays == 0 && m->regions == 0)
            add_difference(m, "no region found, while %s regions replay", others);
        else if (some_replay && m->replays == 0)
            add_difference(m, "its regions never replay, while %s do", others);
        if (replaying >= 0 && (long)m->replaying != replaying)
            add_difference(m, "%zu region%s replaying, most %ld", m->replaying, m->replaying == 1 ? "" : "s",
                           replaying);
        if (regions >= 0 && (long)m->regions != regions)
            add_difference(m, "%zu region%s, most %ld", m->regions, m->regions == 1 ? "" : "s", regions);
        if (mode && strcmp(m->mode, mode) != 0)
            add_difference(m, "mode %s, most %s", m->mode, mode);
        else if (!mode && m->differs[0] && strcmp(m->mode, "auto") != 0)
            add_difference(m, "mode %s", m->mode);
    }
    return compared;
}

/* Prints one row of the job's table: a region of a member. */
static void print_job_row(const struct member *m, const struct region_info *r)
{
    if (m->rank >= 0)
        printf("%6ld ", m->rank);
    else
        printf("%6s ", "-");
    const char *state = r->state ? r->state : r->not_graphed ? "not_graphed" : "no_summary";
    printf("%7ld %6u %6u %6u %-11s %10llu %8llu %11llu  ", m->pid, r->id, r->tid, r->calls, state, r->sightings,
           r->replays, r->calls_saved);
    if (r->fallback_kinds == 0)
        printf("none");
    for (size_t k = 0; k < r->fallback_kinds; k++)
        printf("%s%s %llu", k ? ", " : "", r->fallbacks[k].reason, r->fallbacks[k].count);
    printf("%s\n", m->differs[0] ? "  <- differs" : "");
}

/* reprise report TRACE TRACE...: one table for a job of several processes (torchrun's ranks). */
static int report_job(char **paths, size_t n, double launch_us, const char *chrome)
{
    struct trace *traces = xrealloc(NULL, n, sizeof *traces);
    struct member *ms = NULL;
    size_t count = 0;
    for (size_t k = 0; k < n; k++) {
        struct trace *t = &traces[k];
        trace_read(strcmp(paths[k], "-") == 0 ? "/dev/stdin" : paths[k], t);
        for (size_t i = 0; i < t->count; i++) {
            const struct json *ev = t->events[i];
            const char *name = json_str(ev, "ev", "");
            if (strcmp(name, "config") && strcmp(name, "exit"))
                continue;
            struct member *m = member_of(&ms, &count, k, paths[k], (long)json_num(ev, "pid", 0));
            if (strcmp(name, "config") == 0) {
                m->rank = (long)json_num(ev, "rank", -1);
                m->local_rank = (long)json_num(ev, "local_rank", -1);
                m->world_size = (long)json_num(ev, "world_size", -1);
                m->program = json_str(ev, "program", "?");
                m->mode = json_str(json_get(ev, "options"), "REPRISE_MODE", "?");
            } else {
                m->exit = ev;
                m->calls = json_num(ev, "calls_total", 0);
                m->communication = json_num(ev, "communication_calls", 0);
                const struct json *foreign = json_get(ev, "foreign_calls");
                for (size_t f = 0; foreign && foreign->type == JSON_OBJECT && f < foreign->count; f++)
                    m->calls += foreign->items[f]->number;
            }
        }
        if (t->region_count > 0) /* a trace without regions has none allocated: qsort must not get NULL */
            qsort(t->regions, t->region_count, sizeof *t->regions, region_order);
        for (size_t i = 0; i < t->region_count; i++) {
            const struct region_info *r = &t->regions[i];
            struct member *m = member_of(&ms, &count, k, paths[k], r->pid);
            m->regions++;
            m->replaying += r->replays > 0;
            m->iterations += r->sightings;
            m->replays += r->replays;
            m->calls_saved += r->calls_saved;
            for (size_t f = 0; f < r->fallback_kinds; f++)
                m->fallbacks += r->fallbacks[f].count;
        }
    }
    if (count > 0) /* likewise, traces without a config or exit event */
        qsort(ms, count, sizeof *ms, member_order);
    size_t ranks = 0;
    long world = -1;
    for (size_t i = 0; i < count; i++) {
        struct member *m = &ms[i];
        if (m->rank >= 0)
            snprintf(m->name, sizeof m->name, "rank %ld", m->rank);
        else
            snprintf(m->name, sizeof m->name, "process %ld", m->pid);
        ranks += m->rank >= 0;
        if (m->world_size > world)
            world = m->world_size;
    }
    size_t compared = find_differences(ms, count, ranks ? "the other ranks'" : "the other processes'");

    printf("job: %zu traces, %zu process%s", n, count, count == 1 ? "" : "es");
    if (ranks)
        printf(", %zu with a rank", ranks);
    if (world >= 0) {
        printf(" (world size %ld", world);
        const char *sep = "; no trace of rank ";
        for (long r = 0; r < world && r < 4096; r++) {
            bool seen = false;
            for (size_t i = 0; i < count && !seen; i++)
                seen = ms[i].rank == r;
            if (!seen) {
                printf("%s%ld", sep, r);
                sep = ", ";
            }
        }
        printf(")");
    }
    printf("\n");
    for (size_t i = 0; i < count; i++) {
        const struct member *m = &ms[i];
        printf("%s: trace %s", m->name, m->path);
        if (m->rank >= 0)
            printf(", process %ld", m->pid);
        printf(": %s, mode %s", m->program, m->mode);
        if (m->local_rank >= 0)
            printf(", local rank %ld", m->local_rank);
        printf("\n");
    }
    printf("\n%6s %7s %6s %6s %6s %-11s %10s %8s %11s  %s\n", "rank", "pid", "region", "thread", "calls", "state",
           "iterations", "replays", "calls_saved", "fallbacks");
    unsigned long long saved = 0;
    for (size_t i = 0; i < count; i++) {
        const struct member *m = &ms[i];
        const struct trace *t = &traces[m->trace];
        for (size_t j = 0; j < t->region_count; j++)
            if (t->regions[j].pid == m->pid)
                print_job_row(m, &t->regions[j]);
        if (m->regions == 0 && m->compared) {
            char rank[24] = "-";
            if (m->rank >= 0)
                snprintf(rank, sizeof rank, "%ld", m->rank);
            printf("%6s %7ld %6s %6s %6s %-11s %10d %8d %11d  none%s\n", rank, m->pid, "-", "-", "-", "no_regions", 0,
                   0, 0, m->differs[0] ? "  <- differs" : "");
        }
        saved += m->calls_saved;
    }
    printf("\n");
    for (size_t i = 0; i < count; i++) {
        const struct member *m = &ms[i];
        char collective[96] = "";
        if (m->communication > 0)
            snprintf(collective, sizeof collective, " (%.0f of a communication library, passed through)",
                     m->communication);
        printf("%s: %zu region%s, %zu replaying, %llu iterations, %llu replays, %llu calls saved, %llu fallback%s, "
               "%.0f calls intercepted%s%s%s\n",
               m->name, m->regions, m->regions == 1 ? "" : "s", m->replaying, m->iterations, m->replays,
               m->calls_saved, m->fallbacks, m->fallbacks == 1 ? "" : "s", m->calls, collective,
               m->exit ? "" : " (no exit event)",
               m->compared || compared < 2 ? "" : " (not compared: no CUDA work, or not a rank)");
    }
    size_t differing = 0;
    for (size_t i = 0; i < count; i++)
        if (ms[i].differs[0]) {
            printf("%s differs: %s\n", ms[i].name, ms[i].differs);
            differing++;
        }
    if (differing == 0 && compared >= 2)
        printf("the %zu %s decided alike\n", compared, ranks ? "ranks" : "processes");
    printf("launch time saved across the job: about ");
    print_duration((double)saved * launch_us);
    printf(" (%llu calls not submitted one by one x %.2f us a launch; --launch-us sets it)\n", saved, launch_us);
    fflush(stdout);
    for (size_t k = 0; k < n; k++) {
        bool exited = false;
        for (size_t i = 0; i < traces[k].count; i++)
            exited |= strcmp(json_str(traces[k].events[i], "ev", ""), "exit") == 0;
        if (traces[k].truncated)
            note("%s is truncated: line %u is cut short; reported up to there", paths[k], traces[k].truncated_line);
        else if (!exited)
            note("%s has no exit event: the program was killed, called _exit or is still running", paths[k]);
    }
    if (chrome) {
        struct chrome_track *tracks = xrealloc(NULL, count ? count : 1, sizeof *tracks);
        for (size_t i = 0; i < count; i++) {
            char *name = xrealloc(NULL, 160, 1);
            snprintf(name, 160, "%s: %s (pid %ld)", ms[i].name, ms[i].program, ms[i].pid);
            tracks[i] = (struct chrome_track){.trace = ms[i].trace, .pid = ms[i].pid,
                                              .track = ms[i].rank >= 0 ? ms[i].rank : ms[i].pid, .name = name};
        }
        chrome_trace_write_job(chrome, traces, n, tracks, count);
    }
    return 0;
}

/*
 * A trace path that does not exist, as `reprise run --trace F` was given it:
 * the files it wrote, one per process, F with ".PID" before its extension
 * (run.c's set_path_env).  Appends them to *paths; false if there are none.
 */
static bool add_per_process_traces(const char *given, char ***paths, size_t *npaths, size_t *capacity)
{
    const char *base = strrchr(given, '/');
    base = base ? base + 1 : given;
    const char *dot = strrchr(base, '.');
    size_t cut = dot && dot != base ? (size_t)(dot - given) : strlen(given);
    size_t len = strlen(given) + 16;
    char *pattern = xrealloc(NULL, len, 1);
    snprintf(pattern, len, "%.*s.[0-9]*%s", (int)cut, given, given + cut);
    glob_t found;
    bool any = glob(pattern, 0, NULL, &found) == 0 && found.gl_pathc > 0;
    for (size_t k = 0; any && k < found.gl_pathc; k++) {
        if (*npaths == *capacity) {
            *capacity *= 2;
            *paths = xrealloc(*paths, *capacity, sizeof **paths);
        }
        (*paths)[(*npaths)++] = strdup(found.gl_pathv[k]);
    }
    if (any)
        fprintf(stderr, "reprise report: %s does not exist; reading the %zu per-process file%s `reprise run` "
                        "wrote for it (%s...)\n",
                given, found.gl_pathc, found.gl_pathc == 1 ? "" : "s", found.gl_pathv[0]);
    if (any || glob(pattern, 0, NULL, &found) != GLOB_NOMATCH)
        globfree(&found);
    free(pattern);
    return any;
}

/* reprise report [--launch-us N] [--chrome-trace OUT] TRACE...: returns the exit status. */
int cmd_report(int argc, char **argv)
{
    double launch_us = DEFAULT_LAUNCH_US;
    const char *chrome = NULL;
    size_t capacity = (size_t)argc + 8;
    char **paths = xrealloc(NULL, capacity, sizeof *paths);
    size_t npaths = 0;
    bool options_done = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (options_done || (a[0] != '-' || a[1] == '\0')) {
            if (access(a, F_OK) == 0 || !add_per_process_traces(a, &paths, &npaths, &capacity)) {
                if (npaths == capacity) {
                    capacity *= 2;
                    paths = xrealloc(paths, capacity, sizeof *paths);
                }
                paths[npaths++] = argv[i];
            }
        } else if (strcmp(a, "--") == 0) {
            options_done = true;
        } else if (is_option(a, "--launch-us")) {
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
        } else {
            die("unknown option '%s' for reprise report; see reprise --help", a);
        }
    }
    if (npaths == 0)
        die("no trace given: reprise report [--launch-us US] [--chrome-trace OUT.json] TRACE...");
    if (npaths > 1)
        return report_job(paths, npaths, launch_us, chrome);
    return report_one(paths[0], launch_us, chrome);
}
