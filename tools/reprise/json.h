/* SPDX-License-Identifier: MIT */
/* A small tolerant JSON reader for the shim's trace lines (one object per line). */
#ifndef REPRISE_JSON_H
#define REPRISE_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum json_type { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

struct json {
    enum json_type type;
    double number;          /* JSON_NUMBER, JSON_BOOL (0 or 1) */
    char *string;           /* JSON_STRING */
    size_t count;           /* JSON_ARRAY, JSON_OBJECT: members */
    char **keys;            /* JSON_OBJECT: member names */
    struct json **items;    /* JSON_ARRAY, JSON_OBJECT: members */
};

/* Parses one complete JSON value from text (trailing spaces allowed); NULL if it is not one. */
struct json *json_parse(const char *text);
/* Frees a value and everything under it. */
void json_free(struct json *v);
/* The member called key of an object, or NULL. */
const struct json *json_get(const struct json *obj, const char *key);
/* The string member key of an object, or fallback. */
const char *json_str(const struct json *obj, const char *key, const char *fallback);
/* The number member key of an object, or fallback. */
double json_num(const struct json *obj, const char *key, double fallback);
/* Writes s as a JSON string literal, quotes included. */
void json_write_string(FILE *out, const char *s);
/* Writes a value as compact JSON. */
void json_write(FILE *out, const struct json *v);

#endif
