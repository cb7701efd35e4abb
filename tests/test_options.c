/* SPDX-License-Identifier: MIT */
/* Unit tests of REPRISE_* parsing: values, bad values, typos, empty values, formatting. */
#include "config.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "options.h"
#include "suggest.h"
#include "values.h"

/* Parses a NULL-terminated list of "NAME=value" strings. */
static void parse(struct options *opts, struct option_problems *problems, char **env)
{
    options_parse(opts, env, problems);
}

/* Every default in the table parses as a valid value of its own option. */
static void test_table_defaults(void)
{
    for (int id = 0; id < OPT_COUNT; id++) {
        char entry[256];
        snprintf(entry, sizeof entry, "%s=%s", option_table[id].name, option_table[id].def);
        char *env[] = {entry, NULL};
        struct options opts;
        struct option_problems problems;
        parse(&opts, &problems, env);
        if (option_table[id].type != OPTION_PATH || option_table[id].def[0])
            CHECK(problems.count == 0);
        CHECK(strncmp(option_table[id].name, "REPRISE_", 8) == 0);
        CHECK(option_table[id].help[0] != '\0');
    }
}

/* The enumerations' order matches the enums the code uses. */
static void test_enum_order(void)
{
    const char *modes[] = {"off", "observe", "auto"};
    const long mode_values[] = {MODE_OFF, MODE_OBSERVE, MODE_AUTO};
    for (int i = 0; i < 3; i++) {
        char entry[64];
        snprintf(entry, sizeof entry, "REPRISE_MODE=%s", modes[i]);
        char *env[] = {entry, NULL};
        struct options opts;
        struct option_problems problems;
        parse(&opts, &problems, env);
        CHECK(problems.count == 0);
        CHECK(opts.num[OPT_MODE] == mode_values[i]);
        CHECK(opts.from_env[OPT_MODE]);
    }
    const char *levels[] = {"error", "warn", "info", "debug"};
    const long level_values[] = {LOG_ERROR, LOG_WARN, LOG_INFO, LOG_DEBUG};
    for (int i = 0; i < 4; i++) {
        char entry[64];
        snprintf(entry, sizeof entry, "REPRISE_LOG=%s", levels[i]);
        char *env[] = {entry, NULL};
        struct options opts;
        struct option_problems problems;
        parse(&opts, &problems, env);
        CHECK(problems.count == 0);
        CHECK(opts.num[OPT_LOG] == level_values[i]);
    }
}

/* Defaults when nothing is set; unrelated variables are ignored. */
static void test_defaults(void)
{
    char *env[] = {"PATH=/bin", "HOME=/root", "REPRISEX=1", NULL};
    struct options opts;
    struct option_problems problems;
    parse(&opts, &problems, env);
    CHECK(problems.count == 0);
    CHECK(opts.num[OPT_MODE] == MODE_AUTO);
    CHECK(opts.num[OPT_LOG] == LOG_WARN);
    CHECK(opts.num[OPT_STATS] == 0);
    CHECK(opts.num[OPT_CRASH_REPORT] == 1);
    CHECK(opts.num[OPT_STRICT] == 0);
    CHECK_STR_EQ(opts.text[OPT_LOG_FILE], "");
    CHECK(!opts.from_env[OPT_MODE]);
}

/* Every spelling of a boolean, in any case. */
static void test_bool_spellings(void)
{
    const char *yes[] = {"1", "true", "TRUE", "yes", "Yes", "on", "ON"};
    const char *no[] = {"0", "false", "False", "no", "NO", "off", "Off"};
    for (int i = 0; i < 7; i++) {
        char a[64], b[64];
        snprintf(a, sizeof a, "REPRISE_STATS=%s", yes[i]);
        snprintf(b, sizeof b, "REPRISE_STRICT=%s", no[i]);
        char *env[] = {a, b, NULL};
        struct options opts;
        struct option_problems problems;
        parse(&opts, &problems, env);
        CHECK(problems.count == 0);
        CHECK(opts.num[OPT_STATS] == 1);
        CHECK(opts.num[OPT_STRICT] == 0);
    }
}

/* Enumerations are case-insensitive. */
static void test_enum_case(void)
{
    char *env[] = {"REPRISE_MODE=OBSERVE", "REPRISE_LOG=Debug", NULL};
    struct options opts;
    struct option_problems problems;
    parse(&opts, &problems, env);
    CHECK(problems.count == 0);
    CHECK(opts.num[OPT_MODE] == MODE_OBSERVE);
    CHECK(opts.num[OPT_LOG] == LOG_DEBUG);
}

/* A bad value names the variable, the value and what is accepted, and keeps the default. */
static void test_bad_values(void)
{
    char *env[] = {"REPRISE_MODE=fast", "REPRISE_LOG=loud", "REPRISE_STATS=maybe", "REPRISE_STRICT=2", NULL};
    struct options opts;
    struct option_problems problems;
    parse(&opts, &problems, env);
    CHECK(problems.count == 4);
    CHECK(opts.num[OPT_MODE] == MODE_AUTO);
    CHECK(opts.num[OPT_LOG] == LOG_WARN);
    CHECK(opts.num[OPT_STATS] == 0);
    CHECK(!opts.from_env[OPT_MODE]);
    CHECK_STR_EQ(problems.line[0],
                 "REPRISE_MODE=fast is not valid (expected off, observe or auto); using default auto");
    CHECK_STR_EQ(problems.line[1],
                 "REPRISE_LOG=loud is not valid (expected error, warn, info or debug); using default warn");
    CHECK_STR_EQ(problems.line[2],
                 "REPRISE_STATS=maybe is not valid (expected 1/0, true/false, yes/no or on/off); using default off");
    CHECK_CONTAINS(problems.line[3], "REPRISE_STRICT=2 is not valid");
}

/* A list of streams is checked item by item; a bad item rejects the whole value, which says what is accepted. */
static void test_stream_list(void)
{
    char *good[] = {"REPRISE_EXCLUDE_STREAMS=legacy, 7 ,high_priority", NULL};
    struct options opts;
    struct option_problems problems;
    parse(&opts, &problems, good);
    CHECK(problems.count == 0);
    CHECK_STR_EQ(opts.text[OPT_EXCLUDE_STREAMS], "legacy, 7 ,high_priority");
    char *bad[] = {"REPRISE_EXCLUDE_STREAMS=legacy,side", NULL};
    parse(&opts, &problems, bad);
    CHECK(problems.count == 1);
    CHECK_STR_EQ(problems.line[0], "REPRISE_EXCLUDE_STREAMS=legacy,side is not valid (expected a comma-separated list of "
                                   "legacy, per_thread, blocking, non_blocking, high_priority and stream ids "
                                   "(numbers)); using default (none)");
    CHECK_STR_EQ(opts.text[OPT_EXCLUDE_STREAMS], "");
}

/* Empty values are reported, except for paths where empty means the default. */
static void test_empty_values(void)
{
    char *env[] = {"REPRISE_MODE=", "REPRISE_STATS=", "REPRISE_LOG_FILE=", "REPRISE_TRACE", NULL};
    struct options opts;
    struct option_problems problems;
    parse(&opts, &problems, env);
    CHECK(problems.count == 2);
    CHECK_STR_EQ(problems.line[0], "REPRISE_MODE= is not valid (expected off, observe or auto); using default auto");
    CHECK_CONTAINS(problems.line[1], "REPRISE_STATS= is not valid");
    CHECK(opts.num[OPT_MODE] == MODE_AUTO);
    CHECK_STR_EQ(opts.text[OPT_LOG_FILE], "");
}

/* Misspelt names are reported, with a suggestion when one is close. */
static void test_typos(void)
{
    char *env[] = {"REPRISE_MOED=off", "REPRISE_LGO=info", "REPRISE_STAT=1", "REPRISE_BANANA=1", NULL};
    struct options opts;
    struct option_problems problems;
    parse(&opts, &problems, env);
    CHECK(problems.count == 4);
    CHECK_STR_EQ(problems.line[0], "REPRISE_MOED is not a known option (did you mean REPRISE_MODE?); ignored");
    CHECK_STR_EQ(problems.line[1], "REPRISE_LGO is not a known option (did you mean REPRISE_LOG?); ignored");
    CHECK_CONTAINS(problems.line[2], "did you mean REPRISE_STATS?");
    CHECK_CONTAINS(problems.line[3], "REPRISE_BANANA is not a known option (known: REPRISE_MODE, ");
    CHECK(opts.num[OPT_MODE] == MODE_AUTO); /* the misspelt MODE=off did not apply */
}

/* The edit distance counts a swap of neighbours as one edit. */
static void test_edit_distance(void)
{
    CHECK(edit_distance("MODE", "MODE") == 0);
    CHECK(edit_distance("MOED", "MODE") == 1);
    CHECK(edit_distance("mode", "MODE") == 0);
    CHECK(edit_distance("LOG", "LOG_FILE") == 5);
    CHECK(edit_distance("", "abc") == 3);
}

/* Integer options: a value out of range names the range and keeps the default. */
static void test_int_option(void)
{
    char *env[] = {"REPRISE_MIN_REPEATS=0", "REPRISE_MAX_GRAPHS=64", "REPRISE_MAX_REGION_CALLS=lots", NULL};
    struct options opts;
    struct option_problems problems;
    parse(&opts, &problems, env);
    CHECK(problems.count == 2);
    CHECK_STR_EQ(problems.line[0],
                 "REPRISE_MIN_REPEATS=0 is not valid (expected an integer from 1 to 1000); using default 2");
    CHECK_CONTAINS(problems.line[1], "REPRISE_MAX_REGION_CALLS=lots is not valid (expected an integer from 1 to ");
    CHECK(opts.num[OPT_MIN_REPEATS] == 2);
    CHECK(opts.num[OPT_MAX_GRAPHS] == 64);
}

/* Integers within a range. */
static void test_int_values(void)
{
    long v = -1;
    CHECK(parse_int_in_range("5", "1..10", &v) && v == 5);
    CHECK(!parse_int_in_range("0", "1..10", &v));
    CHECK(!parse_int_in_range("11", "1..10", &v));
    CHECK(!parse_int_in_range("5x", "1..10", &v));
    CHECK(!parse_int_in_range("", "1..10", &v));
    CHECK(!parse_int_in_range("99999999999999999999999", "1..10", &v));
}

/* The configuration line and its JSON form. */
static void test_format(void)
{
    char *env[] = {"REPRISE_MODE=observe", "REPRISE_LOG=info", "REPRISE_LOG_FILE=/tmp/r-%p.log",
                   "REPRISE_STATS=yes", NULL};
    struct options opts;
    struct option_problems problems;
    parse(&opts, &problems, env);
    char text[1024];
    options_format(&opts, text, sizeof text);
    CHECK_STR_EQ(text, "mode=observe min_repeats=2 recordings=2 min_region_calls=4 max_region_calls=8192 max_batch_calls=1024 max_segments=8 "
                       "max_graphs=32 graph_instances=4 "
                       "exclude_kernels=none exclude_streams=none replay=auto trial=4 governor=on governor_epoch_ms=100 "
                       "governor_epoch_syncs=30 deferral_timeout_us=2000 profiler=step_aside log=info log_file=/tmp/r-%p.log trace=none "
                       "stats=on crash_report=on strict=off");
    options_format_json(&opts, text, sizeof text);
    CHECK_STR_EQ(text, "{\"REPRISE_MODE\":\"observe\",\"REPRISE_MIN_REPEATS\":\"2\",\"REPRISE_RECORDINGS\":\"2\",\"REPRISE_MIN_REGION_CALLS\":\"4\","
                       "\"REPRISE_MAX_REGION_CALLS\":\"8192\",\"REPRISE_MAX_BATCH_CALLS\":\"1024\",\"REPRISE_MAX_SEGMENTS\":\"8\",\"REPRISE_MAX_GRAPHS\":\"32\",\"REPRISE_GRAPH_INSTANCES\":\"4\","
                       "\"REPRISE_EXCLUDE_KERNELS\":\"none\",\"REPRISE_EXCLUDE_STREAMS\":\"none\",\"REPRISE_REPLAY\":\"auto\",\"REPRISE_TRIAL\":\"4\",\"REPRISE_GOVERNOR\":\"on\","
                       "\"REPRISE_GOVERNOR_EPOCH_MS\":\"100\",\"REPRISE_GOVERNOR_EPOCH_SYNCS\":\"30\",\"REPRISE_DEFERRAL_TIMEOUT_US\":\"2000\",\"REPRISE_PROFILER\":\"step_aside\",\"REPRISE_LOG\":\"info\",\"REPRISE_LOG_FILE\":"
                       "\"/tmp/r-%p.log\",\"REPRISE_TRACE\":\"none\",\"REPRISE_STATS\":\"on\",\"REPRISE_CRASH_REPORT\":\"on\","
                       "\"REPRISE_STRICT\":\"off\"}");
}

/* A value with spaces around it (" 5", "auto ", "1\t") is refused, quoted so that they show, and the default kept. */
static void test_surrounding_space(void)
{
    char *env[] = {"REPRISE_MAX_GRAPHS= 5", "REPRISE_MIN_REPEATS=3 ", "REPRISE_MODE=\tobserve", "REPRISE_STATS=1\n", NULL};
    struct options opts;
    struct option_problems problems;
    parse(&opts, &problems, env);
    CHECK(problems.count == 4);
    CHECK_STR_EQ(problems.line[0], "REPRISE_MAX_GRAPHS=\" 5\" is not valid (expected an integer from 1 to 4096, "
                                   "without spaces around it); using default 32");
    CHECK_STR_EQ(problems.line[1], "REPRISE_MIN_REPEATS=\"3 \" is not valid (expected an integer from 1 to 1000, "
                                   "without spaces around it); using default 2");
    CHECK_CONTAINS(problems.line[2], "REPRISE_MODE=\"\\tobserve\" is not valid (expected off, observe or auto, without");
    CHECK_CONTAINS(problems.line[3], "REPRISE_STATS=\"1\\n\" is not valid");
    CHECK(opts.num[OPT_MAX_GRAPHS] == 32);
    CHECK(!opts.from_env[OPT_MAX_GRAPHS]);
    CHECK(opts.num[OPT_MIN_REPEATS] == 2);
    CHECK(opts.num[OPT_MODE] == MODE_AUTO);
    CHECK(opts.num[OPT_STATS] == 0);
    /* Paths keep what they are given: a file name may hold spaces. */
    char *paths[] = {"REPRISE_LOG_FILE=/tmp/my log ", NULL};
    parse(&opts, &problems, paths);
    CHECK(problems.count == 0);
    CHECK_STR_EQ(opts.text[OPT_LOG_FILE], "/tmp/my log ");
}

/* An enumeration given in any case is shown as its choice is written (REPRISE_MODE=AUTO: mode=auto). */
static void test_enum_canonical(void)
{
    char *env[] = {"REPRISE_MODE=AUTO", "REPRISE_LOG=Info", "REPRISE_PROFILER=IGNORE", "REPRISE_STATS=YES", NULL};
    struct options opts;
    struct option_problems problems;
    parse(&opts, &problems, env);
    CHECK(problems.count == 0);
    CHECK(opts.num[OPT_MODE] == MODE_AUTO);
    CHECK_STR_EQ(opts.text[OPT_MODE], "auto");
    CHECK_STR_EQ(opts.text[OPT_LOG], "info");
    CHECK_STR_EQ(opts.text[OPT_PROFILER], "ignore");
    char text[2048];
    options_format(&opts, text, sizeof text);
    CHECK(strncmp(text, "mode=auto ", 10) == 0);
    CHECK_CONTAINS(text, " profiler=ignore log=info ");
    CHECK_CONTAINS(text, " stats=on ");
    options_format_json(&opts, text, sizeof text);
    CHECK_CONTAINS(text, "\"REPRISE_MODE\":\"auto\"");
}

/* With REPRISE_STRICT on, wherever it is in the environment, a problem says the program aborts, not what it keeps. */
static void test_strict_messages(void)
{
    char *env[] = {"REPRISE_MODE=fast", "REPRISE_MOED=off", "REPRISE_STRICT=1", NULL};
    struct options opts;
    struct option_problems problems;
    parse(&opts, &problems, env);
    CHECK(problems.count == 2);
    CHECK_STR_EQ(problems.line[0], "REPRISE_MODE=fast is not valid (expected off, observe or auto); aborting, as "
                                   "REPRISE_STRICT is on");
    CHECK_STR_EQ(problems.line[1], "REPRISE_MOED is not a known option (did you mean REPRISE_MODE?); aborting, as "
                                   "REPRISE_STRICT is on");
    /* A bad REPRISE_STRICT is not on: its own problem, and the others', keep the default. */
    char *bad_strict[] = {"REPRISE_MODE=fast", "REPRISE_STRICT=sure", NULL};
    parse(&opts, &problems, bad_strict);
    CHECK(problems.count == 2);
    CHECK_STR_EQ(problems.line[0], "REPRISE_MODE=fast is not valid (expected off, observe or auto); using default auto");
    CHECK_CONTAINS(problems.line[1], "REPRISE_STRICT=sure is not valid (expected 1/0, true/false, yes/no or on/off); "
                                     "using default off");
    char *strict_off[] = {"REPRISE_STRICT=off", "REPRISE_MODE=fast", NULL};
    parse(&opts, &problems, strict_off);
    CHECK(problems.count == 1);
    CHECK_CONTAINS(problems.line[0], "; using default auto");
}

/* More problems than are kept are still counted. */
static void test_many_problems(void)
{
    char *env[OPTION_PROBLEMS_MAX + 6];
    char store[OPTION_PROBLEMS_MAX + 5][32];
    for (int i = 0; i < OPTION_PROBLEMS_MAX + 5; i++) {
        snprintf(store[i], sizeof store[i], "REPRISE_NOPE%d=1", i);
        env[i] = store[i];
    }
    env[OPTION_PROBLEMS_MAX + 5] = NULL;
    struct options opts;
    struct option_problems problems;
    parse(&opts, &problems, env);
    CHECK(problems.count == OPTION_PROBLEMS_MAX + 5);
}

int main(void)
{
    test_table_defaults();
    test_enum_order();
    test_defaults();
    test_bool_spellings();
    test_enum_case();
    test_bad_values();
    test_empty_values();
    test_stream_list();
    test_typos();
    test_edit_distance();
    test_int_values();
    test_int_option();
    test_format();
    test_many_problems();
    test_surrounding_space();
    test_enum_canonical();
    test_strict_messages();
    return check_result("test_options");
}
