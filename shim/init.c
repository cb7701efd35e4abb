/* Initialisation and shutdown: options, log, trace, exit summary. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "engine.h"
#include "hidden_work.h"
#include "log.h"
#include "shim.h"
#include "summary.h"
#include "trace.h"

extern char **environ;

atomic_bool shim_ready;

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
/* Set while this thread initialises: a hooked call made during init (from a
   constructor that runs inside ours, say) passes straight through instead of
   waiting on pthread_once, which would deadlock. */
static __thread bool initialising;

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
    log_setup((enum log_level)shim_options.num[OPT_LOG], shim_options.text[OPT_LOG_FILE]);
    report_option_problems(&problems);
    trace_setup(shim_options.text[OPT_TRACE]);

    char text[2048];
    options_format(&shim_options, text, sizeof text);
    log_info("reprise %s in %s: config %s", PACKAGE_VERSION, program_invocation_short_name, text);
    options_format_json(&shim_options, text, sizeof text);
    trace_event("config", "\"version\":\"%s\",\"program\":\"%s\",\"options\":%s", PACKAGE_VERSION,
                program_invocation_short_name, text);

    shim_observing = shim_options.num[OPT_MODE] != MODE_OFF;
    shim_auto = shim_options.num[OPT_MODE] == MODE_AUTO;
    /* Counting costs an atomic add or two a call: in auto mode, only when someone will read the counts. */
    shim_counting = shim_options.num[OPT_MODE] == MODE_OBSERVE ||
                    (shim_auto && (shim_options.num[OPT_STATS] || shim_options.text[OPT_TRACE][0]));
    if (shim_auto) {
        engine_set_unseen_work_probe(hidden_work_possible);
        engine_configure();
    }
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

/* Writes the exit summary and closes the trace. */
__attribute__((destructor)) static void shim_destructor(void)
{
    if (!atomic_load(&shim_ready))
        return;
    if (shim_auto)
        engine_shutdown();
    summary_at_exit();
    trace_close();
}
