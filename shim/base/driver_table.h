/* SPDX-License-Identifier: MIT */
/* The wrapped driver functions' ids, names and kinds, from driver_hooks.def (no CUDA header needed). */
#ifndef REPRISE_DRIVER_TABLE_H
#define REPRISE_DRIVER_TABLE_H

#include <stdbool.h>

/* What a wrapped driver function does, as far as the engine cares. */
enum driver_kind {
    DRIVER_KIND_WORK,          /* enqueues, waits for or queries stream work */
    DRIVER_KIND_CAPTURABLE,    /* only enqueues work a capture records faithfully (driver_hooks.def says which) */
    DRIVER_KIND_CAPTURE_BEGIN, /* starts a capture */
    DRIVER_KIND_CAPTURE_END,   /* ends one */
    DRIVER_KIND_BOUNDARY,      /* adds no work, but ends what held-back or captured work relies on (a destroy) */
    DRIVER_KIND_SETTING,       /* changes a stream or context setting: a boundary whoever calls it */
    DRIVER_KIND_SYNC,          /* waits for or queries stream work: a boundary that returns held-back work's errors */
    DRIVER_KIND_CAPTURE_QUERY, /* asks whether a stream captures: answered for the program's captures only */
};

/* Whether a call of this kind is ordered against stream work: work, a wait or a query, a destroy. */
static inline bool driver_kind_ordered(enum driver_kind kind)
{
    return kind == DRIVER_KIND_WORK || kind == DRIVER_KIND_CAPTURABLE || kind == DRIVER_KIND_SYNC ||
           kind == DRIVER_KIND_BOUNDARY;
}

/* One id per wrapped exported name. */
enum driver_id {
#define DRIVER_HOOK(kind, name, params, args, stream) DRIVER_ID_##name,
#include "driver_hooks.def"
#undef DRIVER_HOOK
    DRIVER_COUNT
};

/* Static facts about one wrapped driver function. */
struct driver_info {
    const char *name;
    enum driver_kind kind;
    int node_kind; /* the enum call_kind a front-door call (DRIVER_NODE) becomes, or -1 */
};

extern const struct driver_info driver_table[DRIVER_COUNT];

/* The id of an exported driver name, or -1 if the table has no wrapper for it. */
int driver_id_of(const char *name);

#endif
