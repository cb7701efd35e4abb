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

/* Writes the timeline to path; dies with one line if it cannot. */
void chrome_trace_write(const char *path, const struct trace *t)
{
    FILE *out = fopen(path, "w");
    if (out == NULL)
        die("cannot write %s: %s", path, strerror(errno));
    fputs("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n", out);
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
    /* Instants: every event but region_summary (which closes a region's span below). */
    for (size_t i = 0; i < t->count; i++) {
        const struct json *ev = t->events[i];
        const char *name = json_str(ev, "ev", "?");
        if (!strcmp(name, "region_summary"))
            continue;
        char title[160];
        event_title(title, sizeof title, ev);
        fprintf(out, "%s{\"ph\":\"i\",\"s\":\"t\",\"cat\":", first ? "" : ",\n");
        json_write_string(out, name);
        fputs(",\"name\":", out);
        json_write_string(out, title);
        fprintf(out, ",\"ts\":%.0f,\"pid\":%ld,\"tid\":%ld,\"args\":", json_num(ev, "t_us", 0),
                (long)json_num(ev, "pid", 0), (long)json_num(ev, "tid", 0));
        write_args(out, ev);
        fputs("}", out);
        first = false;
    }
    /* Spans: each region from its first event to its last (its summary at exit). */
    for (size_t i = 0; i < t->region_count; i++) {
        const struct region_info *r = &t->regions[i];
        fprintf(out,
                "%s{\"ph\":\"X\",\"cat\":\"region\",\"name\":\"region %u (%u calls)\",\"ts\":%.0f,\"dur\":%.0f,"
                "\"pid\":%ld,\"tid\":%u,\"args\":{\"state\":",
                first ? "" : ",\n", r->id, r->calls, r->first_us, r->last_us - r->first_us, r->pid, r->tid);
        json_write_string(out, r->state ? r->state : "unknown");
        fprintf(out,
                ",\"iterations\":%llu,\"replays\":%llu,\"calls_saved\":%llu,\"patched\":%llu,\"builds\":%llu,"
                "\"evictions\":%llu}}",
                r->sightings, r->replays, r->calls_saved, r->patched, r->builds, r->evictions);
        first = false;
    }
    fputs("\n]}\n", out);
    if (fclose(out) != 0)
        die("cannot write %s: %s", path, strerror(errno));
}
