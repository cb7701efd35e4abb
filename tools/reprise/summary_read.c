/* SPDX-License-Identifier: MIT */
/* The shim's exit summary read back from its logs (REPRISE_LOG=info, REPRISE_STATS=1), for reprise compare. */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "summary_read.h"

/* Adds a fallback reason's count to s (its name: len bytes of name). */
void summary_add_reason(struct shim_summary *s, const char *name, size_t len, unsigned long long count)
{
    s->fallbacks += count;
    unsigned i = 0;
    while (i < s->reason_count && !(strlen(s->reasons[i].name) == len && strncmp(s->reasons[i].name, name, len) == 0))
        i++;
    if (i == s->reason_count) {
        if (i == SUMMARY_REASONS)
            return;
        snprintf(s->reasons[i].name, sizeof s->reasons[i].name, "%.*s", (int)len, name);
        s->reason_count++;
    }
    s->reasons[i].count += count;
}

/* Adds the reasons of a region line's "fallbacks: a 3, b 1" (or "none") to s. */
static void read_fallbacks(struct shim_summary *s, const char *list)
{
    while (*list) {
        size_t len = strcspn(list, " ,");
        unsigned long long n = 0;
        if (list[len] == ' ' && sscanf(list + len, " %llu", &n) == 1 && n > 0)
            summary_add_reason(s, list, len, n);
        const char *next = strstr(list, ", ");
        if (next == NULL)
            return;
        list = next + 2;
    }
}

/* Copies a log message into one of s's texts, its newline left out, unless the text holds one already. */
static void keep_first(char *text, size_t size, const char *msg)
{
    if (text[0] == '\0')
        snprintf(text, size, "%.*s", (int)strcspn(msg, "\n"), msg);
}

/* Reads one line of the log, "reprise[PID:THREAD] LEVEL: MESSAGE" ("... rank R] ..." in a job), into s. */
static void read_line(struct shim_summary *s, const char *line)
{
    if (strncmp(line, "reprise[", 8) != 0)
        return;
    const char *level = strstr(line, "] ");
    if (level == NULL)
        return;
    level += 2;
    const char *msg = strstr(level, ": ");
    if (msg == NULL)
        return;
    msg += 2;
    if (strncmp(level, "warning:", 8) == 0)
        s->warnings++;
    else if (strncmp(level, "error:", 6) == 0)
        s->errors++;
    unsigned long long occurrences, replays, recaptured, saved, built;
    if (strncmp(msg, "exit: ", 6) == 0) {
        s->exits++;
    } else if (sscanf(msg, "region %*u (thread %*u, %*u calls): %llu occurrences, %llu replays (%llu re-captured), "
                           "%llu calls not submitted one by one",
                      &occurrences, &replays, &recaptured, &saved) == 4) {
        s->regions++;
        s->replayed += replays > 0;
        s->replays += replays;
        s->calls_saved += saved;
        const char *fallbacks = strstr(msg, ", fallbacks: ");
        if (fallbacks)
            read_fallbacks(s, fallbacks + 13);
    } else if (sscanf(msg, "graphs: %llu built", &built) == 1) {
        s->graphs_built += built;
    } else if (strncmp(msg, "ceiling: ", 9) == 0) {
        keep_first(s->ceiling, sizeof s->ceiling, msg + 9);
    }
    if (strstr(msg, "stepped aside"))
        keep_first(s->stepped_aside, sizeof s->stepped_aside, msg);
}

/* Reads every log file of dir whose name begins with prefix into s (zeroed first). */
void summary_read(const char *dir, const char *prefix, struct shim_summary *s)
{
    memset(s, 0, sizeof *s);
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
            read_line(s, line);
        fclose(in);
    }
    free(line);
    closedir(d);
}
