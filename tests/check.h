/* SPDX-License-Identifier: MIT */
/* A minimal assertion kit for reprise's C tests: failures are counted and printed, main returns check_result(). */
#ifndef REPRISE_CHECK_H
#define REPRISE_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_failures;
static int check_count;

#define CHECK(cond)                                                                                         \
    do {                                                                                                    \
        check_count++;                                                                                      \
        if (!(cond)) {                                                                                      \
            check_failures++;                                                                               \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);                        \
        }                                                                                                   \
    } while (0)

#define CHECK_STR_EQ(a, b)                                                                                  \
    do {                                                                                                    \
        const char *check_a_ = (a), *check_b_ = (b);                                                        \
        check_count++;                                                                                      \
        if (strcmp(check_a_, check_b_) != 0) {                                                              \
            check_failures++;                                                                               \
            fprintf(stderr, "%s:%d: check failed: %s == %s\n  got:      \"%s\"\n  expected: \"%s\"\n",    \
                    __FILE__, __LINE__, #a, #b, check_a_, check_b_);                                        \
        }                                                                                                   \
    } while (0)

#define CHECK_CONTAINS(haystack, needle)                                                                    \
    do {                                                                                                    \
        const char *check_h_ = (haystack), *check_n_ = (needle);                                            \
        check_count++;                                                                                      \
        if (strstr(check_h_, check_n_) == NULL) {                                                           \
            check_failures++;                                                                               \
            fprintf(stderr, "%s:%d: check failed: \"%s\" does not contain \"%s\"\n", __FILE__, __LINE__,    \
                    check_h_, check_n_);                                                                    \
        }                                                                                                   \
    } while (0)

/* Prints the tally; the exit status for main. */
static inline int check_result(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
    return check_failures ? 1 : 0;
}

#endif
