/* What kind of program this was, from what observe mode counted. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include "verdict.h"

/* At least this many launches between host syncs make a region worth graphing. */
#define LAUNCHES_PER_SYNC_WORTH_GRAPHING 8
/* More launches than this with no host sync in between is a sync-free loop. */
#define SYNC_FREE_LAUNCHES 1000

/* The plural noun for an activity, for summaries ("launches"). */
const char *activity_name(enum activity act)
{
    static const char *const names[ACT_COUNT] = {
        [ACT_LAUNCH] = "launches",        [ACT_HOST_FUNC] = "host_funcs",  [ACT_COPY] = "copies",
        [ACT_SET] = "sets",               [ACT_EVENT_RECORD] = "records",  [ACT_EVENT_WAIT] = "waits",
        [ACT_SYNC] = "syncs",             [ACT_QUERY] = "queries",         [ACT_ALLOC] = "allocs",
        [ACT_FREE] = "frees",             [ACT_CAPTURE] = "captures",      [ACT_GRAPH_LAUNCH] = "graph_launches",
    };
    return (unsigned)act < ACT_COUNT ? names[act] : "unknown";
}

/* Appends one sentence to the verdict. */
static void __attribute__((format(printf, 2, 3))) say(struct verdict *out, const char *fmt, ...)
{
    if (out->count >= VERDICT_LINES_MAX)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->line[out->count++], VERDICT_LINE_LEN, fmt, ap);
    va_end(ap);
}

/* Describes the program from its profile. */
void describe_program(const struct program_profile *profile, struct verdict *out)
{
    const unsigned long long *n = profile->total.n;
    out->count = 0;
    if (profile->calls == 0 && profile->foreign_calls == 0) {
        say(out, "no CUDA calls were seen: the program does not use CUDA, or reaches it some way the shim cannot "
                 "see");
        return;
    }
    if (profile->calls == 0)
        say(out, "no CUDA runtime calls were seen, only the driver API's (%llu calls): the program links the "
                 "runtime statically (nvcc's default) or calls the driver itself (CuPy, Triton); its launches, "
                 "copies and sets are followed and graphed as runtime calls are",
            profile->foreign_calls);
    if (n[ACT_LAUNCH] == 0) {
        say(out, "no kernel launches were seen");
    } else if (n[ACT_SYNC] <= 1 && n[ACT_LAUNCH] >= SYNC_FREE_LAUNCHES) {
        say(out, "sync-free: %llu launches with %llu host sync; repeated work can only be found by its period",
            n[ACT_LAUNCH], n[ACT_SYNC]);
    } else {
        double per_sync = (double)n[ACT_LAUNCH] / (double)(n[ACT_SYNC] ? n[ACT_SYNC] : 1);
        if (per_sync >= LAUNCHES_PER_SYNC_WORTH_GRAPHING)
            say(out, "launch-bound and sync-delimited: %.1f launches per host sync (%llu launches, %llu syncs); "
                     "a good candidate for graphs",
                per_sync, n[ACT_LAUNCH], n[ACT_SYNC]);
        else
            say(out, "sync-heavy: %.1f launches per host sync (%llu launches, %llu syncs); regions this short "
                     "gain little from graphs",
                per_sync, n[ACT_LAUNCH], n[ACT_SYNC]);
    }
    if (profile->foreign_calls && profile->calls)
        say(out, "libraries call the driver API directly (%llu calls, cuBLAS-style): their launches, copies and "
                 "sets are graphed with the program's own, their other calls end a region",
            profile->foreign_calls);
    if (profile->allocs_after_first_launch)
        say(out, "allocates between launches (%llu allocations after the first launch): a region holding an "
                 "allocation cannot be graphed",
            profile->allocs_after_first_launch);
    if (n[ACT_GRAPH_LAUNCH] || n[ACT_CAPTURE])
        say(out, "uses CUDA graphs itself (%llu graph launches, %llu capture calls): reprise steps aside for them",
            n[ACT_GRAPH_LAUNCH], n[ACT_CAPTURE]);
    if (n[ACT_QUERY])
        say(out, "polls for completion (%llu stream or event queries)", n[ACT_QUERY]);
    if (profile->streams > 1)
        say(out, "uses %u streams", profile->streams);
}
