/* SPDX-License-Identifier: MIT */
/*
 * A small tolerant JSON reader of our own: the shim's trace lines are flat
 * objects with a few nested objects and arrays (shim/diagnostics/trace.c writes them),
 * so a recursive-descent parser into a tree is all that is needed.  It
 * accepts standard JSON; \u escapes outside ASCII become '?'.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

/* Nesting deeper than this is refused (the trace nests three levels). */
#define JSON_MAX_DEPTH 64

struct parser {
    const char *p;
    int depth;
};

static struct json *parse_value(struct parser *ps);

/* Skips white space. */
static void skip_space(struct parser *ps)
{
    while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')
        ps->p++;
}

/* A new value of a type, zeroed; NULL when out of memory. */
static struct json *new_value(enum json_type type)
{
    struct json *v = calloc(1, sizeof *v);
    if (v)
        v->type = type;
    return v;
}

/* Parses a string literal at ps->p (on the opening quote) into a new heap string. */
static char *parse_string_text(struct parser *ps)
{
    if (*ps->p != '"')
        return NULL;
    ps->p++;
    size_t cap = 16, len = 0;
    char *s = malloc(cap);
    if (s == NULL)
        return NULL;
    for (;;) {
        char c = *ps->p++;
        if (c == '\0' || (unsigned char)c < 0x20) {
            free(s);
            return NULL;
        }
        if (c == '"')
            break;
        if (c == '\\') {
            char e = *ps->p++;
            switch (e) {
            case '"': case '\\': case '/': c = e; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'n': c = '\n'; break;
            case 'r': c = '\r'; break;
            case 't': c = '\t'; break;
            case 'u': {
                unsigned code = 0;
                for (int i = 0; i < 4; i++) {
                    char h = *ps->p++;
                    unsigned d = h >= '0' && h <= '9' ? (unsigned)(h - '0')
                               : h >= 'a' && h <= 'f' ? (unsigned)(h - 'a' + 10)
                               : h >= 'A' && h <= 'F' ? (unsigned)(h - 'A' + 10) : 16u;
                    if (d == 16) {
                        free(s);
                        return NULL;
                    }
                    code = code * 16 + d;
                }
                c = code < 0x80 ? (char)code : '?';
                break;
            }
            default:
                free(s);
                return NULL;
            }
        }
        if (len + 2 > cap) {
            char *bigger = realloc(s, cap *= 2);
            if (bigger == NULL) {
                free(s);
                return NULL;
            }
            s = bigger;
        }
        s[len++] = c;
    }
    s[len] = '\0';
    return s;
}

/* Appends an item (and, for objects, its key) to a container; false when out of memory. */
static bool append(struct json *c, char *key, struct json *item)
{
    struct json **items = realloc(c->items, (c->count + 1) * sizeof *items);
    if (items == NULL)
        return false;
    c->items = items;
    if (c->type == JSON_OBJECT) {
        char **keys = realloc(c->keys, (c->count + 1) * sizeof *keys);
        if (keys == NULL)
            return false;
        c->keys = keys;
        c->keys[c->count] = key;
    }
    c->items[c->count++] = item;
    return true;
}

/* Parses an array or object at ps->p (on its opening bracket). */
static struct json *parse_container(struct parser *ps, bool object)
{
    if (++ps->depth > JSON_MAX_DEPTH)
        return NULL;
    struct json *c = new_value(object ? JSON_OBJECT : JSON_ARRAY);
    if (c == NULL)
        return NULL;
    char close = object ? '}' : ']';
    ps->p++;
    skip_space(ps);
    if (*ps->p == close) {
        ps->p++;
        ps->depth--;
        return c;
    }
    for (;;) {
        char *key = NULL;
        skip_space(ps);
        if (object) {
            key = parse_string_text(ps);
            skip_space(ps);
            if (key == NULL || *ps->p != ':') {
                free(key);
                goto bad;
            }
            ps->p++;
        }
        struct json *item = parse_value(ps);
        if (item == NULL || !append(c, key, item)) {
            free(key);
            json_free(item);
            goto bad;
        }
        skip_space(ps);
        if (*ps->p == ',') {
            ps->p++;
            continue;
        }
        if (*ps->p == close) {
            ps->p++;
            ps->depth--;
            return c;
        }
        goto bad;
    }
bad:
    json_free(c);
    return NULL;
}

/* Parses any value at ps->p. */
static struct json *parse_value(struct parser *ps)
{
    skip_space(ps);
    const char *p = ps->p;
    if (*p == '{' || *p == '[')
        return parse_container(ps, *p == '{');
    if (*p == '"') {
        char *s = parse_string_text(ps);
        struct json *v = s ? new_value(JSON_STRING) : NULL;
        if (v == NULL) {
            free(s);
            return NULL;
        }
        v->string = s;
        return v;
    }
    static const struct { const char *word; enum json_type type; double value; } words[] = {
        {"true", JSON_BOOL, 1}, {"false", JSON_BOOL, 0}, {"null", JSON_NULL, 0},
    };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        size_t n = strlen(words[i].word);
        if (strncmp(p, words[i].word, n) == 0) {
            struct json *v = new_value(words[i].type);
            if (v)
                v->number = words[i].value;
            ps->p += n;
            return v;
        }
    }
    if (*p == '-' || (*p >= '0' && *p <= '9')) {
        char *end;
        double d = strtod(p, &end);
        if (end == p)
            return NULL;
        struct json *v = new_value(JSON_NUMBER);
        if (v)
            v->number = d;
        ps->p = end;
        return v;
    }
    return NULL;
}

/* Parses one complete JSON value from text (trailing spaces allowed); NULL if it is not one. */
struct json *json_parse(const char *text)
{
    struct parser ps = {.p = text};
    struct json *v = parse_value(&ps);
    if (v == NULL)
        return NULL;
    skip_space(&ps);
    if (*ps.p != '\0') {
        json_free(v);
        return NULL;
    }
    return v;
}

/* Frees a value and everything under it. */
void json_free(struct json *v)
{
    if (v == NULL)
        return;
    for (size_t i = 0; i < v->count; i++) {
        if (v->keys)
            free(v->keys[i]);
        json_free(v->items[i]);
    }
    free(v->keys);
    free(v->items);
    free(v->string);
    free(v);
}

/* The member called key of an object, or NULL. */
const struct json *json_get(const struct json *obj, const char *key)
{
    if (obj == NULL || obj->type != JSON_OBJECT)
        return NULL;
    for (size_t i = 0; i < obj->count; i++)
        if (strcmp(obj->keys[i], key) == 0)
            return obj->items[i];
    return NULL;
}

/* The string member key of an object, or fallback. */
const char *json_str(const struct json *obj, const char *key, const char *fallback)
{
    const struct json *v = json_get(obj, key);
    return v && v->type == JSON_STRING ? v->string : fallback;
}

/* The number member key of an object, or fallback. */
double json_num(const struct json *obj, const char *key, double fallback)
{
    const struct json *v = json_get(obj, key);
    return v && v->type == JSON_NUMBER ? v->number : fallback;
}

/* Writes s as a JSON string literal, quotes included. */
void json_write_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

/* Writes a value as compact JSON. */
void json_write(FILE *out, const struct json *v)
{
    switch (v->type) {
    case JSON_NULL: fputs("null", out); break;
    case JSON_BOOL: fputs(v->number ? "true" : "false", out); break;
    case JSON_NUMBER:
        if (v->number == (double)(long long)v->number)
            fprintf(out, "%lld", (long long)v->number);
        else
            fprintf(out, "%.17g", v->number);
        break;
    case JSON_STRING: json_write_string(out, v->string); break;
    case JSON_ARRAY:
    case JSON_OBJECT:
        fputc(v->type == JSON_OBJECT ? '{' : '[', out);
        for (size_t i = 0; i < v->count; i++) {
            if (i)
                fputc(',', out);
            if (v->type == JSON_OBJECT) {
                json_write_string(out, v->keys[i]);
                fputc(':', out);
            }
            json_write(out, v->items[i]);
        }
        fputc(v->type == JSON_OBJECT ? '}' : ']', out);
        break;
    }
}
