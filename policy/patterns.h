/* SPDX-License-Identifier: MIT */
/* The user's comma-separated lists, and matching names against shell patterns (REPRISE_EXCLUDE_KERNELS). */
#ifndef REPRISE_PATTERNS_H
#define REPRISE_PATTERNS_H

#include <stdbool.h>
#include <stddef.h>

/* The next item of the comma-separated list at *p, without the spaces around it; *len is 0 when none is left. */
const char *list_next_item(const char **p, size_t *len);

/* Whether name matches one of the comma-separated shell patterns (spaces around them ignored), of any length. */
bool name_matches_any(const char *name, const char *patterns);

#endif
