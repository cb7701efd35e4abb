/* SPDX-License-Identifier: MIT */
/* How many objects the dynamic linker has loaded and unloaded: a cheap "did anything change since?". */
#ifndef REPRISE_LOAD_COUNTERS_H
#define REPRISE_LOAD_COUNTERS_H

struct load_counters {
    unsigned long long adds, subs;
};

/* Counters that match no reading: what a cache holds before its first scan. */
#define LOAD_COUNTERS_NEVER ((struct load_counters){~0ULL, ~0ULL})

/* Reads the dynamic linker's load and unload counters now. */
void load_counters_read(struct load_counters *now);

/* Whether objects were loaded or unloaded between two readings. */
static inline int load_counters_changed(const struct load_counters *before, const struct load_counters *now)
{
    return before->adds != now->adds || before->subs != now->subs;
}

#endif
