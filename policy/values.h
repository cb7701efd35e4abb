/* SPDX-License-Identifier: MIT */
/* Parsing of option values: booleans, enumerations, integers. */
#ifndef REPRISE_VALUES_H
#define REPRISE_VALUES_H

#include <stdbool.h>

/* 1/true/yes/on or 0/false/no/off, any case; false if neither. */
bool parse_bool(const char *text, long *out);

/* The index of text among '|'-separated choices, any case; false if none. */
bool parse_choice(const char *text, const char *choices, long *out);

/* The choice at index among '|'-separated choices, as they spell it, into buf ("" past the last). */
void choice_name(const char *choices, long index, char *buf, unsigned len);

/* A decimal integer within "min..max"; false if not one or out of range. */
bool parse_int_in_range(const char *text, const char *range, long *out);

/* "a, b or c" from "a|b|c", for messages. */
void describe_choices(const char *choices, char *buf, unsigned len);

#endif
