/* SPDX-License-Identifier: MIT */
/* Why nothing repeats: each thread's sequences compared with their neighbours, gathered for the exit summary. */
#include "config.h"

#include <limits.h>

#include "call_words.h"
#include "engine_neighbours.h"
#include "log.h"

/* The debug log's account of every call where seen differs from its neighbour (the first NEIGHBOURS_EXPLAINED). */
static void explain_differences(const struct region *seen, const struct neighbour_differences *diffs)
{
    log_debug("region %u (%u calls) differs from the sequence before it that began with the same call at %u of its "
              "calls%s", seen->id, seen->length, diffs->total, diffs->total > diffs->count ? "; the first:" : ":");
    for (unsigned i = 0; i < diffs->count; i++) {
        struct difference_words words;
        char line[2 * NEIGHBOURS_WORD_LEN + 320];
        difference_in_words(&diffs->at[i], &words);
        describe_difference(&diffs->at[i], &words, line, sizeof line);
        log_debug("region %u:   %s", seen->id, line);
    }
}

/* At the end of a sequence that ran eagerly, a sighting of seen: compared with its neighbour (O(its length)). */
void note_neighbours(struct tracker *t, const struct region *seen)
{
    struct no_repeat *summary = &t->neighbours.summary;
    unsigned sightings = seen->stats.sightings < UINT_MAX ? (unsigned)seen->stats.sightings : UINT_MAX;
    bool found = neighbours_sequence(&t->neighbours, seen->sigs, seen->length, seen->hash, sightings ? sightings : 1);
    if (t->neighbours.explained.count > 0)
        explain_differences(seen, &t->neighbours.explained);
    if (!found)
        return;
    /* Named now, while its kernels and streams live: at exit they may be gone. */
    summary->thread = t->thread_number;
    difference_in_words(&summary->difference, &summary->words);
    if (log_enabled(LOG_DEBUG) && t->neighbours.explained.count == 0) { /* else said call by call above */
        char line[2 * NEIGHBOURS_WORD_LEN + 320];
        describe_difference(&summary->difference, &summary->words, line, sizeof line);
        log_debug("region %u differs from the sequence before it that began with the same call, first at %s", seen->id,
                  line);
    }
}

/* Why nothing was graphed: true if no thread built a graph, every thread's neighbouring sequences into out. */
bool engine_no_repeat(struct no_repeat *out)
{
    bool built = false;
    *out = (struct no_repeat){0};
    pthread_mutex_lock(&trackers_lock);
    for (struct tracker *t = trackers; t; t = t->next) {
        struct region *r, *tmp;
        HASH_ITER(hh, t->table.by_hash, r, tmp)
            built |= r->stats.builds > 0;
        no_repeat_merge(out, &t->neighbours.summary);
    }
    pthread_mutex_unlock(&trackers_lock);
    return !built;
}
