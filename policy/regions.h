/* SPDX-License-Identifier: MIT */
/* Known regions: sequences of calls seen between boundaries, and what to do with each. */
#ifndef REPRISE_REGIONS_H
#define REPRISE_REGIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <uthash.h>

#include "cuts.h"
#include "payoff.h"
#include "signature.h"

/* Where a region stands. */
enum region_state {
    REGION_LEARNING, /* seen fewer than min_repeats times */
    REGION_WANTED,   /* stable: record its next occurrence and build a graph */
    REGION_GRAPHED,  /* has an executable graph: replay it */
    REGION_BACKOFF,  /* failed; waits for stable sightings before it is replayed again */
};

/*
 * Deferral timeouts in a row (no successful replay between them) from
 * which a region's back-off is long and grows with each: the first may be
 * a host descheduled at the wrong moment, the second says the program
 * waits for the GPU without a CUDA call or pauses its host (a library
 * building a plan at a new size), which a program that polls memory does
 * every time and a warming-up one stops doing.  See regions_backoff_needed.
 */
#define REGIONS_TIMEOUTS_MAX 2

/* Why a replay or recording was abandoned and its calls passed through. */
enum fallback_reason {
    FALLBACK_MISMATCH,      /* a call differed from the graph's */
    FALLBACK_ENDED_EARLY,   /* the region ended before the graph did */
    FALLBACK_SYNC_INSIDE,   /* a query or sync of a stream or event in the region */
    FALLBACK_ALLOCATION,    /* cudaMalloc, cudaFree or similar inside the region */
    FALLBACK_HIDDEN_WORK,   /* work the shim cannot see appeared on the region's streams */
    FALLBACK_PROGRAM_GRAPH, /* the program's own capture or graph launch */
    FALLBACK_GRAPH_ERROR,   /* building, updating or launching the graph failed */
    FALLBACK_UNSUPPORTED,   /* a shape graphs cannot keep: too many streams, an uncapturable stream on the robust path */
    FALLBACK_THREAD,        /* another thread made a call while this one held work back */
    FALLBACK_EXCLUDED,      /* it launches a kernel REPRISE_EXCLUDE_KERNELS names */
    FALLBACK_PROFILER,      /* a profiler is attached and REPRISE_PROFILER says step aside */
    FALLBACK_NOT_PAYING,    /* its trial found its graph no faster than passing through */
    FALLBACK_DEFERRAL_TIMEOUT, /* held-back work waited REPRISE_DEFERRAL_TIMEOUT_US with no new call: submitted */
    FALLBACK_OBJECT_ENDED,  /* a module, library, context, stream or event its calls use was about to end */
    FALLBACK_REASON_COUNT
};

/* The choices that govern regions (from the REPRISE_* options). */
struct region_policy {
    unsigned min_repeats; /* identical sightings before a region is graphed */
    unsigned min_calls;   /* shorter regions are not worth a graph */
    unsigned max_calls;   /* longer regions are not tracked */
    unsigned max_graphs;  /* executable graphs kept at once */
    unsigned max_regions; /* regions remembered at once */
    unsigned trial_pairs; /* timed pairs of occurrences before a region keeps its graph (0: keep it unmeasured) */
};

/* Counts kept per region for the log, the trace and the exit summary. */
struct region_stats {
    unsigned long long sightings;     /* times seen complete: passed through, replayed or re-captured */
    unsigned long long replays;       /* times replayed as a graph */
    unsigned long long recaptures;    /* of those, re-captured on the robust path */
    unsigned long long calls_saved;   /* calls not submitted individually */
    unsigned long long args_patched;  /* nodes whose arguments were patched */
    unsigned long long unpatched;     /* fast-path replays that patched no node */
    unsigned long long instances;     /* executable instances made: one per graph built, more for recurring argument sets */
    unsigned long long builds;        /* graphs built */
    unsigned long long evictions;     /* graphs evicted */
    unsigned long long evicted_unreplayed; /* of those, evicted before their first replay */
    unsigned long long graphs_replayed; /* graphs built that were replayed at least once */
    unsigned long long crowded;       /* sightings that would have wanted a graph, refused as crowded out */
    unsigned long long invalidations; /* graphs destroyed because something their calls use ended */
    unsigned long long handovers;     /* occurrences that ended where another thread's call took over a stream */
    unsigned long long fallbacks[FALLBACK_REASON_COUNT];
};

/* One region. */
struct region {
    unsigned id;
    uint64_t hash;
    unsigned length;
    struct call_sig *sigs;
    enum region_state state;
    unsigned stable;       /* sightings since it was created or last failed */
    unsigned failures;     /* failures since it last replayed successfully */
    unsigned timeouts;     /* deferral timeouts since it last replayed successfully */
    uint64_t last_used;    /* the table's clock when last seen or replayed */
    void *graph;           /* the shim's executable graph, or NULL */
    unsigned long long replays_at_build; /* stats.replays when its graph was built: evicted unreplayed if still so */
    unsigned recordings;   /* occurrences recorded whole: REPRISE_RECORDINGS of them build its graph */
    bool robust;           /* graph is a robust-path one (re-captured each time), not a fast-path one */
    bool needs_robust;     /* work the shim does not hold back (driver-API calls) was seen inside it */
    bool crowded;          /* its last sighting would have wanted a graph, but it was crowded out (regions.c) */
    unsigned crowded_by;   /* then: how many other regions' graphs ran between its last two sightings */
    uint64_t next_hash;    /* the hash of the region seen right after it last time (0: none) */
    struct payoff_trial trial; /* whether its graph is faster than passing it through */
    struct pace pace;      /* how fast its host makes its calls: a slow one's region is launched in segments */
    struct region_stats stats;
    UT_hash_handle hh;
};

/* Pairs of regions in a row whose successor a table remembers (regions_predicted). */
#define REGIONS_PAIRS 256

/* All regions of one detector. */
struct region_table {
    struct region_policy policy;
    struct region *by_hash;
    unsigned count;
    unsigned graphs;
    unsigned next_id;
    uint64_t clock;
    uint64_t last_hash;  /* the hash of the region seen last (0: the last sequence was none) */
    uint64_t prev_hash;  /* the hash of the region seen before it (0: none) */
    /* What came after each pair of regions seen in a row: a small table, a pair's slot overwritten by another's. */
    struct region_pair_next {
        uint64_t pair; /* regions.c's pair_key of the two; 0: free */
        uint64_t next; /* the hash of the region that came after them last time */
    } after_pair[REGIONS_PAIRS];
};

/* An empty table with the given policy. */
void regions_init(struct region_table *t, const struct region_policy *policy);

/* Frees every region (the caller has destroyed their graphs). */
void regions_fini(struct region_table *t);

/*
 * Records a complete sighting of n calls passed through.  Returns the
 * region (NULL if n is outside the policy's bounds or memory ran out); when
 * it has just become stable its state is REGION_WANTED, unless it is
 * crowded out of the graphs kept (r->crowded: every one of max_graphs
 * graphs ran since its previous sighting, so that its own would be evicted
 * before it came back); it is then weighed again at its next sighting.
 */
struct region *regions_sighting(struct region_table *t, const struct call_sig *sigs, unsigned n);

/*
 * Records a complete sighting of exactly r's calls (a sequence that matched
 * r call by call): what regions_sighting(t, r->sigs, r->length) does,
 * without hashing and comparing them again.  Returns r.
 */
struct region *regions_sighting_of(struct region_table *t, struct region *r);

/* The region of hash h in t, or NULL (0 is no region's). */
struct region *regions_of_hash(const struct region_table *t, uint64_t h);

/*
 * The region to follow given the first n calls of a new sequence: one that
 * is GRAPHED or WANTED and begins with exactly these calls, the most
 * recently used first.  NULL if none.
 */
struct region *regions_candidate(struct region_table *t, const struct call_sig *observed, unsigned n);

/*
 * The region to follow from a new sequence's first call sig: the region
 * that came after the region seen last, the last time that one was seen,
 * if it begins with sig and is GRAPHED or WANTED; NULL if it is backed
 * off or crowded out (it is not to be followed, and another
 * region that begins alike is not it); else regions_candidate's (a region
 * still being learnt may be another's calls, which that one's kernel nodes
 * take: engine_call.c's launch_takes_node).
 * Regions that begin alike and come in turn (a decode loop's tokens, each
 * its own sequence) are each predicted right, where the one used last is
 * always the wrong one.
 */
struct region *regions_predicted(struct region_table *t, const struct call_sig *sig);

/* Notes that the sequence just ended is no region (too short or long, or not kept): nothing predicts what follows. */
void regions_none_seen(struct region_table *t);

/*
 * Whether region r, recorded whole and about to get its graph (at the end
 * of an occurrence, before its sighting is counted), is crowded out now:
 * every one of the max_graphs graphs kept ran since its previous
 * occurrence (regions_sighting's rule, weighed again: the graphs built
 * since it was wanted may have filled the table).  Then it has no graph
 * built, and is learnt again from scratch (LEARNING, its recordings
 * forgotten); r->crowded and r->crowded_by say so.
 */
bool regions_crowded_at_build(struct region_table *t, struct region *r);

/*
 * Marks r as having a graph.  If that makes more graphs than the policy
 * allows, returns the least recently used other graphed region, which the
 * caller must destroy the graph of and pass to regions_evicted().
 */
struct region *regions_graph_built(struct region_table *t, struct region *r, void *graph);

/* Counts one more executable instance of r's graph (for a recurring argument set). */
void regions_instance_made(struct region *r);

/* Counts an occurrence of r that ended where another host thread's call took over one of its streams. */
void regions_handed_over(struct region *r);

/* Forgets an evicted region's graph; it must be learnt again. */
void regions_evicted(struct region_table *t, struct region *r);

/*
 * Records a successful replay of r, which saved r->length calls and patched
 * `patched` nodes.  While r's trial runs, a replay is not yet a success:
 * failures (and so the back-off) keep growing until a trial finds that
 * the graph pays.
 */
void regions_replayed(struct region_table *t, struct region *r, unsigned patched);

/*
 * Records a replay of r on the robust path: its calls were captured, not
 * held back, so none count as saved.  Failures as for regions_replayed.
 */
void regions_recaptured(struct region_table *t, struct region *r);

/* Forgets r's graph without forgetting r: it is WANTED, to be graphed again (on another path). */
void regions_graph_dropped(struct region_table *t, struct region *r);

/* Forgets r's graph because something its calls use ended (a module unloaded, a stream destroyed); it is learnt again. */
void regions_graph_invalidated(struct region_table *t, struct region *r);

/* What of a region's calls can end under it. */
enum region_ref {
    REGION_REF_STREAM, /* the streams its calls are on */
    REGION_REF_TARGET, /* what they run or record: kernels (as launches name them), events, host functions */
};

/* Whether any of r's calls refers, as ref says, to one of the n values, sorted in ascending order. */
bool region_refers_to(const struct region *r, enum region_ref ref, const uint64_t *sorted, unsigned n);

/*
 * Records a failure of r; it backs off (longer each time it keeps
 * failing).  Returns true if that put r in a timeout back-off (its
 * deferral timeouts in a row reached REGIONS_TIMEOUTS_MAX), so the caller
 * can say so.
 */
bool regions_failed(struct region_table *t, struct region *r, enum fallback_reason reason);

/* Stable sightings a region in back-off needs before it is replayed again. */
unsigned regions_backoff_needed(const struct region_table *t, const struct region *r);

/* The name of a fallback reason, for logs ("mismatch"). */
const char *fallback_reason_name(enum fallback_reason reason);

/* The name of a state, for logs. */
const char *region_state_name(enum region_state state);

#endif
