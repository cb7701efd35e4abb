/* SPDX-License-Identifier: MIT */
/* Known regions: sequences of calls seen between boundaries, and what to do with each. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "regions.h"

/* Back-off doubles with each failure in a row, up to this many doublings. */
#define BACKOFF_MAX_SHIFT 6

/*
 * A timeout back-off's first length in sightings, and its most doublings:
 * a program that polls memory every occurrence pays a deferral bound at
 * sightings 16, 48, 112, ... (about log2(N / 16) bounds in N occurrences,
 * then one every 65536), while a region whose host paused only while it
 * warmed up is graphed again 16 sightings later.
 */
#define TIMEOUT_BACKOFF_BASE 16
#define TIMEOUT_BACKOFF_MAX_SHIFT 12

/* The hash of a whole sequence of calls. */
static uint64_t sequence_hash(const struct call_sig *sigs, unsigned n)
{
    uint64_t h = n;
    for (unsigned i = 0; i < n; i++)
        h = sig_hash_extend(h, sig_hash(&sigs[i]));
    return h;
}

/* An empty table with the given policy. */
void regions_init(struct region_table *t, const struct region_policy *policy)
{
    memset(t, 0, sizeof *t);
    t->policy = *policy;
    if (t->policy.min_repeats == 0)
        t->policy.min_repeats = 1;
    t->next_id = 1;
}

/* Frees one region. */
static void region_free(struct region_table *t, struct region *r)
{
    HASH_DEL(t->by_hash, r);
    t->count--;
    payoff_fini(&r->trial);
    free(r->sigs);
    free(r);
}

/* Frees every region (the caller has destroyed their graphs). */
void regions_fini(struct region_table *t)
{
    struct region *r, *tmp;
    HASH_ITER(hh, t->by_hash, r, tmp)
        region_free(t, r);
}

/* Whether region r holds exactly these calls. */
static bool region_is(const struct region *r, const struct call_sig *sigs, unsigned n)
{
    if (r->length != n)
        return false;
    for (unsigned i = 0; i < n; i++)
        if (!sig_equal(&r->sigs[i], &sigs[i]))
            return false;
    return true;
}

/*
 * Drops the least recently used region without a graph, to make room; one in
 * a timeout back-off is kept (learnt again, it would time out again at once).
 */
static void forget_one(struct region_table *t)
{
    struct region *r, *tmp, *oldest = NULL;
    HASH_ITER(hh, t->by_hash, r, tmp)
        if (r->graph == NULL && r->timeouts < REGIONS_TIMEOUTS_MAX &&
            (oldest == NULL || r->last_used < oldest->last_used))
            oldest = r;
    if (oldest)
        region_free(t, oldest);
}

/* Stable sightings a region in back-off needs before it is replayed again. */
unsigned regions_backoff_needed(const struct region_table *t, const struct region *r)
{
    unsigned shift = r->failures > 0 ? r->failures - 1 : 0;
    if (shift > BACKOFF_MAX_SHIFT)
        shift = BACKOFF_MAX_SHIFT;
    unsigned needed = t->policy.min_repeats << shift;
    if (r->timeouts >= REGIONS_TIMEOUTS_MAX) {
        unsigned doublings = r->timeouts - REGIONS_TIMEOUTS_MAX;
        unsigned timed = TIMEOUT_BACKOFF_BASE << (doublings > TIMEOUT_BACKOFF_MAX_SHIFT ? TIMEOUT_BACKOFF_MAX_SHIFT
                                                                                         : doublings);
        if (timed > needed)
            needed = timed;
    }
    return needed;
}

/* Records a complete sighting of n calls passed through; returns the region or NULL (nothing then predicts what follows). */
struct region *regions_sighting(struct region_table *t, const struct call_sig *sigs, unsigned n)
{
    if (n < t->policy.min_calls || n > t->policy.max_calls || n == 0)
        return regions_none_seen(t), NULL;
    uint64_t h = sequence_hash(sigs, n);
    struct region *r;
    HASH_FIND(hh, t->by_hash, &h, sizeof h, r);
    /* Two different sequences with one 64-bit hash: the newcomer is not
       tracked.  Only a missed chance; replays match call by call. */
    if (r && !region_is(r, sigs, n))
        return regions_none_seen(t), NULL;
    if (r == NULL) {
        if (t->policy.max_regions && t->count >= t->policy.max_regions)
            forget_one(t);
        r = calloc(1, sizeof *r);
        if (r == NULL)
            return regions_none_seen(t), NULL;
        r->sigs = malloc(sizeof *sigs * n);
        if (r->sigs == NULL) {
            free(r);
            return regions_none_seen(t), NULL;
        }
        memcpy(r->sigs, sigs, sizeof *sigs * n);
        r->length = n;
        r->hash = h;
        r->id = t->next_id++;
        r->state = REGION_LEARNING;
        HASH_ADD(hh, t->by_hash, hash, sizeof r->hash, r);
        t->count++;
    }
    return regions_sighting_of(t, r);
}

/*
 * How many regions other than r have a graph that ran (was built, replayed
 * or seen) after the table's clock was at since.
 */
static unsigned graphs_used_since(const struct region_table *t, const struct region *r, uint64_t since)
{
    unsigned n = 0;
    const struct region *other, *tmp;
    HASH_ITER(hh, t->by_hash, other, tmp)
        n += other != r && other->graph != NULL && other->last_used > since;
    return n;
}

/*
 * Whether region r, without a graph and seen last at clock previous, is
 * crowded out of the graphs kept: every one of the max_graphs graphs ran
 * between its last two sightings, so that a graph built for it would evict
 * one in use and be evicted itself before r came back, as when each token
 * of a decode loop is a sequence of its own that recurs only in the next
 * generate() call.  Its graph would cost a build (and evict another) and
 * never be replayed.  Sets r->crowded_by.  Only a full table is scanned.
 */
static bool crowded_out(const struct region_table *t, struct region *r, uint64_t previous)
{
    if (t->policy.max_graphs == 0 || r->graph != NULL || previous == 0 || t->graphs < t->policy.max_graphs)
        return false;
    r->crowded_by = graphs_used_since(t, r, previous);
    return r->crowded_by >= t->policy.max_graphs;
}

/* The region of hash h in t, or NULL. */
struct region *regions_of_hash(const struct region_table *t, uint64_t h)
{
    struct region *r = NULL;
    if (h != 0)
        HASH_FIND(hh, t->by_hash, &h, sizeof h, r);
    return r;
}

/* Whether r, recorded and about to get its graph, is crowded out now: then it is learnt again from scratch. */
bool regions_crowded_at_build(struct region_table *t, struct region *r)
{
    r->crowded = crowded_out(t, r, r->last_used);
    if (!r->crowded)
        return false;
    r->stats.crowded++;
    r->state = REGION_LEARNING;
    r->stable = 0;
    r->recordings = 0;
    return true;
}

/* The key of two regions seen in a row (hashes, never 0), or 0 if either is none. */
static uint64_t pair_key(uint64_t first, uint64_t second)
{
    if (first == 0 || second == 0)
        return 0;
    uint64_t k = (first ^ (second * 0x9e3779b97f4a7c15ULL)) * 0xff51afd7ed558ccdULL;
    k ^= k >> 31;
    return k ? k : 1;
}

/* The slot of a pair's successor in the table. */
static struct region_pair_next *pair_slot(struct region_table *t, uint64_t key)
{
    return &t->after_pair[key % REGIONS_PAIRS];
}

/* Records a complete sighting of exactly r's calls; returns r. */
struct region *regions_sighting_of(struct region_table *t, struct region *r)
{
    struct region *before = regions_of_hash(t, t->last_hash);
    if (before)
        before->next_hash = r->hash;
    uint64_t key = pair_key(t->prev_hash, t->last_hash);
    if (key)
        *pair_slot(t, key) = (struct region_pair_next){key, r->hash};
    t->prev_hash = t->last_hash;
    t->last_hash = r->hash;
    uint64_t previous = r->last_used;
    r->last_used = ++t->clock;
    r->stats.sightings++;
    r->stable++;
    bool learnt = r->state == REGION_LEARNING && r->stable >= t->policy.min_repeats;
    bool backed_off = r->state == REGION_BACKOFF && r->stable >= regions_backoff_needed(t, r);
    bool weighed = learnt || (backed_off && r->graph == NULL);
    if (weighed)
        r->crowded = crowded_out(t, r, previous); /* else it stays as the last weighing found */
    if (weighed && r->crowded)
        r->stats.crowded++; /* it stays as it is, and is weighed again at its next sighting */
    else if (learnt)
        r->state = REGION_WANTED;
    else if (backed_off)
        r->state = r->graph ? REGION_GRAPHED : REGION_WANTED;
    return r;
}

/*
 * The region that came after the last one seen: after the last two, where
 * they were seen in a row before (a decode loop whose tokens alternate with
 * a short region, T0 S T1 S T2: after S, the T that came after the T before
 * it and S), else after the last alone.
 */
static struct region *region_coming(struct region_table *t)
{
    uint64_t key = pair_key(t->prev_hash, t->last_hash);
    const struct region_pair_next *p = key ? pair_slot(t, key) : NULL;
    struct region *next = p && p->pair == key ? regions_of_hash(t, p->next) : NULL;
    if (next)
        return next;
    const struct region *last = regions_of_hash(t, t->last_hash);
    return last ? regions_of_hash(t, last->next_hash) : NULL;
}

/* The region to follow from a new sequence's first call sig: the one that came after the last, else the candidate. */
struct region *regions_predicted(struct region_table *t, const struct call_sig *sig)
{
    struct region *next = region_coming(t);
    if (next && sig_equal(&next->sigs[0], sig)) {
        if (next->state == REGION_GRAPHED || next->state == REGION_WANTED)
            return next;
        if (next->state != REGION_LEARNING || next->crowded)
            return NULL; /* the region coming is not to be followed: another that begins alike is not it */
    }
    return regions_candidate(t, sig, 1); /* one still being learnt may be another's calls (a kernel node takes) */
}

/* Notes that the sequence just ended is no region. */
void regions_none_seen(struct region_table *t)
{
    t->prev_hash = t->last_hash = 0;
}

/* A GRAPHED or WANTED region beginning with the n observed calls, most recently used first. */
struct region *regions_candidate(struct region_table *t, const struct call_sig *observed, unsigned n)
{
    struct region *r, *tmp, *best = NULL;
    HASH_ITER(hh, t->by_hash, r, tmp) {
        if ((r->state != REGION_GRAPHED && r->state != REGION_WANTED) || r->length < n)
            continue;
        if (best && r->last_used < best->last_used)
            continue;
        bool same = true;
        for (unsigned i = 0; i < n && same; i++)
            same = sig_equal(&r->sigs[i], &observed[i]);
        if (same)
            best = r;
    }
    return best;
}

/* Marks r as having a graph; returns a region to evict if there are now too many. */
struct region *regions_graph_built(struct region_table *t, struct region *r, void *graph)
{
    if (r->graph == NULL)
        t->graphs++;
    r->graph = graph;
    r->state = REGION_GRAPHED;
    r->stats.builds++;
    r->stats.instances++;
    r->replays_at_build = r->stats.replays;
    r->last_used = ++t->clock;
    if (t->policy.max_graphs == 0 || t->graphs <= t->policy.max_graphs)
        return NULL;
    struct region *other, *tmp, *victim = NULL;
    HASH_ITER(hh, t->by_hash, other, tmp)
        if (other != r && other->graph && (victim == NULL || other->last_used < victim->last_used))
            victim = other;
    return victim;
}

/* Forgets r's graph, if it has one, and counts it out. */
static void forget_graph(struct region_table *t, struct region *r)
{
    if (r->graph) {
        r->graph = NULL;
        t->graphs--;
    }
}

/* Forgets an evicted region's graph; it must be learnt again. */
void regions_evicted(struct region_table *t, struct region *r)
{
    if (r->graph && r->stats.replays == r->replays_at_build)
        r->stats.evicted_unreplayed++;
    forget_graph(t, r);
    r->stats.evictions++;
    r->state = REGION_LEARNING;
    r->stable = 0;
}

/* Counts a replay of r, either path; it clears r's failures unless r is on trial. */
static void count_replay(struct region_table *t, struct region *r)
{
    r->last_used = ++t->clock;
    if (payoff_next(&r->trial) == PAYOFF_NONE) {
        r->failures = 0;
        r->timeouts = 0;
    }
    if (r->graph && r->stats.replays == r->replays_at_build)
        r->stats.graphs_replayed++;
    r->stats.replays++;
}

/* Records a successful replay of r; it clears r's failures unless r is on trial. */
void regions_replayed(struct region_table *t, struct region *r, unsigned patched)
{
    count_replay(t, r);
    r->stats.calls_saved += r->length;
    r->stats.args_patched += patched;
    r->stats.unpatched += patched == 0;
}

/* Counts one more executable instance of r's graph (for a recurring argument set). */
void regions_instance_made(struct region *r)
{
    r->stats.instances++;
}

/* Counts an occurrence of r that ended where another host thread's call took over one of its streams. */
void regions_handed_over(struct region *r)
{
    r->stats.handovers++;
}

/* Records a replay of r on the robust path; it clears r's failures unless r is on trial. */
void regions_recaptured(struct region_table *t, struct region *r)
{
    count_replay(t, r);
    r->stats.recaptures++;
}

/* Forgets r's graph; r stays known and is graphed again from its next occurrence. */
void regions_graph_dropped(struct region_table *t, struct region *r)
{
    forget_graph(t, r);
    r->state = REGION_WANTED;
}

/* Forgets r's graph because something its calls use ended; it must be learnt again. */
void regions_graph_invalidated(struct region_table *t, struct region *r)
{
    if (r->graph)
        r->stats.invalidations++;
    forget_graph(t, r);
    r->state = REGION_LEARNING;
    r->stable = 0;
}

/* Whether value is among the n sorted values. */
static bool among(uint64_t value, const uint64_t *sorted, unsigned n)
{
    unsigned lo = 0, hi = n;
    while (lo < hi) {
        unsigned mid = lo + (hi - lo) / 2;
        if (sorted[mid] == value)
            return true;
        if (sorted[mid] < value)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

/* Whether any of r's calls refers to one of the sorted values (see regions.h). */
bool region_refers_to(const struct region *r, enum region_ref ref, const uint64_t *sorted, unsigned n)
{
    for (unsigned i = 0; i < r->length; i++) {
        uint64_t value = ref == REGION_REF_STREAM ? r->sigs[i].stream : r->sigs[i].target;
        if (among(value, sorted, n))
            return true;
    }
    return false;
}

/* Records a failure of r; it backs off (longer each time it keeps failing); true if that was a timeout back-off. */
bool regions_failed(struct region_table *t, struct region *r, enum fallback_reason reason)
{
    (void)t;
    r->failures++;
    r->stable = 0;
    if ((unsigned)reason < FALLBACK_REASON_COUNT)
        r->stats.fallbacks[reason]++;
    r->state = REGION_BACKOFF;
    return reason == FALLBACK_DEFERRAL_TIMEOUT && ++r->timeouts >= REGIONS_TIMEOUTS_MAX;
}

/* The name of a fallback reason, for logs ("mismatch"). */
const char *fallback_reason_name(enum fallback_reason reason)
{
    static const char *const names[FALLBACK_REASON_COUNT] = {
        [FALLBACK_MISMATCH] = "mismatch",
        [FALLBACK_ENDED_EARLY] = "ended_early",
        [FALLBACK_SYNC_INSIDE] = "sync_inside",
        [FALLBACK_ALLOCATION] = "allocation",
        [FALLBACK_HIDDEN_WORK] = "hidden_work",
        [FALLBACK_PROGRAM_GRAPH] = "program_graph",
        [FALLBACK_GRAPH_ERROR] = "graph_error",
        [FALLBACK_UNSUPPORTED] = "unsupported",
        [FALLBACK_THREAD] = "other_thread",
        [FALLBACK_EXCLUDED] = "excluded",
        [FALLBACK_PROFILER] = "profiler",
        [FALLBACK_NOT_PAYING] = "not_paying",
        [FALLBACK_DEFERRAL_TIMEOUT] = "deferral_timeout",
        [FALLBACK_OBJECT_ENDED] = "object_ended",
    };
    return (unsigned)reason < FALLBACK_REASON_COUNT ? names[reason] : "unknown";
}

/* The name of a state, for logs. */
const char *region_state_name(enum region_state state)
{
    switch (state) {
    case REGION_LEARNING: return "learning";
    case REGION_WANTED: return "wanted";
    case REGION_GRAPHED: return "graphed";
    case REGION_BACKOFF: return "backoff";
    }
    return "unknown";
}
