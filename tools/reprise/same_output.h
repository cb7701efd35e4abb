/* SPDX-License-Identifier: MIT */
/* Whether two runs printed the same: a byte compare of their outputs, line by line, some lines left out. */
#ifndef REPRISE_SAME_OUTPUT_H
#define REPRISE_SAME_OUTPUT_H

#include <regex.h>
#include <stdbool.h>

/* Where two outputs first differ: the line of each (from 1, every line counted), and its start. */
struct output_difference {
    unsigned long line_a, line_b; /* 0: that output ended (or could not be read) */
    char text_a[100], text_b[100];
};

/*
 * Whether the files at a and b hold the same bytes once the lines that
 * ignore matches (NULL: none) are left out of both; if not, where they
 * first differ into *d.  A file that cannot be read differs from any.
 */
bool same_output(const char *a, const char *b, const regex_t *ignore, struct output_difference *d);

#endif
