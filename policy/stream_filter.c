/* SPDX-License-Identifier: MIT */
/* Which streams the user never wants graphed (REPRISE_EXCLUDE_STREAMS). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "patterns.h"
#include "stream_filter.h"

static const char *const kind_names[] = {"legacy", "per_thread", "blocking", "non_blocking"};

/* The name of a stream kind, as the option spells it. */
const char *stream_kind_name(enum stream_kind kind)
{
    return kind_names[kind];
}

/* Applies one item of the list; false if it is not understood. */
static bool apply_item(const char *item, struct stream_filter *filter)
{
    for (unsigned k = 0; k < sizeof kind_names / sizeof *kind_names; k++)
        if (strcmp(item, kind_names[k]) == 0) {
            filter->kinds[k] = true;
            return true;
        }
    if (strcmp(item, "high_priority") == 0) {
        filter->high_priority = true;
        return true;
    }
    char *end;
    unsigned long long id = strtoull(item, &end, 10);
    if (item[0] < '0' || item[0] > '9' || *end != '\0' || id == 0 || filter->id_count == STREAM_FILTER_IDS)
        return false;
    filter->ids[filter->id_count++] = id;
    return true;
}

/* Parses a comma-separated list into filter; false with the first item not understood in bad. */
bool stream_filter_parse(const char *text, struct stream_filter *filter, char *bad, size_t bad_len)
{
    memset(filter, 0, sizeof *filter);
    const char *p = text ? text : "", *start;
    size_t len;
    while ((start = list_next_item(&p, &len)), len > 0) {
        char item[64];
        bool fits = len < sizeof item;
        snprintf(item, sizeof item, "%.*s", (int)len, start);
        if (!fits || !apply_item(item, filter)) {
            snprintf(bad, bad_len, "%.*s", (int)len, start);
            memset(filter, 0, sizeof *filter);
            return false;
        }
    }
    return true;
}

/* Whether the filter excludes a stream with these facts. */
bool stream_filter_matches(const struct stream_filter *filter, const struct stream_facts *stream)
{
    if (filter->kinds[stream->kind])
        return true;
    if (filter->high_priority && stream->priority < 0)
        return true;
    for (unsigned i = 0; i < filter->id_count && stream->id != 0; i++)
        if (filter->ids[i] == stream->id)
            return true;
    return false;
}

/* Whether the filter excludes anything at all. */
bool stream_filter_empty(const struct stream_filter *filter)
{
    for (unsigned k = 0; k < sizeof filter->kinds / sizeof *filter->kinds; k++)
        if (filter->kinds[k])
            return false;
    return !filter->high_priority && filter->id_count == 0;
}
