/* SPDX-License-Identifier: MIT */
/* REPRISE_* options: the table, the parsed values and their diagnostics. */
#ifndef REPRISE_OPTIONS_H
#define REPRISE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum option_id {
#define OPTION(id, type, def, choices, help) OPT_##id,
#include "options.def"
#undef OPTION
    OPT_COUNT
};

enum option_type { OPTION_ENUM, OPTION_BOOL, OPTION_INT, OPTION_PATH, OPTION_TEXT, OPTION_STREAMS };

/* Values of REPRISE_MODE, in the order of its choices. */
enum reprise_mode { MODE_OFF, MODE_OBSERVE, MODE_AUTO };

/* Values of REPRISE_PROFILER, in the order of its choices. */
enum profiler_policy { PROFILER_STEP_ASIDE, PROFILER_IGNORE };

/* Values of REPRISE_REPLAY, in the order of its choices. */
enum replay_policy { REPLAY_AUTO, REPLAY_ROBUST };

/* Values of REPRISE_LOG, in the order of its choices. */
enum log_level { LOG_ERROR, LOG_WARN, LOG_INFO, LOG_DEBUG };

/* One row of the options table. */
struct option_spec {
    const char *name;    /* "REPRISE_MODE" */
    enum option_type type;
    const char *def;     /* default, as text */
    const char *choices; /* "off|observe|auto", "1..1000" or "" */
    const char *help;
};

extern const struct option_spec option_table[OPT_COUNT];

#define OPTION_TEXT_MAX 1024

/* The effective configuration. */
struct options {
    long num[OPT_COUNT];                   /* ENUM index, BOOL 0/1, INT value */
    char text[OPT_COUNT][OPTION_TEXT_MAX]; /* the value as text (PATH: the path) */
    bool from_env[OPT_COUNT];              /* set by the environment, validly */
};

#define OPTION_PROBLEMS_MAX 16
#define OPTION_PROBLEM_LEN 400

/* What was wrong with the environment, one line each. */
struct option_problems {
    int count;   /* may exceed OPTION_PROBLEMS_MAX; only that many are kept */
    char line[OPTION_PROBLEMS_MAX][OPTION_PROBLEM_LEN];
};

/* Fills opts from envp ("NAME=value" strings, NULL-terminated). */
void options_parse(struct options *opts, char *const *envp, struct option_problems *problems);

/* Sets every option to its default. */
void options_defaults(struct options *opts);

/* "mode=auto log=info ..." for the log. */
void options_format(const struct options *opts, char *buf, size_t len);

/* {"REPRISE_MODE":"auto",...} for the trace. */
void options_format_json(const struct options *opts, char *buf, size_t len);

/* The options table as Markdown, for the README. */
void options_write_markdown(FILE *out);

#endif
