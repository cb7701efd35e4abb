/* SPDX-License-Identifier: MIT */
/* "Did you mean ...?" for misspelt names. */
#include "config.h"

#include <ctype.h>
#include <string.h>

#include "suggest.h"

#define NAME_MAX_LEN 64

/* Edit distance with transpositions (optimal string alignment), any case. */
unsigned edit_distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n >= NAME_MAX_LEN || m >= NAME_MAX_LEN)
        return (unsigned)(n > m ? n : m);
    unsigned d[NAME_MAX_LEN + 1][NAME_MAX_LEN + 1];
    for (size_t i = 0; i <= n; i++)
        d[i][0] = (unsigned)i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = (unsigned)j;
    for (size_t i = 1; i <= n; i++) {
        for (size_t j = 1; j <= m; j++) {
            unsigned cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
            unsigned best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < best)
                best = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 2]) &&
                tolower((unsigned char)a[i - 2]) == tolower((unsigned char)b[j - 1]) &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    }
    return d[n][m];
}

/* The candidate closest to word if it is close enough to be a typo, else NULL. */
const char *closest_name(const char *word, const char *const *candidates, unsigned count)
{
    const char *best = NULL;
    unsigned best_distance = ~0u;
    for (unsigned i = 0; i < count; i++) {
        unsigned distance = edit_distance(word, candidates[i]);
        if (distance < best_distance) {
            best_distance = distance;
            best = candidates[i];
        }
    }
    /* Two edits covers a dropped and a swapped letter; beyond that a
       suggestion is more often wrong than helpful. */
    return best_distance <= 2 ? best : NULL;
}
