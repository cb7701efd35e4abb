/* SPDX-License-Identifier: MIT */
/* Parsing of option values: booleans, enumerations, integers. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "values.h"

/* 1/true/yes/on or 0/false/no/off, any case; false if neither. */
bool parse_bool(const char *text, long *out)
{
    static const char *const truthy[] = {"1", "true", "yes", "on"};
    static const char *const falsy[] = {"0", "false", "no", "off"};
    for (unsigned i = 0; i < 4; i++) {
        if (strcasecmp(text, truthy[i]) == 0) {
            *out = 1;
            return true;
        }
        if (strcasecmp(text, falsy[i]) == 0) {
            *out = 0;
            return true;
        }
    }
    return false;
}

/* The index of text among '|'-separated choices, any case; false if none. */
bool parse_choice(const char *text, const char *choices, long *out)
{
    size_t len = strlen(text);
    long index = 0;
    for (const char *p = choices; *p; index++) {
        const char *bar = strchr(p, '|');
        size_t n = bar ? (size_t)(bar - p) : strlen(p);
        if (n == len && len > 0 && strncasecmp(p, text, n) == 0) {
            *out = index;
            return true;
        }
        p += n + (bar != NULL);
    }
    return false;
}

/* The choice at index among '|'-separated choices, as they spell it, into buf ("" past the last). */
void choice_name(const char *choices, long index, char *buf, unsigned len)
{
    const char *p = choices;
    for (long i = 0; i < index && p; i++) {
        p = strchr(p, '|');
        p = p ? p + 1 : NULL;
    }
    snprintf(buf, len, "%.*s", p ? (int)strcspn(p, "|") : 0, p ? p : "");
}

/* A decimal integer within "min..max"; false if not one or out of range. */
bool parse_int_in_range(const char *text, const char *range, long *out)
{
    char *end;
    long min = strtol(range, &end, 10);
    long max = (end[0] == '.' && end[1] == '.') ? strtol(end + 2, NULL, 10) : LONG_MAX;
    if (*text == '\0')
        return false;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (errno != 0 || *end != '\0' || value < min || value > max)
        return false;
    *out = value;
    return true;
}

/* "a, b or c" from "a|b|c", for messages. */
void describe_choices(const char *choices, char *buf, unsigned len)
{
    unsigned count = 1, used = 0;
    for (const char *p = choices; *p; p++)
        count += *p == '|';
    buf[0] = '\0';
    const char *p = choices;
    for (unsigned i = 0; i < count && used < len; i++) {
        const char *bar = strchr(p, '|');
        int n = bar ? (int)(bar - p) : (int)strlen(p);
        const char *sep = i == 0 ? "" : (i + 1 == count ? " or " : ", ");
        int w = snprintf(buf + used, len - used, "%s%.*s", sep, n, p);
        used += w > 0 ? (unsigned)w : 0;
        p += n + 1;
    }
}
