/* SPDX-License-Identifier: MIT */
/* Whether two runs printed the same: a byte compare of their outputs, line by line, some lines left out. */
#define _GNU_SOURCE
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "same_output.h"

/* One output being read: its file, its current line and that line's number. */
struct reader {
    FILE *in;
    char *line;
    size_t cap;
    ssize_t len; /* -1 at the end */
    unsigned long number;
};

/* Whether ignore matches a line (its newline left out of the match). */
static bool ignored(const regex_t *ignore, char *line, ssize_t len)
{
    if (ignore == NULL)
        return false;
    bool newline = len > 0 && line[len - 1] == '\n';
    if (newline)
        line[len - 1] = '\0';
    bool match = regexec(ignore, line, 0, NULL, 0) == 0;
    if (newline)
        line[len - 1] = '\n';
    return match;
}

/* Moves r to its next line that ignore does not match; len -1 at the end. */
static void next_kept(struct reader *r, const regex_t *ignore)
{
    do {
        r->len = r->in ? getline(&r->line, &r->cap, r->in) : -1;
        if (r->len < 0)
            return;
        r->number++;
    } while (ignored(ignore, r->line, r->len));
}

/* The start of r's current line, for a message ("" at the end). */
static void show_line(const struct reader *r, char *text, size_t size)
{
    if (r->len < 0) {
        text[0] = '\0';
        return;
    }
    size_t n = strcspn(r->line, "\n");
    snprintf(text, size, "%.*s", (int)n, r->line);
}

/*
 * Whether the files at a and b hold the same bytes once the lines that
 * ignore matches (NULL: none) are left out of both; if not, where they
 * first differ into *d.  A file that cannot be read differs from any.
 */
bool same_output(const char *a, const char *b, const regex_t *ignore, struct output_difference *d)
{
    struct reader ra = {.in = fopen(a, "r"), .len = -1}, rb = {.in = fopen(b, "r"), .len = -1};
    bool same = ra.in != NULL && rb.in != NULL;
    while (same) {
        next_kept(&ra, ignore);
        next_kept(&rb, ignore);
        if (ra.len < 0 || rb.len < 0) {
            same = ra.len == rb.len;
            break;
        }
        same = ra.len == rb.len && memcmp(ra.line, rb.line, (size_t)ra.len) == 0;
    }
    if (!same) {
        d->line_a = ra.len < 0 ? 0 : ra.number;
        d->line_b = rb.len < 0 ? 0 : rb.number;
        show_line(&ra, d->text_a, sizeof d->text_a);
        show_line(&rb, d->text_b, sizeof d->text_b);
    }
    free(ra.line);
    free(rb.line);
    if (ra.in)
        fclose(ra.in);
    if (rb.in)
        fclose(rb.in);
    return same;
}
