/* SPDX-License-Identifier: MIT */
/* The user's comma-separated lists, and matching names against shell patterns (REPRISE_EXCLUDE_KERNELS). */
#include "config.h"

#include <fnmatch.h>
#include <string.h>

#include "patterns.h"

/* The next item of the comma-separated list at *p, without the spaces around it; *len is 0 when none is left. */
const char *list_next_item(const char **p, size_t *len)
{
    const char *item = *p;
    while (*item == ' ' || *item == ',')
        item++;
    size_t n = strcspn(item, ",");
    *p = item + n;
    while (n > 0 && item[n - 1] == ' ')
        n--;
    *len = n;
    return item;
}

/* Whether name matches one of the comma-separated shell patterns (spaces around them ignored). */
bool name_matches_any(const char *name, const char *patterns)
{
    if (name == NULL || patterns == NULL)
        return false;
    const char *p = patterns, *item;
    size_t len;
    while ((item = list_next_item(&p, &len)), len > 0) {
        char pattern[256];
        if (len < sizeof pattern) { /* a longer one matches nothing */
            memcpy(pattern, item, len);
            pattern[len] = '\0';
            if (fnmatch(pattern, name, 0) == 0)
                return true;
        }
    }
    return false;
}
