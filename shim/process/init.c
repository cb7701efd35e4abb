/* SPDX-License-Identifier: MIT */
/* Initialisation and shutdown: options, log, trace, crash report, exit summary. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "call_words.h"
#include "crash_report.h"
#include "engine.h"
#include "hidden_work.h"
#include "log.h"
#include "observe_sequences.h"
#include "output_file.h"
#include "settings.h"
#include "summary.h"
#include "trace.h"

extern char **environ;

atomic_bool shim_ready;

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
/* Set while this thread initialises: a hooked call made during init (from a
   constructor that runs inside ours, say) passes straight through instead of
   waiting on pthread_once, which would deadlock. */
static __thread bool initialising;

/* The launcher's view of this process (torchrun, mpirun -x, SLURM scripts): read once at init. */
struct process_place {
    long rank, local_rank, world_size; /* -1 when unset or bad */
    char problem[3][160];              /* a warning per bad variable */
    int problems;
};

/* The value of variable name: a non-negative integer, or -1 when unset or bad (a warning in place). */
static long place_variable(struct process_place *place, const char *name)
{
    const char *v = getenv(name);
    if (v == NULL)
        return -1;
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (v[0] < '0' || v[0] > '9' || *end != '\0' || errno != 0 || n > INT_MAX) {
        if (place->problems < 3)
            snprintf(place->problem[place->problems++], sizeof place->problem[0],
                     "%s=%.80s is not valid (expected a non-negative integer); ignored", name, v);
        return -1;
    }
    return n;
}

/* Reads RANK, LOCAL_RANK and WORLD_SIZE; the rank is RANK's, else LOCAL_RANK's. */
static void place_read(struct process_place *place)
{
    place->problems = 0;
    place->rank = place_variable(place, "RANK");
    place->local_rank = place_variable(place, "LOCAL_RANK");
    place->world_size = place_variable(place, "WORLD_SIZE");
    if (place->rank < 0)
        place->rank = place->local_rank;
}

/* The place's fields for the trace's config event (",\"rank\":R..." or ""). */
static void place_format_json(const struct process_place *place, char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    const char *names[] = {"rank", "local_rank", "world_size"};
    long values[] = {place->rank, place->local_rank, place->world_size};
    for (int i = 0; i < 3; i++)
        if (values[i] >= 0 && used < len) {
            int n = snprintf(out + used, len - used, ",\"%s\":%ld", names[i], values[i]);
            used += n > 0 ? (size_t)n : 0;
        }
}

/* Reports what was wrong with the environment; aborts if REPRISE_STRICT says so. */
static void report_option_problems(const struct option_problems *problems)
{
    bool strict = shim_options.num[OPT_STRICT] != 0;
    int shown = problems->count < OPTION_PROBLEMS_MAX ? problems->count : OPTION_PROBLEMS_MAX;
    for (int i = 0; i < shown; i++)
        log_always(strict ? LOG_ERROR : LOG_WARN, "%s", problems->line[i]);
    if (problems->count > shown)
        log_always(LOG_WARN, "%d more problems with REPRISE_* variables not shown", problems->count - shown);
    if (strict && problems->count > 0) {
        log_always(LOG_ERROR, "REPRISE_STRICT is on and %d REPRISE_* variable%s invalid: aborting",
                   problems->count, problems->count == 1 ? " is" : "s are");
        abort();
    }
}

/* Reads the options and opens the outputs; runs once per process. */
static void shim_init(void)
{
    int saved_errno = errno;
    initialising = true;
    struct option_problems problems;
    options_parse(&shim_options, environ, &problems);
    struct process_place place;
    place_read(&place);
    log_set_rank(place.rank); /* before the log file is opened: its name may hold %r */
    log_setup((enum log_level)shim_options.num[OPT_LOG], shim_options.text[OPT_LOG_FILE]);
    for (int i = 0; i < place.problems; i++)
        log_always(LOG_WARN, "%s", place.problem[i]);
    report_option_problems(&problems);
    trace_setup(shim_options.text[OPT_TRACE]);

    char text[2048];
    options_format(&shim_options, text, sizeof text);
    log_info("reprise %s in %s: config %s", PACKAGE_VERSION, program_invocation_short_name, text);
    options_format_json(&shim_options, text, sizeof text);
    char place_json[96];
    place_format_json(&place, place_json, sizeof place_json);
    trace_event("config", "\"version\":\"%s\",\"program\":\"%s\"%s,\"options\":%s", PACKAGE_VERSION,
                program_invocation_short_name, place_json, text);

    shim_observing = shim_options.num[OPT_MODE] != MODE_OFF;
    shim_auto = shim_options.num[OPT_MODE] == MODE_AUTO;
    atomic_store_explicit(&shim_looking, shim_observing, memory_order_relaxed);
    /* Counting costs an atomic add or two a call: in auto mode, only when someone will read the counts. */
    shim_counting = shim_options.num[OPT_MODE] == MODE_OBSERVE ||
                    (shim_auto && (shim_options.num[OPT_STATS] || shim_options.text[OPT_TRACE][0]));
    if (shim_auto) {
        engine_set_unseen_work_probe(hidden_work_possible);
        engine_configure();
        engine_governor_configure();
    } else if (shim_observing) {
        observe_set_namer(difference_in_words); /* observe mode's differences named as auto's */
    }
    if (shim_observing && shim_options.num[OPT_CRASH_REPORT])
        crash_report_install(shim_auto ? engine_crash_state : NULL);
    initialising = false;
    atomic_store_explicit(&shim_ready, true, memory_order_release);
    errno = saved_errno;
}

/* Initialises once; returns at once when called again or recursively during init. */
void shim_init_slow(void)
{
    if (initialising)
        return;
    pthread_once(&init_once, shim_init);
}

/* Another library's constructor may call CUDA before this runs: every wrapper also initialises. */
__attribute__((constructor)) static void shim_constructor(void)
{
    shim_init_slow();
}

/* Writes the exit summary, closes the trace, and gives the crash signals back to the program. */
__attribute__((destructor)) static void shim_destructor(void)
{
    if (!atomic_load(&shim_ready))
        return;
    if (shim_auto)
        engine_shutdown();
    summary_at_exit();
    trace_close();
    crash_report_remove();
}
