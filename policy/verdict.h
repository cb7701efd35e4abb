/* What kind of program this was, from what observe mode counted. */
#ifndef REPRISE_VERDICT_H
#define REPRISE_VERDICT_H

#include <stddef.h>

#include "activity.h"

/* The whole program's counts, as the exit summary sees them. */
struct program_profile {
    struct activity_counts total;
    unsigned long long calls;                     /* every intercepted call */
    unsigned long long allocs_after_first_launch; /* allocations once work had started */
    unsigned streams;                             /* streams that carried work */
    unsigned long long foreign_calls;             /* driver calls not made by the runtime (libraries' own) */
};

#define VERDICT_LINES_MAX 6
#define VERDICT_LINE_LEN 256

/* Sentences describing the program, most important first. */
struct verdict {
    unsigned count;
    char line[VERDICT_LINES_MAX][VERDICT_LINE_LEN];
};

/* Describes the program from its profile. */
void describe_program(const struct program_profile *profile, struct verdict *out);

#endif
