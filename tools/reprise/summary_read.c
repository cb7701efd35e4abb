/* SPDX-License-Identifier: MIT */
/* What the shim did in a run, read back from its logs (REPRISE_LOG=info; the exit summary with REPRISE_STATS=1). */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "summary_read.h"

/* Fallbacks as the log's decision lines give them, and as the exit summary's region lines do. */
struct reading {
    struct shim_summary *s;
    struct reason_counts from_lines, from_exit;
};

/* Adds count to a fallback reason (its name: len bytes of name). */
void reasons_add(struct reason_counts *r, const char *name, size_t len, unsigned long long count)
{
    r->total += count;
    unsigned i = 0;
    while (i < r->count && !(strlen(r->reason[i].name) == len && strncmp(r->reason[i].name, name, len) == 0))
        i++;
    if (i == r->count) {
        if (i == SUMMARY_REASONS)
            return;
        snprintf(r->reason[i].name, sizeof r->reason[i].name, "%.*s", (int)len, name);
        r->count++;
    }
    r->reason[i].count += count;
}

/* Adds the reasons of a region line's "fallbacks: a 3, b 1" (or "none"). */
static void read_fallbacks(struct reason_counts *r, const char *list)
{
    while (*list) {
        size_t len = strcspn(list, " ,");
        unsigned long long n = 0;
        if (list[len] == ' ' && sscanf(list + len, " %llu", &n) == 1 && n > 0)
            reasons_add(r, list, len, n);
        const char *next = strstr(list, ", ");
        if (next == NULL)
            return;
        list = next + 2;
    }
}

/* Copies a log message into text, its newline left out, unless text holds one already. */
static void keep_first(char *text, size_t size, const char *msg)
{
    if (text[0] == '\0')
        snprintf(text, size, "%.*s", (int)strcspn(msg, "\n"), msg);
}

/* Whether msg begins with prefix. */
static bool starts(const char *msg, const char *prefix)
{
    return strncmp(msg, prefix, strlen(prefix)) == 0;
}

/* A decision about one region, "region N: EVENT": what follows "region N: ", else NULL. */
static const char *region_event(const char *msg)
{
    int end = 0;
    if (sscanf(msg, "region %*u: %n", &end) != 0 || end == 0)
        return NULL;
    return msg + end;
}

/* Reads a decision line about a region: graphs built, first replays, fallbacks. */
static void read_decision(struct reading *rd, const char *event)
{
    struct shim_summary *s = rd->s;
    if (starts(event, "graph built") || starts(event, "graph captured on the robust path")) {
        s->graphed++;
    } else if (starts(event, "replayed as a graph") || starts(event, "replayed on the robust path")) {
        s->replayed++;
    } else if (starts(event, "fell back after ")) {
        const char *why = strstr(event, " calls (");
        if (why)
            reasons_add(&rd->from_lines, why + 8, strcspn(why + 8, ":)\n"), 1);
    } else if (starts(event, "fell back: the capture failed")) {
        reasons_add(&rd->from_lines, "graph_error", 11, 1);
    } else if (starts(event, "its graph does not pay")) {
        reasons_add(&rd->from_lines, "not_paying", 10, 1);
    } else if (starts(event, "not graphed: ")) {
        reasons_add(&rd->from_lines, "not_graphed", 11, 1);
    }
}

/* Reads one line of the log, "reprise[PID:THREAD] LEVEL: MESSAGE" ("... rank R] ..." in a job). */
static void read_line(struct reading *rd, const char *line)
{
    struct shim_summary *s = rd->s;
    if (!starts(line, "reprise["))
        return;
    const char *level = strstr(line, "] ");
    if (level == NULL)
        return;
    level += 2;
    const char *msg = strstr(level, ": ");
    if (msg == NULL)
        return;
    msg += 2;
    if (starts(level, "warning:"))
        s->warnings++;
    else if (starts(level, "error:"))
        s->errors++;
    unsigned long long occurrences, replays, recaptured, saved;
    const char *event = region_event(msg);
    if (event) {
        read_decision(rd, event);
    } else if (starts(msg, "exit: ")) {
        s->exits++;
    } else if (sscanf(msg, "region %*u (thread %*u, %*u calls): %llu occurrences, %llu replays (%llu re-captured), "
                           "%llu calls not submitted one by one",
                      &occurrences, &replays, &recaptured, &saved) == 4) {
        s->regions++;
        s->replays += replays;
        s->calls_saved += saved;
        const char *fallbacks = strstr(msg, ", fallbacks: ");
        if (fallbacks)
            read_fallbacks(&rd->from_exit, fallbacks + 13);
    } else if (starts(msg, "ceiling: ")) {
        keep_first(s->ceiling, sizeof s->ceiling, msg + 9);
    }
    if (strstr(msg, "stepped aside"))
        keep_first(s->stepped_aside, sizeof s->stepped_aside, msg);
}

/* Reads every log file of dir whose name begins with prefix into s (zeroed first). */
void summary_read(const char *dir, const char *prefix, struct shim_summary *s)
{
    memset(s, 0, sizeof *s);
    struct reading rd = {.s = s};
    DIR *d = opendir(dir);
    if (d == NULL)
        return;
    size_t plen = strlen(prefix);
    char *line = NULL;
    size_t cap = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strncmp(e->d_name, prefix, plen) != 0)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *in = fopen(path, "r");
        if (in == NULL)
            continue;
        s->logs++;
        while (getline(&line, &cap, in) > 0)
            read_line(&rd, line);
        fclose(in);
    }
    free(line);
    closedir(d);
    s->fallbacks = s->regions ? rd.from_exit : rd.from_lines;
}
