/* SPDX-License-Identifier: MIT */
/* What kind of program this was, from what observe mode counted. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include "verdict.h"

/* At least this many launches between host syncs make a region worth graphing. */
#define LAUNCHES_PER_SYNC_WORTH_GRAPHING 8
/* More launches than this with no host sync in between is a sync-free loop. */
#define SYNC_FREE_LAUNCHES 1000
/* Below this share of the host time between syncs in submission calls, graphs can gain little. */
#define CEILING_LITTLE_PERCENT 10
/* From this share on, the program is submission-bound. */
#define CEILING_MUCH_PERCENT 50
/* A thread's first span is start-up when at least this many spans with node calls follow it (it runs a loop)... */
#define CEILING_WARMUP_MIN_SPANS 8
/* ...and it is longer than this many times their mean. */
#define CEILING_WARMUP_FACTOR 4

/* The plural noun for an activity, for summaries ("launches"). */
const char *activity_name(enum activity act)
{
    static const char *const names[ACT_COUNT] = {
        [ACT_LAUNCH] = "launches",        [ACT_HOST_FUNC] = "host_funcs",  [ACT_COPY] = "copies",
        [ACT_SET] = "sets",               [ACT_EVENT_RECORD] = "records",  [ACT_EVENT_WAIT] = "waits",
        [ACT_SYNC] = "syncs",             [ACT_QUERY] = "queries",         [ACT_ALLOC] = "allocs",
        [ACT_FREE] = "frees",             [ACT_CAPTURE] = "captures",      [ACT_GRAPH_LAUNCH] = "graph_launches",
    };
    return (unsigned)act < ACT_COUNT ? names[act] : "unknown";
}

/* Appends one sentence to the verdict. */
static void __attribute__((format(printf, 2, 3))) say(struct verdict *out, const char *fmt, ...)
{
    if (out->count >= VERDICT_LINES_MAX)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->line[out->count++], VERDICT_LINE_LEN, fmt, ap);
    va_end(ap);
}

/* The share of the host time between syncs that node calls took (0 to 1; 0 if nothing was between syncs). */
double ceiling_share(const struct ceiling *c)
{
    if (c->between_ns == 0)
        return 0;
    double share = (double)c->node_ns / (double)c->between_ns;
    return share < 1 ? share : 1;
}

/* Whether a thread's first span with node calls is start-up to leave out: a loop's, far longer than its other spans (rest). */
bool ceiling_first_is_warmup(const struct ceiling *first, const struct ceiling *rest)
{
    /* Against spans with calls only: a loop's last syncs in a row (copies back) must not make its one span "long". */
    return first->spans == 1 && rest->call_spans >= CEILING_WARMUP_MIN_SPANS &&
           first->between_ns / CEILING_WARMUP_FACTOR > rest->call_spans_ns / rest->call_spans;
}

/* Adds a thread's timings into total: its first span (first) and its later ones (rest), the first as warm-up if so. */
void ceiling_add_thread(struct ceiling *total, const struct ceiling *first, const struct ceiling *rest)
{
    const struct ceiling *parts[2] = {rest, first};
    bool warmup = ceiling_first_is_warmup(first, rest);
    for (unsigned i = 0; i < 2; i++) {
        const struct ceiling *c = parts[i];
        total->sync_ns += c->sync_ns; /* waiting is neither span's */
        total->warmup_ns += c->warmup_ns;
        total->warmup_spans += c->warmup_spans;
        if (i == 1 && warmup) {
            total->warmup_ns += c->between_ns;
            total->warmup_spans += c->spans;
            continue;
        }
        total->node_calls += c->node_calls;
        total->node_ns += c->node_ns;
        total->between_ns += c->between_ns;
        total->spans += c->spans;
        total->call_spans += c->call_spans;
        total->call_spans_ns += c->call_spans_ns;
    }
}

/* The share in whole percent, rounded. */
static unsigned ceiling_percent(const struct ceiling *c)
{
    return (unsigned)(100 * ceiling_share(c) + 0.5);
}

/* Writes nanoseconds with a unit that suits them ("830.0 us", "12.3 ms", "4.20 s"). */
static void format_duration(unsigned long long ns, char *buf, size_t len)
{
    if (ns >= 1000000000ull)
        snprintf(buf, len, "%.2f s", (double)ns / 1e9);
    else if (ns >= 1000000ull)
        snprintf(buf, len, "%.1f ms", (double)ns / 1e6);
    else
        snprintf(buf, len, "%.1f us", (double)ns / 1e3);
}

/* The ceiling in one sentence; false, and line empty, if no host time between two syncs was measured. */
bool describe_ceiling(const struct ceiling *c, char *line, size_t len)
{
    if (len)
        line[0] = '\0';
    if (c->between_ns == 0)
        return false;
    char inside[32], between[32];
    format_duration(c->node_ns, inside, sizeof inside);
    format_duration(c->between_ns, between, sizeof between);
    char warmup[96] = "";
    if (c->warmup_spans) {
        char took[32];
        format_duration(c->warmup_ns, took, sizeof took);
        snprintf(warmup, sizeof warmup, "; start-up left out: %llu thread%s first span, %s", c->warmup_spans,
                 c->warmup_spans == 1 ? "'s" : "s'", took);
    }
    snprintf(line, len,
             "submission calls took %u%% of the host time between syncs (%s of %s; %llu calls, %.2f us each%s): "
             "a graph can save at most about that",
             ceiling_percent(c), inside, between, c->node_calls,
             c->node_calls ? (double)c->node_ns / 1e3 / (double)c->node_calls : 0.0, warmup);
    return true;
}

/* Says how much graphs can save at most, from the timings (observe mode only). */
static void describe_ceiling_verdict(const struct ceiling *c, struct verdict *out)
{
    unsigned share = ceiling_percent(c); /* the wording follows the figure it gives */
    if (c->between_ns == 0)
        say(out, "how much graphs could save is unknown: no thread made calls between two host syncs");
    else if (share < CEILING_LITTLE_PERCENT)
        say(out, "graphs can gain little here: submission calls took only %u%% of the host time between syncs; "
                 "the rest is the program's own work on the host",
            share);
    else if (share < CEILING_MUCH_PERCENT)
        say(out, "graphs can save at most about %u%% of the host time between syncs, what its submission calls "
                 "took",
            share);
    else
        say(out, "submission-bound: submission calls took %u%% of the host time between syncs; graphs can save "
                 "much of it",
            share);
}

/* Describes the program from its profile. */
void describe_program(const struct program_profile *profile, struct verdict *out)
{
    const unsigned long long *n = profile->total.n;
    out->count = 0;
    if (profile->calls == 0 && profile->direct_calls == 0) {
        say(out, "no CUDA calls were seen: the program does not use CUDA, or reaches it some way the shim cannot "
                 "see");
        return;
    }
    if (profile->calls == 0)
        say(out, "no CUDA runtime calls were seen, only the driver API's (%llu calls): the program links the "
                 "runtime statically (nvcc's default) or calls the driver itself (CuPy, Triton); its launches, "
                 "copies and sets are followed and graphed as runtime calls are",
            profile->direct_calls);
    if (n[ACT_LAUNCH] == 0) {
        say(out, "no kernel launches were seen");
    } else if (n[ACT_SYNC] <= 1 && n[ACT_LAUNCH] >= SYNC_FREE_LAUNCHES) {
        say(out, "sync-free: %llu launches with %llu host sync; repeated work can only be found by its period",
            n[ACT_LAUNCH], n[ACT_SYNC]);
    } else {
        double per_sync = (double)n[ACT_LAUNCH] / (double)(n[ACT_SYNC] ? n[ACT_SYNC] : 1);
        if (per_sync >= LAUNCHES_PER_SYNC_WORTH_GRAPHING && profile->no_repeat)
            say(out, "launch-bound and sync-delimited: %.1f launches per host sync (%llu launches, %llu syncs); "
                     "graphs would suit it if its sequences of calls repeated often enough, and they do not",
                per_sync, n[ACT_LAUNCH], n[ACT_SYNC]);
        else if (per_sync >= LAUNCHES_PER_SYNC_WORTH_GRAPHING)
            say(out, "launch-bound and sync-delimited: %.1f launches per host sync (%llu launches, %llu syncs); "
                     "a good candidate for graphs",
                per_sync, n[ACT_LAUNCH], n[ACT_SYNC]);
        else
            say(out, "sync-heavy: %.1f launches per host sync (%llu launches, %llu syncs); regions this short "
                     "gain little from graphs",
                per_sync, n[ACT_LAUNCH], n[ACT_SYNC]);
    }
    if (profile->no_repeat && out->count < VERDICT_LINES_MAX &&
        describe_no_repeat(profile->no_repeat, out->line[out->count], VERDICT_LINE_LEN))
        out->count++;
    if (profile->timed)
        describe_ceiling_verdict(&profile->ceiling, out);
    if (profile->direct_calls && profile->calls)
        say(out, "libraries call the driver API directly (%llu calls, cuBLAS-style): their launches, copies and "
                 "sets are graphed with the program's own, their other calls end a region",
            profile->direct_calls);
    if (profile->allocs_after_first_launch)
        say(out, "allocates between launches (%llu allocations after the first launch): a region holding an "
                 "allocation cannot be graphed",
            profile->allocs_after_first_launch);
    if (n[ACT_GRAPH_LAUNCH] || n[ACT_CAPTURE])
        say(out, "uses CUDA graphs itself (%llu graph launches, %llu capture calls): reprise steps aside for them",
            n[ACT_GRAPH_LAUNCH], n[ACT_CAPTURE]);
    if (n[ACT_QUERY])
        say(out, "polls for completion (%llu stream or event queries)", n[ACT_QUERY]);
    if (profile->streams > 1)
        say(out, "uses %u streams", profile->streams);
}
