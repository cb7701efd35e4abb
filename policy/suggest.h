/* SPDX-License-Identifier: MIT */
/* "Did you mean ...?" for misspelt names. */
#ifndef REPRISE_SUGGEST_H
#define REPRISE_SUGGEST_H

/* Edit distance with transpositions (optimal string alignment), any case. */
unsigned edit_distance(const char *a, const char *b);

/* The candidate closest to word if it is close enough to be a typo, else NULL. */
const char *closest_name(const char *word, const char *const *candidates, unsigned count);

#endif
