/* SPDX-License-Identifier: MIT */
/* The user's comma-separated lists, and matching names against shell patterns (REPRISE_EXCLUDE_KERNELS). */
#include "config.h"

#include <ctype.h>
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

/*
 * The patterns are matched in place, each up to its comma: fnmatch wants
 * a copy ending in '\0', which a pattern of any length (a mangled CUTLASS
 * or cuBLASLt name is 300 characters and more) would have to be allocated
 * for at each launch.  What follows is fnmatch's with no flags, in bytes
 * (the C locale's): '*' any run of characters ('/' and a leading '.'
 * too), '?' any one, '[...]' one of a set (ranges, classes such as
 * [:digit:], '!' or '^' to negate, a ']' first is itself; without its
 * closing ']' a '[' is itself), '\' makes the next character itself (a
 * trailing one matches nothing).  tests/test_patterns.c checks it against
 * fnmatch.
 */

/* Whether c is in the character class named by the len bytes at name; -1 if no class has that name. */
static int class_holds(const char *name, size_t len, unsigned char c)
{
    static const struct {
        const char *name;
        int (*holds)(int);
    } classes[] = {
        {"alnum", isalnum}, {"alpha", isalpha}, {"blank", isblank}, {"cntrl", iscntrl},
        {"digit", isdigit}, {"graph", isgraph}, {"lower", islower}, {"print", isprint},
        {"punct", ispunct}, {"space", isspace}, {"upper", isupper}, {"xdigit", isxdigit},
    };
    for (size_t i = 0; i < sizeof classes / sizeof *classes; i++)
        if (strlen(classes[i].name) == len && memcmp(classes[i].name, name, len) == 0)
            return classes[i].holds(c) != 0;
    return -1;
}

/* Where the ":]" that closes a class opened at p lies before end; NULL if none does. */
static const char *class_end(const char *p, const char *end)
{
    for (const char *q = p; q + 1 < end; q++)
        if (q[0] == ':' && q[1] == ']')
            return q;
    return NULL;
}

/* How a bracket expression matched a character. */
enum bracket { BRACKET_NONE, BRACKET_HOLDS, BRACKET_LACKS, BRACKET_INVALID };

/*
 * The bracket expression at p (p[0] is '[') before end, against c: whether
 * it holds c, its length in *len; BRACKET_NONE if it does not close (the
 * '[' is then itself), BRACKET_INVALID if it names no class (the pattern
 * matches nothing).
 */
static enum bracket bracket_match(const char *p, const char *end, unsigned char c, size_t *len)
{
    const char *q = p + 1;
    bool negated = q < end && (*q == '!' || *q == '^');
    if (negated)
        q++;
    bool held = false;
    for (const char *first = q; q < end && (*q != ']' || q == first);) {
        const char *close = q[0] == '[' && q + 1 < end && q[1] == ':' ? class_end(q + 2, end) : NULL;
        if (close) {
            int holds = class_holds(q + 2, (size_t)(close - (q + 2)), c);
            if (holds < 0)
                return BRACKET_INVALID;
            held |= holds;
            q = close + 2;
            continue;
        }
        if (*q == '\\' && ++q == end)
            break;
        unsigned char low = (unsigned char)*q++;
        if (q + 1 < end && q[0] == '-' && q[1] != ']') {
            q++;
            if (*q == '\\' && ++q == end)
                break;
            unsigned char high = (unsigned char)*q++;
            held |= low <= c && c <= high;
        } else {
            held |= low == c;
        }
    }
    if (q >= end)
        return BRACKET_NONE;
    *len = (size_t)(q + 1 - p);
    return held != negated ? BRACKET_HOLDS : BRACKET_LACKS;
}

/* Whether the one-character element at *p (before end) matches c (not '\0'), and moves *p past it if so. */
static bool element_matches(const char **p, const char *end, unsigned char c, bool *invalid)
{
    const char *q = *p;
    size_t len = 1;
    bool matches;
    if (*q == '?') {
        matches = true;
    } else if (*q == '[') {
        enum bracket b = bracket_match(q, end, c, &len);
        *invalid = b == BRACKET_INVALID;
        matches = b == BRACKET_NONE ? c == '[' : b == BRACKET_HOLDS;
        len = b == BRACKET_NONE ? 1 : len;
    } else if (*q == '\\') {
        matches = q + 1 < end && (unsigned char)q[1] == c; /* a trailing '\' matches nothing */
        len = 2;
    } else {
        matches = (unsigned char)*q == c;
    }
    if (matches)
        *p = q + len;
    return matches;
}

/*
 * Whether name matches the shell pattern from pattern to end.  A '*' is
 * tried on the shortest run first, and only the last one seen is tried
 * on longer runs: what an earlier one matched, the last one can take too.
 */
static bool glob_matches(const char *pattern, const char *end, const char *name)
{
    const char *p = pattern, *s = name;
    const char *star = NULL, *star_name = NULL; /* after the last '*', and where its run ends now */
    bool invalid = false;
    for (;;) {
        if (p < end && *p == '*') {
            while (p < end && *p == '*')
                p++;
            star = p, star_name = s;
            continue;
        }
        if (p == end && *s == '\0')
            return true;
        if (p < end && *s != '\0' && element_matches(&p, end, (unsigned char)*s, &invalid)) {
            s++;
            continue;
        }
        if (invalid || star == NULL || *star_name == '\0')
            return false;
        p = star, s = ++star_name;
    }
}

/* Whether name matches one of the comma-separated shell patterns (spaces around them ignored), of any length. */
bool name_matches_any(const char *name, const char *patterns)
{
    if (name == NULL || patterns == NULL)
        return false;
    const char *p = patterns, *item;
    size_t len;
    while ((item = list_next_item(&p, &len)), len > 0)
        if (glob_matches(item, item + len, name))
            return true;
    return false;
}
