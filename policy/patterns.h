/* Matching names against the user's shell patterns (REPRISE_EXCLUDE_KERNELS). */
#ifndef REPRISE_PATTERNS_H
#define REPRISE_PATTERNS_H

#include <stdbool.h>

/* Whether name matches one of the comma-separated shell patterns (spaces around them ignored). */
bool name_matches_any(const char *name, const char *patterns);

#endif
