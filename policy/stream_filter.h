/* SPDX-License-Identifier: MIT */
/* Which streams the user never wants graphed (REPRISE_EXCLUDE_STREAMS). */
#ifndef REPRISE_STREAM_FILTER_H
#define REPRISE_STREAM_FILTER_H

#include <stdbool.h>
#include <stddef.h>

/* What the shim knows of a stream, for matching. */
enum stream_kind { STREAM_KIND_LEGACY, STREAM_KIND_PER_THREAD, STREAM_KIND_BLOCKING, STREAM_KIND_NON_BLOCKING };

struct stream_facts {
    enum stream_kind kind;
    int priority;            /* as cudaStreamGetPriority says: below 0 is higher than the default */
    unsigned long long id;   /* cudaStreamGetId's; 0 if unknown */
};

#define STREAM_FILTER_IDS 16

/* A parsed REPRISE_EXCLUDE_STREAMS. */
struct stream_filter {
    bool kinds[4];           /* by enum stream_kind */
    bool high_priority;      /* any stream whose priority is above the default */
    unsigned long long ids[STREAM_FILTER_IDS];
    unsigned id_count;
};

/* The words REPRISE_EXCLUDE_STREAMS accepts, for messages. */
#define STREAM_FILTER_ACCEPTED \
    "a comma-separated list of legacy, per_thread, blocking, non_blocking, high_priority and stream ids (numbers)"

/*
 * Parses a comma-separated list (spaces around items ignored; empty: no
 * stream excluded).  False if an item is not understood, with it in bad.
 */
bool stream_filter_parse(const char *text, struct stream_filter *filter, char *bad, size_t bad_len);

/* Whether the filter excludes a stream with these facts. */
bool stream_filter_matches(const struct stream_filter *filter, const struct stream_facts *stream);

/* Whether the filter excludes anything at all. */
bool stream_filter_empty(const struct stream_filter *filter);

/* The name of a stream kind, as the option spells it. */
const char *stream_kind_name(enum stream_kind kind);

#endif
