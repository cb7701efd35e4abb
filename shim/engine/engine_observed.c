/* SPDX-License-Identifier: MIT */
/* The signatures of a thread's calls since its sequence began: written out only where they leave the followed region. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "engine_observed.h"

/* Makes room for n observed signatures; false (and overflow) if it cannot. */
static bool observed_reserve(struct tracker *t, unsigned n)
{
    while (n > t->observed_capacity) {
        unsigned capacity = t->observed_capacity ? t->observed_capacity * 2 : 256;
        if (capacity > engine_policy.max_calls + 1)
            capacity = engine_policy.max_calls + 1;
        struct call_sig *grown =
            capacity > t->observed_capacity ? realloc(t->observed, sizeof *grown * capacity) : NULL;
        if (grown == NULL) {
            t->overflow = true;
            return false;
        }
        t->observed = grown;
        t->observed_capacity = capacity;
    }
    return true;
}

/* Writes out the signatures counted while they matched the followed region. */
void materialize_observed(struct tracker *t)
{
    if (t->observed_stored == t->observed_count || t->region == NULL)
        return;
    if (observed_reserve(t, t->observed_count))
        memcpy(t->observed + t->observed_stored, t->region->sigs + t->observed_stored,
               sizeof *t->observed * (t->observed_count - t->observed_stored));
    t->observed_stored = t->observed_count;
}

/* Appends a signature to the sequence being observed. */
void observe_sig(struct tracker *t, const struct call_sig *sig)
{
    materialize_observed(t);
    if (t->overflow || !observed_reserve(t, t->observed_count + 1))
        return;
    t->observed[t->observed_count++] = *sig;
    t->observed_stored = t->observed_count;
}
