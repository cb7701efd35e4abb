/* SPDX-License-Identifier: MIT */
/* REPRISE_* options: the table, parsing from the environment, formatting. */
#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "options.h"
#include "stream_filter.h"
#include "suggest.h"
#include "values.h"

#define PREFIX "REPRISE_"

const struct option_spec option_table[OPT_COUNT] = {
#define OPTION(id, type, def, choices, help) [OPT_##id] = {PREFIX #id, OPTION_##type, def, choices, help},
#include "options.def"
#undef OPTION
};

/* Records one problem line. */
static void __attribute__((format(printf, 2, 3)))
add_problem(struct option_problems *problems, const char *fmt, ...)
{
    if (problems->count < OPTION_PROBLEMS_MAX) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(problems->line[problems->count], OPTION_PROBLEM_LEN, fmt, ap);
        va_end(ap);
    }
    problems->count++;
}

/* What an option accepts, in words. */
static void describe_accepted(const struct option_spec *spec, char *buf, unsigned len)
{
    switch (spec->type) {
    case OPTION_ENUM:
        describe_choices(spec->choices, buf, len);
        break;
    case OPTION_BOOL:
        snprintf(buf, len, "1/0, true/false, yes/no or on/off");
        break;
    case OPTION_INT: {
        const char *dots = strstr(spec->choices, "..");
        snprintf(buf, len, "an integer from %.*s to %s", dots ? (int)(dots - spec->choices) : 0,
                 spec->choices, dots ? dots + 2 : "");
        break;
    }
    case OPTION_PATH:
        snprintf(buf, len, "a file name");
        break;
    case OPTION_TEXT:
        snprintf(buf, len, "text");
        break;
    case OPTION_STREAMS:
        snprintf(buf, len, "%s", STREAM_FILTER_ACCEPTED);
        break;
    }
}

/* Whether an option's value is kept as text, where empty means "none" (or stderr) rather than a mistake. */
static bool kept_as_text(enum option_id id)
{
    enum option_type type = option_table[id].type;
    return type == OPTION_PATH || type == OPTION_TEXT || type == OPTION_STREAMS;
}

/* Parses text as the value of option id; false if it is not valid. */
static bool parse_value(enum option_id id, const char *text, long *num)
{
    const struct option_spec *spec = &option_table[id];
    switch (spec->type) {
    case OPTION_ENUM:
        return parse_choice(text, spec->choices, num);
    case OPTION_BOOL:
        return parse_bool(text, num);
    case OPTION_INT:
        return parse_int_in_range(text, spec->choices, num);
    case OPTION_PATH:
    case OPTION_TEXT:
        *num = 0;
        return strlen(text) < OPTION_TEXT_MAX;
    case OPTION_STREAMS: {
        struct stream_filter filter;
        char bad[64];
        *num = 0;
        return strlen(text) < OPTION_TEXT_MAX && stream_filter_parse(text, &filter, bad, sizeof bad);
    }
    }
    return false;
}

/* Sets every option to its default. */
void options_defaults(struct options *opts)
{
    for (int id = 0; id < OPT_COUNT; id++) {
        bool ok = parse_value(id, option_table[id].def, &opts->num[id]);
        (void)ok; /* the table's defaults are checked by tests/test_options.c */
        snprintf(opts->text[id], OPTION_TEXT_MAX, "%s", option_table[id].def);
        opts->from_env[id] = false;
    }
}

/* Whether a value has white space (spaces, tabs, newlines) at its start or end. */
static bool surrounded_by_space(const char *value)
{
    size_t n = strlen(value);
    return n > 0 && (isspace((unsigned char)value[0]) || isspace((unsigned char)value[n - 1]));
}

/* Whether an option's value is refused for white space around it: all but paths and text, where it may belong. */
static bool space_refused(enum option_id id, const char *value)
{
    return !kept_as_text(id) && surrounded_by_space(value);
}

/* value in double quotes, control characters escaped (\t, \n, \xNN), so that white space shows in a message. */
static void quote_value(const char *value, char *buf, size_t len)
{
    size_t used = 0;
    buf[used++] = '"';
    for (const char *v = value; *v && used + 6 < len; v++) {
        unsigned char c = (unsigned char)*v;
        if (c == '\t' || c == '\n' || c == '\r')
            used += (size_t)snprintf(buf + used, len - used, "\\%c", c == '\t' ? 't' : c == '\n' ? 'n' : 'r');
        else if (c < 0x20)
            used += (size_t)snprintf(buf + used, len - used, "\\x%02x", c);
        else
            buf[used++] = (char)c;
    }
    buf[used++] = '"';
    buf[used] = '\0';
}

/* Whether REPRISE_STRICT is validly on in envp (the last one set wins, as in options_parse). */
static bool strict_requested(char *const *envp)
{
    const char *name = option_table[OPT_STRICT].name;
    size_t len = strlen(name);
    long on = 0, value;
    for (char *const *env = envp; env && *env; env++)
        if (strncmp(*env, name, len) == 0 && (*env)[len] == '=' && parse_bool(*env + len + 1, &value))
            on = value;
    return on != 0;
}

/* The option whose variable is name (NAME without "=value"), or -1. */
static int find_option(const char *name, size_t len)
{
    for (int id = 0; id < OPT_COUNT; id++) {
        if (strlen(option_table[id].name) == len && strncmp(option_table[id].name, name, len) == 0)
            return id;
    }
    return -1;
}

/* Reports a REPRISE_ variable that is not in the table; outcome says what follows ("ignored", "aborting, ..."). */
static void report_unknown(const char *name, size_t len, const char *outcome, struct option_problems *problems)
{
    char word[128];
    snprintf(word, sizeof word, "%.*s", (int)len, name);
    const char *names[OPT_COUNT];
    for (int id = 0; id < OPT_COUNT; id++)
        names[id] = option_table[id].name;
    const char *guess = closest_name(word, names, OPT_COUNT);
    if (guess) {
        add_problem(problems, "%s is not a known option (did you mean %s?); %s", word, guess, outcome);
        return;
    }
    char known[512];
    size_t used = 0;
    known[0] = '\0';
    for (int id = 0; id < OPT_COUNT && used < sizeof known; id++) {
        int w = snprintf(known + used, sizeof known - used, "%s%s", id ? ", " : "", names[id]);
        used += w > 0 ? (size_t)w : 0;
    }
    add_problem(problems, "%s is not a known option (known: %s); %s", word, known, outcome);
}

/* What strict mode does instead of keeping the default or ignoring a variable: the problems say so. */
#define STRICT_OUTCOME "aborting, as REPRISE_STRICT is on"

/*
 * Fills opts from envp ("NAME=value" strings, NULL-terminated).  An
 * enumeration's text is its choice as the table spells it (AUTO: auto).  Each
 * problem ends with what follows it: the default kept or the variable
 * ignored, or, with REPRISE_STRICT on, that the program aborts.
 */
void options_parse(struct options *opts, char *const *envp, struct option_problems *problems)
{
    options_defaults(opts);
    problems->count = 0;
    bool strict = strict_requested(envp);
    for (char *const *env = envp; env && *env; env++) {
        const char *entry = *env;
        if (strncmp(entry, PREFIX, strlen(PREFIX)) != 0)
            continue;
        const char *eq = strchr(entry, '=');
        size_t name_len = eq ? (size_t)(eq - entry) : strlen(entry);
        const char *value = eq ? eq + 1 : "";
        int id = find_option(entry, name_len);
        if (id < 0) {
            report_unknown(entry, name_len, strict ? STRICT_OUTCOME : "ignored", problems);
            continue;
        }
        long num;
        /* An empty path means "the default" (stderr, no trace); an empty
           value of any other type is a mistake worth reporting, and so is
           white space around a number, a boolean or a choice (" 5"). */
        bool spaced = space_refused(id, value);
        if (!spaced && parse_value(id, value, &num) && (*value || kept_as_text(id))) {
            opts->num[id] = num;
            if (option_table[id].type == OPTION_ENUM)
                choice_name(option_table[id].choices, num, opts->text[id], OPTION_TEXT_MAX);
            else
                snprintf(opts->text[id], OPTION_TEXT_MAX, "%s", value);
            opts->from_env[id] = true;
            continue;
        }
        char accepted[256], shown[220], outcome[96];
        describe_accepted(&option_table[id], accepted, sizeof accepted);
        const char *def = option_table[id].def;
        snprintf(outcome, sizeof outcome, "using default %s", *def ? def : "(none)");
        if (spaced)
            quote_value(value, shown, sizeof shown);
        else
            snprintf(shown, sizeof shown, "%.200s", value);
        add_problem(problems, "%s=%s is not valid (expected %s%s); %s", option_table[id].name, shown, accepted,
                    spaced ? ", without spaces around it" : "", strict ? STRICT_OUTCOME : outcome);
    }
}

/* The value of an option for people: paths that are empty say what that means. */
static const char *display_value(const struct options *opts, enum option_id id)
{
    if (kept_as_text(id) && opts->text[id][0] == '\0')
        return id == OPT_LOG_FILE ? "stderr" : "none";
    if (option_table[id].type == OPTION_BOOL)
        return opts->num[id] ? "on" : "off";
    return opts->text[id];
}

/* "mode=auto log=info ..." for the log. */
void options_format(const struct options *opts, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int id = 0; id < OPT_COUNT && used < len; id++) {
        char key[64];
        snprintf(key, sizeof key, "%s", option_table[id].name + strlen(PREFIX));
        for (char *k = key; *k; k++)
            *k = (char)(*k >= 'A' && *k <= 'Z' ? *k - 'A' + 'a' : *k);
        int w = snprintf(buf + used, len - used, "%s%s=%s", id ? " " : "", key, display_value(opts, id));
        used += w > 0 ? (size_t)w : 0;
    }
}

/* Appends s to buf as a JSON string. */
static size_t append_json_string(char *buf, size_t used, size_t len, const char *s)
{
    if (used < len)
        buf[used++] = '"';
    for (; *s && used + 7 < len; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            used += (size_t)snprintf(buf + used, len - used, "\\%c", c);
        else if (c < 0x20)
            used += (size_t)snprintf(buf + used, len - used, "\\u%04x", c);
        else
            buf[used++] = (char)c;
    }
    if (used < len)
        buf[used++] = '"';
    if (used < len)
        buf[used] = '\0';
    return used;
}

/* {"REPRISE_MODE":"auto",...} for the trace. */
void options_format_json(const struct options *opts, char *buf, size_t len)
{
    size_t used = 0;
    if (len < 2)
        return;
    buf[used++] = '{';
    for (int id = 0; id < OPT_COUNT && used + 4 < len; id++) {
        if (id)
            buf[used++] = ',';
        used = append_json_string(buf, used, len - 2, option_table[id].name);
        buf[used++] = ':';
        used = append_json_string(buf, used, len - 2, display_value(opts, id));
    }
    buf[used++] = '}';
    buf[used] = '\0';
}

/* The options table as Markdown, for the README. */
void options_write_markdown(FILE *out)
{
    fprintf(out, "| variable | accepts | default | what it does |\n");
    fprintf(out, "|---|---|---|---|\n");
    for (int id = 0; id < OPT_COUNT; id++) {
        char accepted[256];
        describe_accepted(&option_table[id], accepted, sizeof accepted);
        const char *def = option_table[id].def;
        if (kept_as_text(id) && !*def)
            def = id == OPT_LOG_FILE ? "(stderr)" : "(none)";
        fprintf(out, "| `%s` | %s | `%s` | %s |\n", option_table[id].name, accepted, def,
                option_table[id].help);
    }
}
