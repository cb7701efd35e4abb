/* SPDX-License-Identifier: MIT */
/* Reading a trace written by the shim (REPRISE_TRACE): its events and its regions. */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reprise.h"
#include "trace_read.h"

/* The events the shim writes (its trace_event calls; tests/reprise_report.sh checks that none is missing). */
static const char *const shim_events[] = {
    "batch_grown",    "capture_deferred", "config",        "crowded_out",  "evicted",        "exit",
    "fallback",       "governor",         "governor_summary", "governor_switch", "graph_built", "graphs_summary",
    "instance_made",  "invalidated",      "no_repeat",     "not_graphed",  "object_ends",    "path_changed",
    "payoff",         "period_found",     "recorded",      "region_found", "region_summary", "segmented",
    "segments_ended",
};

/* Whether name is an event the shim writes. */
static bool shim_event(const char *name)
{
    for (size_t i = 0; i < sizeof shim_events / sizeof shim_events[0]; i++)
        if (strcmp(shim_events[i], name) == 0)
            return true;
    return false;
}

/* What the shim begins every line with: a cut line is a prefix of it, or begins with it. */
#define EVENT_HEAD "{\"ev\":\""

/* Whether a line without its newline can be the start of one the shim wrote, cut short (a crash mid-write). */
static bool cut_event(const char *line)
{
    size_t n = strlen(line), head = strlen(EVENT_HEAD);
    return strncmp(line, EVENT_HEAD, n < head ? n : head) == 0;
}

/* Why a parsed line (NULL: not JSON) is not a trace event, into why; false if it is one. */
static bool not_an_event(const struct json *ev, char *why, size_t size)
{
    if (ev == NULL) {
        snprintf(why, size, "the line is not JSON");
        return true;
    }
    if (ev->type != JSON_OBJECT) {
        snprintf(why, size, "the line is JSON but not an object");
        return true;
    }
    const struct json *name = json_get(ev, "ev");
    if (name == NULL || name->type != JSON_STRING) {
        snprintf(why, size, "the object has no \"ev\"");
        return true;
    }
    if (!shim_event(name->string)) {
        snprintf(why, size, "\"ev\":\"%.60s\" is not an event the shim writes", name->string);
        return true;
    }
    return false;
}

/* The region an event is about (pid, tid, region), added when new. */
static struct region_info *region_of(struct trace *t, const struct json *ev)
{
    long pid = (long)json_num(ev, "pid", 0);
    unsigned tid = (unsigned)json_num(ev, "thread", json_num(ev, "tid", 0));
    unsigned id = (unsigned)json_num(ev, "region", 0);
    double ts = json_num(ev, "t_us", 0);
    for (size_t i = 0; i < t->region_count; i++) {
        struct region_info *r = &t->regions[i];
        if (r->pid == pid && r->tid == tid && r->id == id) {
            if (ts > r->last_us)
                r->last_us = ts;
            return r;
        }
    }
    t->regions = xrealloc(t->regions, t->region_count + 1, sizeof *t->regions);
    struct region_info *r = &t->regions[t->region_count++];
    memset(r, 0, sizeof *r);
    r->pid = pid;
    r->tid = tid;
    r->id = id;
    r->first_us = r->last_us = ts;
    return r;
}

/* Counts one fallback of a region for its reason. */
static void count_fallback(struct region_info *r, const char *reason)
{
    for (size_t i = 0; i < r->fallback_kinds; i++)
        if (strcmp(r->fallbacks[i].reason, reason) == 0) {
            r->fallbacks[i].count++;
            return;
        }
    r->fallbacks = xrealloc(r->fallbacks, r->fallback_kinds + 1, sizeof *r->fallbacks);
    r->fallbacks[r->fallback_kinds].reason = strdup(reason);
    r->fallbacks[r->fallback_kinds++].count = 1;
}

/* Folds one event into the region it is about, if any. */
static void index_event(struct trace *t, const struct json *ev)
{
    const char *name = json_str(ev, "ev", "");
    if (json_get(ev, "region") == NULL)
        return;
    struct region_info *r = region_of(t, ev);
    if (strcmp(name, "region_found") == 0) {
        r->calls = (unsigned)json_num(ev, "calls", r->calls);
        if (r->state == NULL)
            r->sightings = (unsigned long long)json_num(ev, "sightings", (double)r->sightings);
    } else if (strcmp(name, "graph_built") == 0) {
        if (r->state == NULL)
            r->builds++;
    } else if (strcmp(name, "evicted") == 0) {
        if (r->state == NULL)
            r->evictions++;
    } else if (strcmp(name, "fallback") == 0) {
        count_fallback(r, json_str(ev, "reason", "unknown"));
        r->calls = (unsigned)json_num(ev, "length", r->calls);
    } else if (strcmp(name, "payoff") == 0) {
        const struct json *pays = json_get(ev, "pays");
        if (pays && pays->type == JSON_BOOL && pays->number == 0)
            count_fallback(r, "not_paying"); /* the region passes through: the exit summary counts it so */
    } else if (strcmp(name, "not_graphed") == 0) {
        r->not_graphed = json_str(ev, "why", "unknown");
    } else if (strcmp(name, "crowded_out") == 0) {
        r->not_graphed = "crowded out: every graph kept (REPRISE_MAX_GRAPHS) ran between two of its occurrences";
    } else if (strcmp(name, "region_summary") == 0) {
        r->calls = (unsigned)json_num(ev, "calls", r->calls);
        r->state = json_str(ev, "state", "?");
        r->sightings = (unsigned long long)json_num(ev, "sightings", 0);
        r->replays = (unsigned long long)json_num(ev, "replays", 0);
        r->calls_saved = (unsigned long long)json_num(ev, "calls_saved", 0);
        r->patched = (unsigned long long)json_num(ev, "patched", 0);
        r->builds = (unsigned long long)json_num(ev, "builds", 0);
        r->evictions = (unsigned long long)json_num(ev, "evictions", 0);
    }
}

/* Reads and indexes a trace file; dies with one line on an unreadable or malformed file. */
void trace_read(const char *path, struct trace *t)
{
    memset(t, 0, sizeof *t);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        die("cannot read trace %s: %s", path, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    unsigned number = 0;
    while (errno = 0, (len = getline(&line, &cap, f)) >= 0) {
        number++;
        bool complete = len > 0 && line[len - 1] == '\n';
        if (complete)
            line[--len] = '\0';
        if (len == 0 || strspn(line, " \t\r") == (size_t)len)
            continue;
        struct json *ev = json_parse(line);
        char why[128];
        if (not_an_event(ev, why, sizeof why)) {
            /* A cut last line (the program crashed or is still writing: no newline, and what there is begins as the
               shim's lines do) ends the trace; anything else is an error. */
            json_free(ev);
            if (!complete && ev == NULL && cut_event(line) && fgetc(f) == EOF && !ferror(f)) {
                t->truncated = true;
                t->truncated_line = number;
                break;
            }
            if (t->count == 0)
                die("%s:%u: not a reprise trace: %s (the shim writes one JSON object a line, each with \"ev\", the "
                    "event's name)",
                    path, number, why);
            die("%s:%u: not a reprise trace event: %s (one JSON object with \"ev\" a line expected)", path, number,
                why);
        }
        if (!complete) {
            /* Whole but without its newline: the write was cut just before it. */
            t->truncated = true;
            t->truncated_line = number;
        }
        t->events = xrealloc(t->events, t->count + 1, sizeof *t->events);
        t->events[t->count++] = ev;
        index_event(t, ev);
    }
    if (ferror(f))
        die("cannot read trace %s: %s", path, strerror(errno ? errno : EIO));
    free(line);
    fclose(f);
    if (t->count == 0)
        die("%s: no trace events (%s)", path,
            t->truncated ? "its only line is cut short" : "the file is empty");
}
