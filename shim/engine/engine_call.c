/* SPDX-License-Identifier: MIT */
/* Each call the engine sees: matched against the region its thread follows, held back, recorded or passed on. */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_fast.h"
#include "engine_internal.h"
#include "call_words.h"
#include "errors.h"
#include "exclusions.h"
#include "libcuda.h"
#include "owed_records.h"
#include "owed_waits.h"
#include "region_graph.h"
#include "runtime.h"
#include "shim.h"

/* Pageable copies larger than this are not held back: staging them would cost more than a launch saves. */
#define STAGING_MAX (16u << 20)

/* Adds item to a small set; false if it was not there and the set is full. */
static bool add_unique(const void **set, unsigned *count, unsigned capacity, const void *item)
{
    for (unsigned i = 0; i < *count; i++)
        if (set[i] == item)
            return true;
    if (*count == capacity)
        return false;
    set[(*count)++] = item;
    return true;
}

/* Notes the stream and event a held-back (or captured) call uses, for other threads' calls to check against. */
void note_held(struct tracker *t, const struct call *c)
{
    /* Most held-back calls are on the stream of the call before them. */
    bool same_stream = t->held_stream_count > 0 && t->held_streams[t->held_stream_count - 1] == c->stream;
    unsigned stream_capacity = sizeof t->held_streams / sizeof *t->held_streams;
    if (!same_stream && !add_unique(t->held_streams, &t->held_stream_count, stream_capacity, c->stream))
        t->held_everything = true;
    if ((c->kind == CALL_EVENT_RECORD || c->kind == CALL_EVENT_WAIT) &&
        !add_unique(t->held_events, &t->held_event_count, sizeof t->held_events / sizeof *t->held_events, c->event))
        t->held_everything = true;
}

/* Where the memory behind a host-side pointer lives (libcuda does not know pageable memory). */
static enum host_memory memory_of(const void *ptr)
{
    CUmemorytype type = 0;
    if (DEVICE_CALL(cuPointerGetAttribute, &type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)ptr) !=
        CUDA_SUCCESS)
        return MEMORY_PAGEABLE;
    return type == CU_MEMORYTYPE_HOST ? MEMORY_PINNED : MEMORY_DEVICE;
}

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
static void observe_sig(struct tracker *t, const struct call_sig *sig)
{
    materialize_observed(t);
    if (t->overflow || !observed_reserve(t, t->observed_count + 1))
        return;
    t->observed[t->observed_count++] = *sig;
    t->observed_stored = t->observed_count;
}

/* How many calls the sequence's cut holds (UINT_MAX: the sequence is no cut): where it ends, for both paths. */
static inline unsigned cut_calls(const struct tracker *t)
{
    return t->cuts.at;
}

/* Ends the sequence once it holds a whole cut (a loop's, a segment's); following nothing, feeds the period detector. */
static void cut_if_period_done(struct tracker *t)
{
    if (__builtin_expect(t->observed_count >= cut_calls(t), 0) || t->mode == FOLLOW_NONE)
        cut_check(t);
}

/*
 * Forwards a matched call into the robust path's capture.  If the runtime
 * refuses it there, the capture may be lost: the calls before it run (from
 * the capture or one by one), and the call is made again as the program
 * made it, whose result is the one the program gets.  It stays beside
 * hold_or_record, its one caller, rather than in engine_robust.c: inlined
 * there, a captured call costs no call more.
 */
static void recapture_call(struct tracker *t, cudaError_t *result)
{
    struct saved_error saved;
    errors_save(&saved);
    const struct recorded *last = &t->records.calls[t->records.count - 1];
    cudaError_t err = capture_forward(&t->capture, &t->records, last);
    errors_restore(&saved);
    if (err == cudaSuccess)
        return;
    struct recorded failed = *last;
    t->records.count--;
    fall_back(t, FALLBACK_GRAPH_ERROR, runtime_error_name(err));
    *result = record_forward(&t->records, &failed, cudaStreamPerThread); /* its bytes stay in the arena until the sequence ends */
}

/* After a call was appended to the record: its slot, and those before it, hold the followed region's calls. */
static void note_slot(struct tracker *t)
{
    unsigned held = t->records.count;
    if (t->slots_region != t->region->id)
        t->slots_region = t->region->id, t->slots_held = held;
    else if (t->slots_held < held)
        t->slots_held = held;
}

/* Notes whether a held-back call (the record's last) has other arguments than its node in the graph's last launch. */
static void note_differ(struct tracker *t)
{
    struct record_list *list = &t->records;
    struct region_graph *g = t->region->graph;
    unsigned position = list->count - 1;
    if (position == 0) /* the sequence's first call: compare it and what follows with g */
        list->differ_graph = record_differ_reserve(list, t->region->length) ? g : NULL;
    if (list->differ_graph != g) {
        /* Another region's graph was followed before: its launch compares every node.  A launch's geometry
           is noted all the same: the slot now holds it, and the fast path trusts slots (region_graph.h). */
        region_graph_note_shape(g, list, position);
        return;
    }
    if (region_graph_call_differs(g, list, position))
        list->differ[list->differ_count++] = position;
}

/* Whether the thread can switch to following other without changing what it does with the calls so far. */
static bool follows_same_path(const struct tracker *t, const struct region *other)
{
    if (t->mode == FOLLOW_RECAPTURE)
        return other->graph ? other->robust : other->state == REGION_WANTED;
    if (other->graph && other->robust)
        return false;
    return (t->mode == FOLLOW_REPLAY) == (other->state == REGION_GRAPHED);
}

static bool follow_signature(struct tracker *t, const struct call *c, enum host_memory src_memory,
                             enum host_memory dst_memory);
static bool hold_or_record(struct tracker *t, const struct call *c, enum host_memory src_memory, cudaError_t *result);

/*
 * Whether the driver takes a launch's geometry (kernel_params_launch_fits):
 * else it is a boundary, forwarded as the program made it, so that the
 * program gets the launch's error from the launch.  The layout is its
 * record slot's when the slot held the same kernel last (most launches).
 */
static bool launch_geometry_taken(const struct tracker *t, const struct call *c)
{
    const struct record_list *list = &t->records;
    const struct recorded *slot = list->count < list->capacity ? &list->calls[list->count] : NULL;
    const struct kernel_params *layout = slot && slot->layout && slot->layout->func == c->func
                                             ? slot->layout
                                             : kernel_params_of(c->func, kernel_handle_of(c->api));
    return layout == NULL || kernel_params_launch_fits(layout, c->grid, c->block, c->shared_mem);
}

/* A call that can be a graph node: hold it back, record it, or let it pass. */
static bool follow_node_call(struct tracker *t, const struct call *c, cudaError_t *result)
{
    enum host_memory src_memory = MEMORY_DEVICE, dst_memory = MEMORY_DEVICE;
    if (c->kind == CALL_LAUNCH && !launch_geometry_taken(t, c)) {
        if (t->mode == FOLLOW_REPLAY || t->mode == FOLLOW_RECAPTURE) {
            char why[160];
            snprintf(why, sizeof why, "%s with grid %ux%ux%u, block %ux%ux%u, %zu bytes of shared memory, which the "
                     "driver refuses", call_api_name(c->api), c->grid.x, c->grid.y, c->grid.z, c->block.x,
                     c->block.y, c->block.z, c->shared_mem);
            fall_back(t, FALLBACK_MISMATCH, why);
        }
        end_sequence_before(t, c);
        return false;
    }
    if (c->kind == CALL_COPY && c->copy_kind != cudaMemcpyDeviceToDevice) {
        dst_memory = c->copy_kind == cudaMemcpyHostToDevice ? MEMORY_DEVICE : memory_of(c->dst);
        /* A copy into pageable memory returns only once done: the program may read it at once. */
        if (dst_memory == MEMORY_PAGEABLE) {
            end_sequence_before(t, c);
            return false;
        }
        src_memory = c->copy_kind == cudaMemcpyDeviceToHost ? MEMORY_DEVICE : memory_of(c->src);
        if (src_memory == MEMORY_PAGEABLE && c->bytes > STAGING_MAX) {
            end_sequence_before(t, c);
            return false;
        }
    } else if (c->kind == CALL_SET) {
        dst_memory = memory_of(c->dst); /* a memset node cannot move between device and host memory either */
    }
    unsigned position = t->observed_count;
    struct region *r = t->region;
    /* The common case, a launch that is the region's next call, is compared in place: no signature is built. */
    if (position > 0 && t->mode != FOLLOW_NONE && position < r->length && c->kind == CALL_LAUNCH &&
        launch_matches(c, &r->sigs[position]))
        t->observed_count++; /* its signature is r->sigs[position]: written out only if needed */
    else if (!follow_signature(t, c, src_memory, dst_memory)) {
        cut_if_period_done(t); /* in a sync-free loop, a call that is not followed still counts towards the cut */
        return false;
    }
    bool held = hold_or_record(t, c, src_memory, result);
    cut_if_period_done(t);
    return held;
}

/* What a call names for a log: its function's name and, for a launch, its kernel's where known. */
static void name_call(char *buf, size_t len, const struct call_sig *sig)
{
    const char *kernel = call_sig_kernel_name(sig);
    snprintf(buf, len, "%s%s%s", call_api_name((enum hook_id)sig->api), kernel ? " of " : "", kernel ? kernel : "");
}

/*
 * Says how a call (signature sig) differs from the region's call there
 * (want; NULL: the region had ended): for the log of a fallback, so that a
 * user sees which call of the program changes from one occurrence to the
 * next (a kernel chosen anew, another stream).
 */
static void describe_mismatch(char *buf, size_t len, const struct call_sig *sig, const struct call_sig *want)
{
    char got[128], had[128];
    name_call(got, sizeof got, sig);
    if (want == NULL) {
        snprintf(buf, len, "%s after the region's last call", got);
        return;
    }
    name_call(had, sizeof had, want);
    if (want->api == sig->api && want->target == sig->target && want->stream != sig->stream)
        snprintf(buf, len, "%s on another stream than the region's", got);
    else if (want->api == sig->api && want->target == sig->target)
        snprintf(buf, len, "%s with other sizes, memory or flags than the region's", got);
    else
        snprintf(buf, len, "%s where the region has %s", got, had);
}

/*
 * Whether launch c may stand in for the region's launch want at its
 * position although its kernel differs: the same function launched it, on
 * the same stream, with the same attributes, and its kernel takes the same
 * parameters in the same context (kernel_params_same_layout), so that the
 * graph's node takes it as it takes new arguments.  Libraries choose
 * between kernels of one template by the data's alignment or size (a
 * concatenation's vectorised copy, an attention kernel for even tiles), so
 * an iteration of a decode loop alternates between such kernels; as
 * distinct calls, every variant would be a region of its own.  Not for a
 * kernel REPRISE_EXCLUDE_KERNELS names.
 */
static bool launch_takes_node(const struct call *c, const struct call_sig *want)
{
    if (c->kind != CALL_LAUNCH || want->api != (uint32_t)c->api || want->stream != (uint64_t)(uintptr_t)c->stream ||
        want->flags != (c->num_attrs ? launch_attrs_hash(c) : 0))
        return false;
    enum kernel_handle how = kernel_handle_of(c->api);
    const struct kernel_params *mine = kernel_params_of(c->func, how);
    const struct kernel_params *node = kernel_params_of((const void *)(uintptr_t)want->target, how);
    return mine && node && kernel_params_same_layout(mine, node) && !kernel_excluded(c->func, c->api);
}

/* Matches a node call's signature against the followed region (or finds one); false if it passes through. */
static bool follow_signature(struct tracker *t, const struct call *c, enum host_memory src_memory,
                             enum host_memory dst_memory)
{
    struct call_sig sig;
    call_signature(c, src_memory, dst_memory, &sig);
    unsigned position = t->observed_count;
    if (position == 0)
        start_sequence(t, &sig, c->stream);
    struct region *r = t->region;
    bool matches = t->mode != FOLLOW_NONE && position < r->length &&
                   (sig_equal(&r->sigs[position], &sig) || launch_takes_node(c, &r->sigs[position]));
    if (matches) {
        t->observed_count++; /* its signature is r->sigs[position]: written out only if needed */
    } else {
        observe_sig(t, &sig);
        if (t->overflow && t->period == 0)
            look_for_period(t, &sig);
        if (t->mode == FOLLOW_NONE)
            return false;
        if (!t->overflow) {
            /* Another known region may begin with the same calls. */
            struct region *other = regions_candidate(&t->table, t->observed, position + 1);
            if (other && follows_same_path(t, other)) {
                /* The slots up to here hold the calls both regions begin with. */
                if (t->slots_region == r->id)
                    t->slots_region = other->id, t->slots_held = position < t->slots_held ? position : t->slots_held;
                /* The slots so far were compared with r's graph: their geometry is noted against other's. */
                for (unsigned i = 0; t->mode == FOLLOW_REPLAY && other->graph && !other->robust && i < position &&
                                     i < t->records.count;
                     i++)
                    region_graph_note_shape(other->graph, &t->records, i);
                t->region = r = other;
                matches = true;
            }
        }
    }
    if (!matches) {
        if (t->mode == FOLLOW_REPLAY || t->mode == FOLLOW_RECAPTURE) {
            char why[320];
            describe_mismatch(why, sizeof why, &sig, position < r->length ? &r->sigs[position] : NULL);
            fall_back(t, FALLBACK_MISMATCH, why);
        }
        t->mode = FOLLOW_NONE;
        if (t->period) {
            /* The loop changed its pattern: find its period anew. */
            t->period = 0;
            period_reset(t->periods);
        }
        return false;
    }
    return true;
}

/* Keeps a call that matched the followed region: held back (true, with *result) or recorded and passed on. */
static bool hold_or_record(struct tracker *t, const struct call *c, enum host_memory src_memory, cudaError_t *result)
{
    const char *why;
    if (t->mode == FOLLOW_RECAPTURE) {
        if (!capture_admits(&t->capture, c, src_memory == MEMORY_PAGEABLE, &why)) {
            fall_back(t, FALLBACK_UNSUPPORTED, why);
            return false;
        }
        if (!capture_takes_call(t, c)) {
            fall_back(t, FALLBACK_THREAD, "another thread's call on a stream or event it would take in is under way");
            return false;
        }
    }
    if (!record_append(&t->records, c, src_memory)) {
        if (t->slots_held > t->records.count)
            t->slots_held = t->records.count; /* the failed append may have written part of its slot */
        if (t->mode == FOLLOW_REPLAY || t->mode == FOLLOW_RECAPTURE)
            fall_back(t, FALLBACK_GRAPH_ERROR, "cannot record the call");
        t->mode = FOLLOW_NONE;
        return false;
    }
    note_slot(t);
    if (t->mode == FOLLOW_RECORD)
        return false;
    if (t->mode == FOLLOW_REPLAY)
        note_differ(t);
    if (!t->pending) {
        set_pending(t, true); /* the region's first held-back call: the rest skip the call */
        /* Where its work goes if another thread (or the watchdog) must submit it. */
        if (DEVICE_CALL(cuCtxGetCurrent, &t->context) != CUDA_SUCCESS)
            t->context = NULL;
    }
    note_held(t, c);
    note_progress(t);
    *result = cudaSuccess;
    if (t->mode == FOLLOW_RECAPTURE)
        recapture_call(t, result);
    return true;
}

/* Notes whether the launch the fast path holds back at pos differs from the graph; moves on past it and unlocks. */
static inline cudaError_t fast_held(struct tracker *t, unsigned pos, bool differs)
{
    if (__builtin_expect(differs, 0))
        t->records.differ[t->records.differ_count++] = pos;
    __atomic_store_n(&t->fast.pos, pos + 1, __ATOMIC_RELAXED); /* the watchdog reads it without the lock */
    tracker_unlock(t);
    return cudaSuccess;
}

/* fast_hold_listed for a launch with a parameter of a size other than 4 or 8 bytes: the same, with memcpy and memcmp. */
static __attribute__((noinline)) cudaError_t fast_hold_any(struct tracker *t, const struct recorded *slot,
                                                           void *const *args)
{
    unsigned pos = t->fast.pos;
    const struct kernel_params *layout = slot->layout;
    unsigned char *block = t->records.arena + slot->arena_offset;
    const unsigned char *held = t->fast.compare + t->fast.compare_at[pos];
    bool differs = false;
    for (unsigned i = 0; i < layout->count; i++) {
        memcpy(block + layout->offset[i], args[i], layout->size[i]);
        differs |= memcmp(block + layout->offset[i], held + layout->offset[i], layout->size[i]) != 0;
    }
    return fast_held(t, pos, differs);
}

/* Copies parameter i (of 4 or 8 bytes, else goto other) into block, adding its difference from held's to differ. */
#define FAST_PARAM(i)                                                                                       \
    do {                                                                                                    \
        uint32_t at = layout->offset[i];                                                                    \
        if (layout->size[i] == 8) {                                                                         \
            uint64_t now, was;                                                                              \
            memcpy(&now, args[i], 8);                                                                       \
            memcpy(&was, held + at, 8);                                                                     \
            memcpy(block + at, &now, 8);                                                                    \
            differ |= now ^ was;                                                                            \
        } else if (layout->size[i] == 4) {                                                                  \
            uint32_t now, was;                                                                              \
            memcpy(&now, args[i], 4);                                                                       \
            memcpy(&was, held + at, 4);                                                                     \
            memcpy(block + at, &now, 4);                                                                    \
            differ |= now ^ was;                                                                            \
        } else {                                                                                            \
            goto other;                                                                                     \
        }                                                                                                   \
    } while (0)

/*
 * Holds back a launch of a kernel without a shape (t's lock held): copies
 * its parameters into the arena, each compared with the graph's instance
 * launched last, notes it if any differs; cudaSuccess.  Up to 8 pointers
 * and 4-byte scalars inline, unrolled from the last down; any other launch
 * goes to fast_hold_any, so that this stays a leaf.
 */
static cudaError_t fast_hold_listed(struct tracker *t, const struct recorded *slot, void *const *args)
{
    unsigned pos = t->fast.pos;
    const struct kernel_params *layout = slot->layout;
    unsigned char *block = t->records.arena + slot->arena_offset;
    const unsigned char *held = t->fast.compare + t->fast.compare_at[pos];
    uint64_t differ = 0;
    switch (layout->count) {
    case 8: FAST_PARAM(7); /* fall through */
    case 7: FAST_PARAM(6); /* fall through */
    case 6: FAST_PARAM(5); /* fall through */
    case 5: FAST_PARAM(4); /* fall through */
    case 4: FAST_PARAM(3); /* fall through */
    case 3: FAST_PARAM(2); /* fall through */
    case 2: FAST_PARAM(1); /* fall through */
    case 1: FAST_PARAM(0); /* fall through */
    case 0: break;
    default: goto other;
    }
    return fast_held(t, pos, differ != 0);
other:
    return fast_hold_any(t, slot, args);
}

/*
 * The same for a kernel of the given shape (kernel_params.h), a constant in
 * each of its instances below: every offset and size is known, so that a
 * parameter costs its copy and compare alone, a few instructions.
 */
static inline __attribute__((always_inline)) cudaError_t fast_hold_shaped(struct tracker *t, const struct recorded *slot,
                                                                         void *const *args, unsigned shape)
{
    unsigned pos = t->fast.pos;
    unsigned char *block = t->records.arena + slot->arena_offset;
    const unsigned char *held = t->fast.compare + t->fast.compare_at[pos];
    uint64_t differ = 0;
    uint32_t end = 0;
#pragma GCC unroll 8
    for (unsigned i = 0; i < kernel_shape_count(shape); i++) {
        uint32_t at = kernel_shape_place(end, kernel_shape_wide(shape, i));
        end = at + (kernel_shape_wide(shape, i) ? 8 : 4);
        if (kernel_shape_wide(shape, i)) {
            uint64_t now, was;
            memcpy(&now, args[i], 8);
            memcpy(&was, held + at, 8);
            memcpy(block + at, &now, 8);
            differ |= now ^ was;
        } else {
            uint32_t now, was;
            memcpy(&now, args[i], 4);
            memcpy(&was, held + at, 4);
            memcpy(block + at, &now, 4);
            differ |= now ^ was;
        }
    }
    return fast_held(t, pos, differ != 0);
}

/* One holder per shape: fast_hold_shape_0xNN for shape 0xNN (0x00, no shape: the layout's own offsets and sizes). */
#define FAST_SHAPE(h, l)                                                                                    \
    static cudaError_t fast_hold_shape_0x##h##l(struct tracker *t, const struct recorded *slot, void *const *args) \
    {                                                                                                       \
        return 0x##h##l ? fast_hold_shaped(t, slot, args, 0x##h##l ? 0x##h##l : 1) : fast_hold_listed(t, slot, args); \
    }
#define FAST_SHAPE_ROW(h)                                                                                   \
    FAST_SHAPE(h, 0) FAST_SHAPE(h, 1) FAST_SHAPE(h, 2) FAST_SHAPE(h, 3) FAST_SHAPE(h, 4) FAST_SHAPE(h, 5)   \
    FAST_SHAPE(h, 6) FAST_SHAPE(h, 7) FAST_SHAPE(h, 8) FAST_SHAPE(h, 9) FAST_SHAPE(h, a) FAST_SHAPE(h, b)   \
    FAST_SHAPE(h, c) FAST_SHAPE(h, d) FAST_SHAPE(h, e) FAST_SHAPE(h, f)
FAST_SHAPE_ROW(0)
FAST_SHAPE_ROW(1)
FAST_SHAPE_ROW(2)
FAST_SHAPE_ROW(3)
FAST_SHAPE_ROW(4)
FAST_SHAPE_ROW(5)
FAST_SHAPE_ROW(6)
FAST_SHAPE_ROW(7)
#undef FAST_SHAPE

_Static_assert(KERNEL_SHAPES == 0x80, "one row of holders per 16 shapes");
#define FAST_SHAPE(h, l) [0x##h##l] = fast_hold_shape_0x##h##l,
const engine_fast_holder engine_fast_holders[KERNEL_SHAPES] = {
    FAST_SHAPE_ROW(0) FAST_SHAPE_ROW(1) FAST_SHAPE_ROW(2) FAST_SHAPE_ROW(3)
    FAST_SHAPE_ROW(4) FAST_SHAPE_ROW(5) FAST_SHAPE_ROW(6) FAST_SHAPE_ROW(7)
};
#undef FAST_SHAPE
#undef FAST_SHAPE_ROW

/*
 * Takes the fast path's calls into t's counts and records (under t's
 * lock).  Their streams go into held_streams only when another thread
 * holds the lock: only other threads ask (interacts), and the calls' own
 * thread would note them in vain, the region's end clearing them.
 */
void fast_sync(struct tracker *t)
{
    unsigned from = t->fast.synced, to = t->fast.pos;
    if (from != to) {
        __atomic_store_n(&t->fast.synced, to, __ATOMIC_RELAXED); /* read by the watchdog, as pos */
        unsigned n = to - from;
        t->observed_count += n;
        t->records.count += n;
        /* The arena ends where the last launch's block does (an event call takes no room). */
        for (unsigned i = to; i-- > from;)
            if (t->records.calls[i].layout) {
                const struct recorded *last = &t->records.calls[i];
                t->records.arena_used = last->arena_offset + last->layout->total;
                break;
            }
        atomic_store_explicit(&t->activity, atomic_load_explicit(&t->activity, memory_order_relaxed) + n,
                              memory_order_relaxed);
    }
    if (t == self || t->fast.unnoted >= to)
        return;
    for (unsigned i = t->fast.unnoted; i < to; i++)
        note_held(t, &t->records.calls[i].call);
    t->fast.unnoted = to;
}

/* Where the fast path must leave the thread's next calls to the engine again; at most pos: it takes none. */
static unsigned fast_stop(struct tracker *t, unsigned pos)
{
    struct region *r = t->region;
    /* Replaying r's graph, every call so far recorded, compared with it and in slots that hold r's calls. */
    if (t->mode != FOLLOW_REPLAY || t->observed_count != pos || t->slots_region != r->id ||
        t->records.differ_graph != r->graph)
        return 0;
    if (t->trial.ended != NULL || atomic_load_explicit(&t->moved_pending, memory_order_relaxed))
        return 0;
    unsigned stop = r->length < t->slots_held ? r->length : t->slots_held;
    unsigned cut = cut_calls(t);
    if (cut - 1 < stop)
        stop = cut - 1; /* the cut's last call ends it: the engine takes it (cut_if_period_done) */
    return stop;
}

/*
 * Opens the fast path for the thread's next calls while it replays and
 * nothing rare goes on; else closes it.  Against a thread that closes it
 * (fast_close_others) after causing a rare state: that state is stored,
 * then until; here until is stored, then the states are read (all
 * sequentially consistent), so one of the two sees the other.
 */
static void fast_open(struct tracker *t)
{
    unsigned pos = t->records.count;
    __atomic_store_n(&t->fast.pos, pos, __ATOMIC_RELAXED); /* the watchdog reads both (tracker_activity) */
    __atomic_store_n(&t->fast.synced, pos, __ATOMIC_RELAXED);
    unsigned stop = fast_stop(t, pos);
    if (stop <= pos) {
        if (atomic_load_explicit(&t->fast.until, memory_order_relaxed) != 0)
            fast_close(t);
        return;
    }
    region_graph_compare(t->region->graph, &t->fast.compare, &t->fast.compare_at);
    if (t->fast.unnoted > pos)
        t->fast.unnoted = pos;
    atomic_store(&t->fast.until, stop);
    if (atomic_load(&pending_trackers) > 1 || atomic_load(&program_captures) != 0 || atomic_load(&shut_down))
        fast_close(t);
}

/* Whether call c (of kind CALL_CAPTURE) begins the program's capture, rather than ending it. */
static bool begins_capture(const struct call *c)
{
    return c->api == HOOK_ID_cudaStreamBeginCapture || c->api == HOOK_ID_cudaStreamBeginCapture_ptsz ||
           c->api == HOOK_ID_cudaStreamBeginCaptureToGraph || c->api == HOOK_ID_cudaStreamBeginCaptureToGraph_ptsz;
}

/* What a call does to the records owed on streams and events (owed_records.h): call_kinds.def's owed column. */
enum owed_effect {
    OWED_EFFECT_NOTHING,            /* orders nothing */
    OWED_EFFECT_OBSERVES_EVENT,     /* waits for or queries its event on the host */
    OWED_EFFECT_ON_EVENT,           /* extends its stream, and records, waits for or ends its event */
    OWED_EFFECT_OBSERVES,           /* waits for or queries streams on the host, never extends them */
    OWED_EFFECT_ANY_EVENT,          /* the program's graph: may wait for any event */
    OWED_EFFECT_CAPTURE,            /* begins or ends the program's capture */
    OWED_EFFECT_ON_STREAM,          /* extends its stream */
    OWED_EFFECT_ON_STREAM_OBSERVES, /* extends its stream, or anything else: then observes, as a host wait */
};

/*
 * Before call c is forwarded: the records owed on the stream it extends or
 * the event it observes or records are made (owed_records.h).  A host wait
 * or query (a sync, a query, a free) only observes: after it, a record
 * made is waited for, so that a later query of it says it is done.
 */
static void settle_owed_records(const struct call *c)
{
    static const enum owed_effect effects[CALL_KIND_COUNT] = {
#define CALL_KIND(kind, name, node, host_sync, order, activity, boundary, owed, target)                    \
    [CALL_##kind] = OWED_EFFECT_##owed,
#include "call_kinds.def"
#undef CALL_KIND
    };
    switch ((unsigned)c->kind < CALL_KIND_COUNT ? effects[c->kind] : OWED_EFFECT_ON_STREAM_OBSERVES) {
    case OWED_EFFECT_NOTHING:
        return;
    case OWED_EFFECT_OBSERVES_EVENT:
        owed_records_observe(c->event);
        owed_records_host_waits();
        return;
    case OWED_EFFECT_ON_EVENT:
        owed_records_settle(c->stream, c->event);
        return;
    case OWED_EFFECT_OBSERVES:
        owed_records_host_waits(); /* they observe streams, never extend them */
        return;
    case OWED_EFFECT_ANY_EVENT:
        owed_records_settle(c->stream, OWED_ANY_EVENT); /* the program's graph may wait for any event */
        return;
    case OWED_EFFECT_CAPTURE:
        /* Every record owed, before the program's capture begins: one made inside it (a boundary there settles
           them all) would be work on its stream's capture, or on the legacy stream, which invalidates it. */
        if (begins_capture(c))
            owed_records_settle_all();
        else
            owed_records_settle(c->stream, NULL);
        return;
    case OWED_EFFECT_ON_STREAM:
        owed_records_settle(c->stream, NULL);
        return;
    case OWED_EFFECT_ON_STREAM_OBSERVES:
        owed_records_settle(c->stream, NULL);
        owed_records_host_waits();
        return;
    }
}

/* Answers the program's capture-status question itself when the only capture on the stream is the shim's. */
static bool answer_capture_query(const struct call *c, cudaError_t *result)
{
    if (c->status_out == NULL)
        return false; /* let the runtime report the bad argument */
    if (!engine_hides_capture(c->stream))
        return false;
    *c->status_out = cudaStreamCaptureStatusNone;
    *result = cudaSuccess;
    return true;
}

/* Whether call c resets the device (cudaDeviceReset, or the deprecated cudaThreadExit). */
static bool resets_device(const struct call *c)
{
    return c->api == HOOK_ID_cudaDeviceReset || c->api == HOOK_ID_cudaThreadExit;
}

/* Sees a call before it reaches the runtime; true if held back, with *result for the program. */
bool engine_call(const struct call *c, cudaError_t *result)
{
    struct tracker *t = tracker_self();
    if (t == NULL || atomic_load_explicit(&shut_down, memory_order_relaxed)) {
        settle_owed_records(c);
        return false;
    }
    in_flight_mark(t, c); /* until the wrapper has forwarded it (engine_forwarded), or below if taken */
    if (c->kind == CALL_CAPTURE_STATUS || c->kind == CALL_CAPTURE_INFO) {
        bool answered = answer_capture_query(c, result);
        if (answered)
            engine_forwarded();
        return answered;
    }
    in_engine = true;
    if (__builtin_expect(others_hold_work(t), 0))
        submit_other_threads(t, interacts, c, FALLBACK_THREAD, call_api_name(c->api));
    bool taken = false;
    tracker_lock(t);
    if (__builtin_expect(atomic_load_explicit(&t->moved_pending, memory_order_relaxed), 0))
        rejoin_moved_work(t);
    if (__builtin_expect(t->trial.ended != NULL, 0))
        trial_sample(&t->trial, &t->table); /* the call that ended a timed occurrence has returned */
    if (call_kind_in(c->kind, CALL_KINDS_NODE) &&
        atomic_load_explicit(&program_captures, memory_order_relaxed) == 0) {
        taken = follow_node_call(t, c, result);
    } else if (!call_kind_in(c->kind, CALL_KINDS_NO_ORDER)) {
        end_sequence_before(t, c); /* a boundary; a node call too while the program captures: stay out of its way */
        if (c->kind == CALL_CAPTURE)
            note_program_capture(begins_capture(c) ? 1 : -1);
    }
    fast_open(t);
    tracker_unlock(t);
    in_engine = false;
    if (!taken) {
        owed_waits_settle(c->stream); /* forwarded next: after the graphs it follows (the boundary's own too) */
        settle_owed_records(c);
        if (resets_device(c))
            engine_object_ends(ENDS_CONTEXT, NULL, call_api_name(c->api));
    } else {
        engine_forwarded(); /* held back, or forwarded into its own capture already */
    }
    return taken;
}
