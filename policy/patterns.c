/* Matching names against the user's shell patterns (REPRISE_EXCLUDE_KERNELS). */
#include "config.h"

#include <fnmatch.h>
#include <string.h>

#include "patterns.h"

/* Whether name matches one of the comma-separated shell patterns (spaces around them ignored). */
bool name_matches_any(const char *name, const char *patterns)
{
    if (name == NULL || patterns == NULL)
        return false;
    const char *p = patterns;
    while (*p) {
        while (*p == ' ' || *p == ',')
            p++;
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        while (len > 0 && p[len - 1] == ' ')
            len--;
        char pattern[256];
        if (len > 0 && len < sizeof pattern) {
            memcpy(pattern, p, len);
            pattern[len] = '\0';
            if (fnmatch(pattern, name, 0) == 0)
                return true;
        }
        p += end ? (size_t)(end - p) : strlen(p);
    }
    return false;
}
