/* SPDX-License-Identifier: MIT */
/* A timeline of a trace in the Chrome trace event format (Perfetto, chrome://tracing). */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "chrome.h"
#include "reprise.h"

/* Writes the event's fields other than ev, t_us, pid and tid as an args object. */
static void write_args(FILE *out, const struct json *ev)
{
    fputs("{", out);
    bool first = true;
    for (size_t i = 0; i < ev->count; i++) {
        const char *k = ev->keys[i];
        if (!strcmp(k, "ev") || !strcmp(k, "t_us") || !strcmp(k, "pid") || !strcmp(k, "tid"))
            continue;
        fprintf(out, "%s", first ? "" : ",");
        json_write_string(out, k);
        fputc(':', out);
        json_write(out, ev->items[i]);
        first = false;
    }
    fputs("}", out);
}

/* A short title for an event on the timeline. */
static void event_title(char *buf, size_t size, const struct json *ev)
{
    const char *name = json_str(ev, "ev", "?");
    unsigned region = (unsigned)json_num(ev, "region", 0);
    if (!strcmp(name, "region_found"))
        snprintf(buf, size, "region %u found (%.0f calls)", region, json_num(ev, "calls", 0));
    else if (!strcmp(name, "graph_built"))
        snprintf(buf, size, "region %u: graph built (%.0f nodes)", region, json_num(ev, "nodes", 0));
    else if (!strcmp(name, "fallback"))
        snprintf(buf, size, "region %u: fallback (%s)", region, json_str(ev, "reason", "?"));
    else if (!strcmp(name, "evicted"))
        snprintf(buf, size, "region %u: graph evicted", region);
    else if (!strcmp(name, "not_graphed"))
        snprintf(buf, size, "region %u: not graphed", region);
    else if (!strcmp(name, "period_found"))
        snprintf(buf, size, "sync-free loop: period %.0f", json_num(ev, "period", 0));
    else
        snprintf(buf, size, "%s", name);
}

/* The track (Chrome's pid) of trace k's process pid: its own pid with one trace, its track with several. */
static long track_of(const struct chrome_track *tracks, size_t ntracks, size_t k, long pid)
{
    for (size_t i = 0; i < ntracks; i++)
        if (tracks[i].trace == k && tracks[i].pid == pid)
            return tracks[i].track;
    return pid;
}

/* Writes trace k's instants and region spans, each on its process's track. */
static void write_events(FILE *out, const struct trace *t, size_t k, const struct chrome_track *tracks, size_t ntracks,
                         bool *first)
{
    /* Instants: every event but region_summary (which closes a region's span below). */
    for (size_t i = 0; i < t->count; i++) {
        const struct json *ev = t->events[i];
        const char *name = json_str(ev, "ev", "?");
        if (!strcmp(name, "region_summary"))
            continue;
        char title[160];
        event_title(title, sizeof title, ev);
        fprintf(out, "%s{\"ph\":\"i\",\"s\":\"t\",\"cat\":", *first ? "" : ",\n");
        json_write_string(out, name);
        fputs(",\"name\":", out);
        json_write_string(out, title);
        fprintf(out, ",\"ts\":%.0f,\"pid\":%ld,\"tid\":%ld,\"args\":", json_num(ev, "t_us", 0),
                track_of(tracks, ntracks, k, (long)json_num(ev, "pid", 0)), (long)json_num(ev, "tid", 0));
        write_args(out, ev);
        fputs("}", out);
        *first = false;
    }
    /* Spans: each region from its first event to its last (its summary at exit). */
    for (size_t i = 0; i < t->region_count; i++) {
        const struct region_info *r = &t->regions[i];
        fprintf(out,
                "%s{\"ph\":\"X\",\"cat\":\"region\",\"name\":\"region %u (%u calls)\",\"ts\":%.0f,\"dur\":%.0f,"
                "\"pid\":%ld,\"tid\":%u,\"args\":{\"state\":",
                *first ? "" : ",\n", r->id, r->calls, r->first_us, r->last_us - r->first_us,
                track_of(tracks, ntracks, k, r->pid), r->tid);
        json_write_string(out, r->state ? r->state : "unknown");
        fprintf(out,
                ",\"iterations\":%llu,\"replays\":%llu,\"calls_saved\":%llu,\"patched\":%llu,\"builds\":%llu,"
                "\"evictions\":%llu}}",
                r->sightings, r->replays, r->calls_saved, r->patched, r->builds, r->evictions);
        *first = false;
    }
}

/* Opens path for the timeline, its header written; dies with one line if it cannot. */
static FILE *open_timeline(const char *path)
{
    FILE *out = fopen(path, "w");
    if (out == NULL)
        die("cannot write %s: %s", path, strerror(errno));
    fputs("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n", out);
    return out;
}

/* Ends and closes the timeline; dies with one line if it cannot. */
static void close_timeline(FILE *out, const char *path)
{
    fputs("\n]}\n", out);
    if (fclose(out) != 0)
        die("cannot write %s: %s", path, strerror(errno));
}

/* Writes the timeline to path; dies with one line if it cannot. */
void chrome_trace_write(const char *path, const struct trace *t)
{
    FILE *out = open_timeline(path);
    bool first = true;
    /* Names for processes (from config events). */
    for (size_t i = 0; i < t->count; i++) {
        const struct json *ev = t->events[i];
        if (strcmp(json_str(ev, "ev", ""), "config"))
            continue;
        fprintf(out, "%s{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%ld,\"tid\":0,\"args\":{\"name\":",
                first ? "" : ",\n", (long)json_num(ev, "pid", 0));
        json_write_string(out, json_str(ev, "program", "program"));
        fputs("}}", out);
        first = false;
    }
    write_events(out, t, 0, NULL, 0, &first);
    close_timeline(out, path);
}

/* Writes one timeline of several traces to path, each process on its track (a rank's: the rank); dies if it cannot. */
void chrome_trace_write_job(const char *path, const struct trace *traces, size_t n, const struct chrome_track *tracks,
                            size_t ntracks)
{
    FILE *out = open_timeline(path);
    bool first = true;
    for (size_t i = 0; i < ntracks; i++) {
        fprintf(out, "%s{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%ld,\"tid\":0,\"args\":{\"name\":",
                first ? "" : ",\n", tracks[i].track);
        json_write_string(out, tracks[i].name);
        fprintf(out, "}},\n{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%ld,\"tid\":0,"
                     "\"args\":{\"sort_index\":%zu}}",
                tracks[i].track, i);
        first = false;
    }
    for (size_t k = 0; k < n; k++)
        write_events(out, &traces[k], k, tracks, ntracks, &first);
    close_timeline(out, path);
}
