/* SPDX-License-Identifier: MIT */
/* Where a thread's calls are cut into graph launches: a sync-free loop's growing batches, a slow host's segments. */
#ifndef REPRISE_CUTS_H
#define REPRISE_CUTS_H

#include <stdbool.h>
#include <stdint.h>

#include "signature.h"

/* A sync-free loop's first cuts are whole periods of about this many calls. */
#define CUTS_BASE_CALLS 64

/*
 * A stretch (a thread's calls between two boundaries, however many
 * sequences it was cut into) is looked at for a period once it holds this
 * many calls, not only once it outgrows REPRISE_MAX_REGION_CALLS: a
 * sync-free loop of 4-call iterations would otherwise run 2048 iterations
 * eagerly first.  Regions between syncs shorter than this are never cut;
 * longer ones that repeat are found out after two stretches (see
 * stretch_ended).
 */
#define CUTS_EARLY_CALLS (4 * CUTS_BASE_CALLS)

/*
 * Cuts of one size replayed in a row before the size twice as long is
 * learnt.  Its graph is built on the host while the GPU runs what was
 * launched: four cuts queued hold about twice the GPU work of the bigger
 * graph's nodes, so the build is hidden behind them.
 */
#define CUTS_GROW_AFTER 4

/* Samples of a pace in a row that must agree before it is called slow or fast: one descheduled host decides nothing. */
#define CUTS_PACE_SAMPLES 4

/* A region whose host is fast is timed at one occurrence in this many: a pace changes seldom, and its three
   clock readings need not be paid at every replay. */
#define CUTS_FAST_PACE_EVERY 8

/* Segments hold at least this many calls: a graph launch for fewer saves little over submitting them. */
#define CUTS_SEGMENT_MIN_CALLS 8

/* Lengths of recent stretches remembered, to tell a repeating region between syncs from a loop. */
#define CUTS_RECENT_STRETCHES 4

/* Regions launched in segments remembered per thread, by their first call. */
#define CUTS_SEGMENTED_MAX 4

/* Most segments of one region (REPRISE_MAX_SEGMENTS's upper bound). */
#define CUTS_SEGMENTS_MAX 64

/*
 * What one more graph launch costs however few nodes it has (overlap_pays), at most: the H200's shortest
 * launches of small graphs take 2.5-5 us (train_lt's 21 nodes: 6.5 us with 7 patched), where HF generate()'s
 * 382-464 nodes take 165-350 us to submit besides their patching (session 17): a launch's cost grows with its
 * nodes, which segments split between them.
 */
#define CUTS_LAUNCH_FIXED_NS 5000

/* How much sooner segments must end an occurrence (overlap_pays), in percent of it whole. */
#define CUTS_OVERLAP_GAIN_PERCENT 5

/* The bounds, from the REPRISE_* options. */
struct cut_bounds {
    unsigned min_calls;       /* shortest region (REPRISE_MIN_REGION_CALLS) */
    unsigned max_calls;       /* longest region (REPRISE_MAX_REGION_CALLS) */
    unsigned max_batch_calls; /* longest cut of a sync-free loop (REPRISE_MAX_BATCH_CALLS) */
    unsigned max_segments;    /* most segments a region is launched in (REPRISE_MAX_SEGMENTS; 1: never cut) */
};

/* How fast a host makes a region's calls, against the time a graph launch takes it. */
struct pace {
    uint8_t slow, fast; /* samples in a row of each kind */
    uint8_t overlap;    /* of the slow ones in a row, those only the GPU's wait made slow (overlap_pays) */
    uint32_t launch_ns; /* the shortest launch seen (0: none yet) */
    uint32_t submit_ns; /* the shortest launch seen less its patching: what each launch costs however few it patches */
};

enum pace_verdict {
    PACE_UNSURE, /* the last samples disagree */
    PACE_SLOW,   /* the host spends longer between two calls than on a graph launch, or its GPU waits (overlap_pays) */
    PACE_FAST,   /* it does not */
};

/*
 * Adds one occurrence: span_ns from its first call to its end (the host's
 * time between its calls, and the held-back calls themselves), `calls`
 * calls, launch_ns the graph launch at its end (patch_ns of it patching
 * nodes), wait_ns the host sync that followed it (0: none timed),
 * `segments` the segments it would be launched in.  The launch it is held
 * against is the shortest seen (and the shortest submission: a launch less
 * its patching): a launch that waited (a full launch queue, a lock) says
 * nothing of what launching costs.  Slow: the host is slow between calls,
 * or the GPU's wait says that segments would end sooner (overlap_pays).
 * Returns the verdict of the last CUTS_PACE_SAMPLES samples.
 */
enum pace_verdict pace_sample(struct pace *p, uint64_t span_ns, unsigned calls, uint64_t launch_ns,
                              uint64_t patch_ns, uint64_t wait_ns, unsigned segments);

/*
 * Whether launching an occurrence in `segments` segments ends it at least
 * CUTS_OVERLAP_GAIN_PERCENT sooner than launching it whole, on a model:
 * whole, the GPU starts its work (wait_ns, what the sync after the launch
 * waited) once the host's span_ns and the launch (patch_ns patching nodes,
 * submit_ns submitting the graph) are over; in segments it starts after
 * the first segment's share of those and a launch's fixed cost
 * (CUTS_LAUNCH_FIXED_NS at most), pays that cost again between two
 * segments, while the host makes the rest; the segments patch and submit
 * the same nodes between them, each paying the fixed cost, the host ending
 * with the last segment's share of the GPU's work left.
 */
bool overlap_pays(uint64_t span_ns, uint64_t patch_ns, uint64_t submit_ns, uint64_t wait_ns, unsigned segments);

/* The verdict of the samples so far. */
enum pace_verdict pace_verdict(const struct pace *p);

/* A thread's stretches: when a stretch is looked at for a period. */
struct stretch_memory {
    unsigned calls;     /* of the current stretch, in its sequences that have ended */
    bool cut;           /* the current stretch was cut at a period */
    unsigned feed_from; /* a stretch is looked at for a period from this many calls on; 0: CUTS_EARLY_CALLS */
    unsigned recent[CUTS_RECENT_STRETCHES]; /* the last stretches' lengths */
    unsigned next;
};

/* Whether a stretch holding `calls` calls is looked at for a period. */
static inline bool stretch_feeds(const struct stretch_memory *m, unsigned calls)
{
    return calls >= (m->feed_from ? m->feed_from : CUTS_EARLY_CALLS);
}

/*
 * Ends the current stretch, `calls` long.  A stretch that was cut at a
 * period and is as long as a recent one (and short enough to be a region)
 * is a region between syncs that repeats: from now on stretches are looked
 * at only beyond its length, so that it is learnt whole.  Returns true if
 * that moved the threshold.
 */
bool stretch_ended(struct stretch_memory *m, unsigned calls, const struct cut_bounds *b);

/* A sync-free loop's cuts: their sizes, and when the next size is learnt. */
struct batch_plan {
    unsigned period;  /* calls of one period; 0: no sync-free loop */
    unsigned base;    /* calls of a cut that follows no region: whole periods, about CUTS_BASE_CALLS */
    unsigned bound;   /* cuts grow while twice their length is at most this */
    unsigned region;  /* the region the last cuts replayed as (0: the last cut did not replay) */
    unsigned replays; /* cuts in a row that replayed as it */
    bool paired;      /* the first cut of a pair towards the next size has replayed */
    struct pace pace; /* of the loop's cuts */
};

/*
 * Whether a period the detector found has held long enough to cut at:
 * run calls in a row equalled the call one period before, at least
 * CUTS_BASE_CALLS of them.  Three periods of one call are three equal
 * calls, which a loop of nine launches of one kernel and one of another
 * also has: cut at a period of one, it would mismatch at every tenth call.
 */
bool batch_period_settled(unsigned period, uint64_t run);

/* Starts the cuts of a loop whose calls repeat every `period`. */
void batch_start(struct batch_plan *p, unsigned period, const struct cut_bounds *b);

/* Whether a cut of `calls` calls is whole periods within the loop's bound (a region of the loop's cuts). */
bool batch_fits(const struct batch_plan *p, unsigned calls);

/* Whether cuts of `calls` calls may still grow (twice as long fits the bound). */
bool batch_may_grow(const struct batch_plan *p, unsigned calls);

/* What the engine does after a cut. */
enum batch_step {
    BATCH_KEEP,        /* nothing */
    BATCH_SEEN_DOUBLE, /* the last two cuts are one sighting of the cut twice as long: count it */
};

/*
 * A cut ended: it replayed as a graph of region `region`, `calls` calls
 * long (replayed), or did not.  Once CUTS_GROW_AFTER cuts in a row replayed
 * as one region, and its host is not slow, every second cut asks for a
 * sighting of the region twice as long, which the engine learns (and
 * graphs from one cut twice); a cut that does not replay starts the count
 * again.
 */
enum batch_step batch_cut_done(struct batch_plan *p, unsigned region, unsigned calls, bool replayed);

/* Calls per segment for a region of `length` calls, or 0 if it is too short to cut into two whole segments. */
unsigned segment_calls(unsigned length, const struct cut_bounds *b);

/* A region launched in segments: its stretches are cut every `each` calls. */
struct segmented {
    uint64_t first;        /* the hash of its first call's signature */
    unsigned each;         /* calls per segment */
    unsigned region_calls; /* the whole region's length: its last segment may be shorter (segment_room) */
    uint64_t used;         /* the table's clock when last used */
    struct pace pace;      /* of its segments */
    bool overlap;          /* segmented for the GPU's wait (overlap_pays), not the host's gaps: kept while fast */
    /* The region each segment was last, by its place: segments may begin with the same call, and the most
       recently used region that does is not always the segment that comes next. */
    unsigned region_ids[CUTS_SEGMENTS_MAX];
};

struct segment_table {
    struct segmented entries[CUTS_SEGMENTED_MAX];
    unsigned count;
    uint64_t clock;
};

/* The entry of the region whose first call's signature hashes to first, or NULL. */
struct segmented *segments_find(struct segment_table *t, uint64_t first);

/* Adds (or renews) an entry, replacing the least recently used when full; returns it. */
struct segmented *segments_add(struct segment_table *t, uint64_t first, unsigned each, unsigned region_calls);

/* Removes an entry (pointers to entries are then stale). */
void segments_remove(struct segment_table *t, struct segmented *s);

/* Notes that the segment at index (its place in the region) was region id (0: none); ignored past the last place. */
void segments_note(struct segmented *s, unsigned index, unsigned id);

/* The region the segment at index was last, 0 if unknown. */
unsigned segments_region_at(const struct segmented *s, unsigned index);

/*
 * The most calls the segment that begins `done` calls into the stretch can
 * hold: a segment's, or what is left of the region there (its last segment
 * is shorter where the region is not a multiple of them; a longer region
 * that began with the same call would fall back at the sync).  A stretch
 * already past the region's length is not the region any more: a segment.
 */
unsigned segment_room(const struct segmented *s, unsigned done);

/* Everything a thread keeps about its cuts (one field of its tracker). */
struct cuts {
    unsigned at; /* the cut check's one compare: the sequence is looked at once it holds this many calls */
    struct stretch_memory stretches;
    struct batch_plan batches;
    struct segment_table segments;
    struct segmented *segmented; /* the current stretch's entry: cut every segmented->each calls; NULL: none */
    /* The occurrence being timed for a pace (the engine's). */
    struct pace *timed;          /* whose pace it adds to; NULL: none */
    uint64_t began_ns;
    enum pace_verdict verdict;   /* after its sample */
    double gap_us, launch_us, wait_us; /* its sample, for the log */
    /* A whole region's occurrence launched, its pace sample waiting for the sync after it (the engine's). */
    uint64_t pending_hash;       /* the region's hash; 0: none */
    uint64_t pending_span_ns, pending_launch_ns, launched_ns;
    uint64_t pending_patch_ns;   /* of its launch, patching */
    unsigned pending_patched;    /* nodes its launch patched (for the log) */
    /* The last graph launch's patching, which launch_replay leaves here. */
    uint64_t patch_ns;
    unsigned patched;
    bool pending_armed;          /* the sync is being timed: the sample is taken when it returns */
    /* The engine's room for a doubled cut: its signatures, and its calls (struct held_call, which is the shim's). */
    struct call_sig *doubled;
    unsigned doubled_capacity;
    void *doubled_calls;
    unsigned doubled_calls_capacity;
    /* The events of the first cut of a pair towards the doubled one, in its event calls' order (the engine's): the
       doubled cut's signatures say how the second cut's events relate to them (policy/event_refs.h). */
    uint64_t *pair_events;
    unsigned pair_event_count, pair_events_capacity;
};

#endif
