/* SPDX-License-Identifier: MIT */
/* Where a thread's calls are cut into graph launches: sync-free batches that grow, segments for a slow host. */
#include "config.h"

#include <string.h>

#include "cuts.h"

/* The verdict of the samples so far. */
enum pace_verdict pace_verdict(const struct pace *p)
{
    if (p->slow >= CUTS_PACE_SAMPLES)
        return PACE_SLOW;
    if (p->fast >= CUTS_PACE_SAMPLES)
        return PACE_FAST;
    return PACE_UNSURE;
}

/*
 * Whether segments end an occurrence sooner (see cuts.h).  Whole, it ends
 * at span + patch + submit + wait.  In k segments the GPU starts after the
 * first segment's share of the span, the patching and the submission, plus
 * a launch's fixed cost, and then has the whole wait's work to do, and a
 * fixed cost more at each of the k - 1 joins between segments (one graph's
 * end and the next one's start on the stream); the host ends at span plus
 * the launches (the same patches and nodes submitted, split, and k - 1
 * more fixed costs) plus the last segment's share of the work.  A
 * launch-bound loop whose host makes its calls in a few microseconds
 * gains a few microseconds at most, less than the bar; a
 * region whose host takes tens of microseconds and whose GPU then works
 * for as long (a training step whose library does host work between its
 * launches, a decoder's token) gains most of the wait.
 */
bool overlap_pays(uint64_t span_ns, uint64_t patch_ns, uint64_t submit_ns, uint64_t wait_ns, unsigned segments)
{
    if (segments < 2 || wait_ns == 0)
        return false;
    uint64_t fixed = submit_ns < CUTS_LAUNCH_FIXED_NS ? submit_ns : CUTS_LAUNCH_FIXED_NS;
    uint64_t whole = span_ns + patch_ns + submit_ns + wait_ns;
    uint64_t host_end = span_ns + patch_ns + submit_ns + (segments - 1) * fixed + wait_ns / segments;
    uint64_t gpu_end = (span_ns + patch_ns + submit_ns) / segments + segments * fixed + wait_ns;
    uint64_t in_segments = host_end > gpu_end ? host_end : gpu_end;
    return in_segments * 100 <= whole * (100 - CUTS_OVERLAP_GAIN_PERCENT);
}

/*
 * Adds one occurrence's sample; the verdict of the last samples.  Slow
 * means that the host spends at least a graph launch between two calls:
 * holding the region back until its end then leaves the GPU idle for
 * longer than a launch per call, which launching segments as they fill
 * gives back for the price of a launch per segment.  A launch-bound loop
 * (a fraction of a microsecond between calls) is never slow that way; it
 * is slow too where the sync after its launch waited long enough for
 * segments to end it sooner (overlap_pays).
 */
enum pace_verdict pace_sample(struct pace *p, uint64_t span_ns, unsigned calls, uint64_t launch_ns,
                              uint64_t patch_ns, uint64_t wait_ns, unsigned segments)
{
    if (launch_ns > UINT32_MAX)
        launch_ns = UINT32_MAX;
    if (patch_ns > launch_ns)
        patch_ns = launch_ns;
    if (p->launch_ns == 0 || launch_ns < p->launch_ns)
        p->launch_ns = launch_ns ? (uint32_t)launch_ns : 1;
    uint64_t submit_ns = launch_ns - patch_ns;
    if (p->submit_ns == 0 || submit_ns < p->submit_ns)
        p->submit_ns = submit_ns ? (uint32_t)submit_ns : 1;
    bool gaps = calls > 0 && span_ns >= (uint64_t)calls * p->launch_ns;
    bool waits = !gaps && overlap_pays(span_ns, patch_ns, p->submit_ns, wait_ns, segments);
    if (gaps || waits) {
        p->fast = 0;
        if (p->slow < UINT8_MAX)
            p->slow++;
        p->overlap = waits ? (uint8_t)(p->overlap < UINT8_MAX ? p->overlap + 1 : UINT8_MAX) : 0;
    } else {
        p->slow = 0;
        p->overlap = 0;
        if (p->fast < UINT8_MAX)
            p->fast++;
    }
    return pace_verdict(p);
}

/* Ends the current stretch; true if a repeating region between syncs moved the threshold. */
bool stretch_ended(struct stretch_memory *m, unsigned calls, const struct cut_bounds *b)
{
    bool moved = false;
    /* Only stretches long enough to be looked at are remembered: short ones (syncs in a row) would push them out. */
    if (stretch_feeds(m, calls)) {
        if (m->cut && calls <= b->max_calls) {
            for (unsigned i = 0; i < CUTS_RECENT_STRETCHES && !moved; i++)
                moved = m->recent[i] == calls;
            if (moved)
                m->feed_from = calls + 1;
        }
        m->recent[m->next] = calls;
        m->next = (m->next + 1) % CUTS_RECENT_STRETCHES;
    }
    m->calls = 0;
    m->cut = false;
    return moved;
}

/* Whether a period has held for long enough (run calls in a row) to cut at. */
bool batch_period_settled(unsigned period, uint64_t run)
{
    return period > 0 && run >= CUTS_BASE_CALLS;
}

/* Starts the cuts of a loop whose calls repeat every `period`. */
void batch_start(struct batch_plan *p, unsigned period, const struct cut_bounds *b)
{
    memset(p, 0, sizeof *p);
    p->period = period ? period : 1;
    unsigned group = (CUTS_BASE_CALLS + p->period - 1) / p->period;
    p->base = p->period * group <= b->max_calls ? p->period * group : p->period;
    p->bound = b->max_batch_calls < b->max_calls ? b->max_batch_calls : b->max_calls;
    if (p->bound < p->base)
        p->bound = p->base;
}

/* Whether a cut of `calls` calls is whole periods within the loop's bound. */
bool batch_fits(const struct batch_plan *p, unsigned calls)
{
    return p->period && calls >= p->period && calls % p->period == 0 && calls <= p->bound;
}

/* Whether cuts of `calls` calls may still grow. */
bool batch_may_grow(const struct batch_plan *p, unsigned calls)
{
    return p->period && calls > 0 && calls <= p->bound / 2;
}

/* A cut ended, replayed as region `region` of `calls` calls or not; whether to count a sighting of the doubled cut. */
enum batch_step batch_cut_done(struct batch_plan *p, unsigned region, unsigned calls, bool replayed)
{
    if (!replayed || region == 0) {
        p->region = 0;
        p->replays = 0;
        p->paired = false;
        return BATCH_KEEP;
    }
    if (region != p->region) {
        p->region = region;
        p->replays = 0;
        p->paired = false;
    }
    p->replays++;
    if (p->replays < CUTS_GROW_AFTER || !batch_may_grow(p, calls) || pace_verdict(&p->pace) == PACE_SLOW)
        return BATCH_KEEP;
    p->paired = !p->paired;
    return p->paired ? BATCH_KEEP : BATCH_SEEN_DOUBLE;
}

/*
 * Calls per segment for a region of `length` calls; 0 if it is too short.
 * Small segments start the GPU soonest and leave the least work for the
 * end; each is a graph of its own, so REPRISE_MAX_SEGMENTS bounds their
 * number, none but the last is shorter than CUTS_SEGMENT_MIN_CALLS or a
 * region, and a region is cut only into two or more of them.
 */
unsigned segment_calls(unsigned length, const struct cut_bounds *b)
{
    if (b->max_segments < 2)
        return 0;
    unsigned each = (length + b->max_segments - 1) / b->max_segments;
    if (each < CUTS_SEGMENT_MIN_CALLS)
        each = CUTS_SEGMENT_MIN_CALLS;
    if (each < b->min_calls)
        each = b->min_calls;
    return 2 * each <= length ? each : 0;
}

/* The entry of the region whose first call hashes to first, or NULL. */
struct segmented *segments_find(struct segment_table *t, uint64_t first)
{
    for (unsigned i = 0; i < t->count; i++)
        if (t->entries[i].first == first) {
            t->entries[i].used = ++t->clock;
            return &t->entries[i];
        }
    return NULL;
}

/* Adds or renews an entry, replacing the least recently used when full. */
struct segmented *segments_add(struct segment_table *t, uint64_t first, unsigned each, unsigned region_calls)
{
    struct segmented *s = segments_find(t, first);
    if (s == NULL && t->count < CUTS_SEGMENTED_MAX)
        s = &t->entries[t->count++];
    if (s == NULL) {
        s = &t->entries[0];
        for (unsigned i = 1; i < t->count; i++)
            if (t->entries[i].used < s->used)
                s = &t->entries[i];
    }
    memset(s, 0, sizeof *s);
    s->first = first;
    s->each = each;
    s->region_calls = region_calls;
    s->used = ++t->clock;
    return s;
}

/* Removes an entry. */
void segments_remove(struct segment_table *t, struct segmented *s)
{
    unsigned i = (unsigned)(s - t->entries);
    if (i >= t->count)
        return;
    t->entries[i] = t->entries[--t->count];
}

/* Notes that the segment at index was region id. */
void segments_note(struct segmented *s, unsigned index, unsigned id)
{
    if (index < CUTS_SEGMENTS_MAX)
        s->region_ids[index] = id;
}

/* The region the segment at index was last, 0 if unknown. */
unsigned segments_region_at(const struct segmented *s, unsigned index)
{
    return index < CUTS_SEGMENTS_MAX ? s->region_ids[index] : 0;
}

/* The most calls the segment that begins `done` calls into the stretch can hold. */
unsigned segment_room(const struct segmented *s, unsigned done)
{
    if (done >= s->region_calls)
        return s->each;
    unsigned left = s->region_calls - done;
    return left < s->each ? left : s->each;
}
