/* SPDX-License-Identifier: MIT */
/* Each call the engine sees: matched against the region its thread follows, held back, recorded or passed on. */
#include "config.h"

#include <stdio.h>

#include "call_words.h"
#include "engine_aside.h"
#include "engine_capture.h"
#include "engine_crash.h"
#include "engine_events.h"
#include "engine_fallback.h"
#include "engine_fast.h"
#include "engine_governor.h"
#include "engine_handover.h"
#include "engine_held.h"
#include "engine_in_flight.h"
#include "engine_observed.h"
#include "engine_on_behalf.h"
#include "engine_sequence.h"
#include "engine_threads.h"
#include "engine_watchdog.h"
#include "errors.h"
#include "exclusions.h"
#include "libcuda.h"
#include "owed_records.h"
#include "owed_waits.h"
#include "region_graph.h"
#include "runtime.h"
#include "settings.h"

/* Pageable copies larger than this are not held back: staging them would cost more than a launch saves. */
#define STAGING_MAX (16u << 20)

/* Where the memory behind a host-side pointer lives (libcuda does not know pageable memory). */
static enum host_memory memory_of(const void *ptr)
{
    CUmemorytype type = 0;
    if (DEVICE_CALL(cuPointerGetAttribute, &type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)ptr) !=
        CUDA_SUCCESS)
        return MEMORY_PAGEABLE;
    return type == CU_MEMORYTYPE_HOST ? MEMORY_PINNED : MEMORY_DEVICE;
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
    const struct held_call *last = &t->records.calls[t->records.count - 1];
    cudaError_t err = capture_forward(&t->capture.session, &t->records, last);
    errors_restore(&saved);
    if (err == cudaSuccess)
        return;
    struct held_call failed = *last;
    t->records.count--;
    fall_back(t, FALLBACK_GRAPH_ERROR, runtime_error_name(err));
    *result = held_forward(&t->records, &failed, cudaStreamPerThread); /* its bytes stay in the arena until the sequence ends */
}

/* Notes whether a held-back call (the record's last) has other arguments than its node in the graph's last launch. */
static void note_differ(struct tracker *t)
{
    struct held_list *list = &t->records;
    struct region_graph *g = t->region->graph;
    unsigned position = list->count - 1;
    if (position == 0) /* the sequence's first call: compare it and what follows with g */
        list->differ_graph = held_differ_reserve(list, t->region->length) ? g : NULL;
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
    const struct held_list *list = &t->records;
    const struct held_call *slot = list->count < list->capacity ? &list->calls[list->count] : NULL;
    const struct kernel_params *layout = slot && slot->layout && slot->layout->func == c->func
                                             ? slot->layout
                                             : kernel_params_of(c->func, kernel_handle_of(c->api));
    return layout == NULL || kernel_params_launch_fits(layout, c->grid, c->block, c->shared_mem);
}

/* Counts a copy of bytes from pageable memory in t's sequence, and the most a sequence copied (see engine_tracker.h). */
static void note_pageable(struct tracker *t, size_t bytes)
{
    t->sequence_pageable += align16(bytes);
    if (t->sequence_pageable <= STAGING_MAX && t->sequence_pageable > t->pageable_most)
        t->pageable_most = t->sequence_pageable;
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
        if (src_memory == MEMORY_PAGEABLE)
            note_pageable(t, c->bytes);
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
    char mine[64], region[64];
    if (want->api == sig->api && want->stream == sig->stream && want->target != sig->target &&
        call_kind_target(call_api_kind(sig->api)) == CALL_TARGET_EVENT)
        snprintf(buf, len, "%s of %s where the region's is of %s", got, event_ref_words(sig->target, mine, sizeof mine),
                 event_ref_words(want->target, region, sizeof region));
    else if (want->api == sig->api && want->target == sig->target && want->stream != sig->stream)
        snprintf(buf, len, "%s on another stream than the region's", got);
    else if (want->api == sig->api && want->target == sig->target)
        snprintf(buf, len, "%s with other sizes, memory or flags than the region's", got);
    else
        snprintf(buf, len, "%s where the region has %s", got, had);
}

/*
 * Whether launch c may stand in for the region's launch want at its
 * position although its kernel differs: the same function launched it, on
 * the same stream, with the same attributes, and the graph's kernel node may
 * run its kernel (kernel_node_takes: the same context, and the same
 * parameters or a block that fits the node's room), so that the node takes
 * it as it takes new arguments.  Libraries choose between kernels of one
 * template by the data's alignment or size (a concatenation's vectorised
 * copy, PyTorch's vectorised or unrolled elementwise kernels, an attention
 * kernel for even tiles), so an iteration of a decode loop alternates
 * between such kernels; as distinct calls, every variant would be a region
 * of its own.  Not for a kernel REPRISE_EXCLUDE_KERNELS names.
 */
static bool launch_takes_node(const struct call *c, const struct call_sig *want)
{
    if (c->kind != CALL_LAUNCH || want->api != (uint32_t)c->api || want->stream != (uint64_t)(uintptr_t)c->stream ||
        want->flags != (c->num_attrs ? launch_attrs_hash(c) : 0))
        return false;
    enum kernel_handle how = kernel_handle_of(c->api);
    const struct kernel_params *mine = kernel_params_of(c->func, how);
    const struct kernel_params *node = kernel_params_of((const void *)(uintptr_t)want->target, how);
    return mine && node && kernel_node_takes(node, mine) && !kernel_excluded(c->func, c->api);
}

/*
 * Whether launch c stands in for the region's launch want at its position
 * (launch_takes_node), within the few a sequence may have: an eighth of
 * the region's calls, at least one.  One kernel node changing kernels is a
 * library's choice between variants; many are another loop (a sync-free
 * loop whose pattern changed, which must fall back so that its period is
 * found anew), and each stand-in costs its node a patch.  Only where a
 * graph takes the calls (replayed, or re-captured on the robust path): an
 * occurrence recorded to build the graph is the region's own calls, or a
 * sequence seen too rarely to replay would build a graph from others'.
 */
static bool stands_in(struct tracker *t, const struct call *c, const struct call_sig *want, unsigned length)
{
    unsigned allowed = length / 8 > 1 ? length / 8 : 1;
    if ((t->mode != FOLLOW_REPLAY && t->mode != FOLLOW_RECAPTURE) || t->stand_ins >= allowed ||
        !launch_takes_node(c, want))
        return false;
    t->stand_ins++;
    return true;
}

/* Matches a node call's signature against the followed region (or finds one); false if it passes through. */
static bool follow_signature(struct tracker *t, const struct call *c, enum host_memory src_memory,
                             enum host_memory dst_memory)
{
    struct call_sig sig;
    call_signature(c, src_memory, dst_memory, &sig);
    unsigned position = t->observed_count;
    if (call_kind_target(c->kind) == CALL_TARGET_EVENT)
        sig.target = sequence_event_ref(t, c, position); /* which earlier call named its event, not which it is */
    if (position == 0)
        start_sequence(t, &sig, c);
    struct region *r = t->region;
    bool matches = t->mode != FOLLOW_NONE && position < r->length &&
                   (sig_equal(&r->sigs[position], &sig) || stands_in(t, c, &r->sigs[position], r->length));
    if (matches) {
        t->observed_count++; /* its signature is r->sigs[position]: written out only if needed */
    } else {
        observe_sig(t, &sig);
        if (t->overflow)
            look_for_period(t, &sig);
        if (t->mode == FOLLOW_NONE)
            return false;
        if (!t->overflow) {
            /* Another known region may begin with the same calls. */
            struct region *other = regions_candidate(&t->table, t->observed, position + 1);
            if (other && follows_same_path(t, other)) {
                /* The slots up to here hold the calls both regions begin with. */
                fast_slots_switch(t, r->id, other->id, position);
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
        forget_period(t); /* the loop changed its pattern: find its period anew */
        return false;
    }
    return true;
}

/*
 * Where a record slot's bytes lie in the arena: the fast path writes a
 * later slot's parameters where that slot's were (its arena_offset), so a
 * slot taken anew with bytes elsewhere or of another size (another
 * kernel's parameters, a staged copy of another size) leaves the slots
 * after it holding nothing known.
 */
struct arena_place {
    uint32_t offset;
    size_t bytes;
};

/* Where slot i of list keeps its bytes (nothing past the list's calls, or for a call that keeps none). */
static struct arena_place arena_place_of(const struct held_list *list, unsigned i)
{
    if (i >= list->capacity || i > list->count)
        return (struct arena_place){0, 0};
    const struct held_call *r = &list->calls[i];
    /* A layout forgotten since (its memory perhaps another kernel's now: kernel_params.c) tells nothing: elsewhere. */
    if (r->layout && r->layout->func != r->call.func)
        return (struct arena_place){UINT32_MAX, 0};
    if (r->layout)
        return (struct arena_place){r->arena_offset, r->layout->total + sizeof(CUlaunchAttribute) * r->num_attrs};
    return r->staged ? (struct arena_place){r->arena_offset, r->call.bytes} : (struct arena_place){0, 0};
}

/* Whether two slots' bytes lie at the same place. */
static bool arena_place_same(struct arena_place a, struct arena_place b)
{
    return a.offset == b.offset && a.bytes == b.bytes;
}

/* Keeps a call that matched the followed region: held back (true, with *result) or recorded and passed on. */
static bool hold_or_record(struct tracker *t, const struct call *c, enum host_memory src_memory, cudaError_t *result)
{
    const char *why;
    if (t->mode == FOLLOW_RECAPTURE) {
        if (!capture_admits(&t->capture.session, c, src_memory == MEMORY_PAGEABLE, &why)) {
            fall_back(t, FALLBACK_UNSUPPORTED, why);
            return false;
        }
        if (!capture_takes_call(t, c)) {
            fall_back(t, FALLBACK_THREAD, "another thread's call on a stream or event it would take in is under way");
            return false;
        }
    }
    struct arena_place was = arena_place_of(&t->records, t->records.count);
    if (!held_append(&t->records, c, src_memory)) {
        fast_slots_trim(t, t->records.count); /* the failed append may have written part of its slot */
        if (t->mode == FOLLOW_REPLAY || t->mode == FOLLOW_RECAPTURE)
            fall_back(t, FALLBACK_GRAPH_ERROR, "cannot record the call");
        t->mode = FOLLOW_NONE;
        return false;
    }
    if (!arena_place_same(was, arena_place_of(&t->records, t->records.count - 1)))
        fast_slots_trim(t, t->records.count); /* the slots after it lie elsewhere in the arena now */
    fast_note_slot(t, t->region->id, t->records.count);
    if (t->mode == FOLLOW_RECORD)
        return false;
    if (t->mode == FOLLOW_REPLAY)
        note_differ(t);
    if (!holds_back(t)) {
        set_pending(t, true); /* the region's first held-back call: the rest skip the call */
        note_context(t);
    }
    note_held(t, c);
    note_progress(t);
    *result = cudaSuccess;
    if (t->mode == FOLLOW_RECAPTURE)
        recapture_call(t, result);
    return true;
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
        if (program_capture_begins(c->api))
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

/* After a call this thread made returned: clears its mark, and takes the sample of a sync timed for a pace. */
void engine_call_returned(void)
{
    in_flight_clear();
    pace_sync_returned();
    governor_returned();
}

/* Sees a call before it reaches the runtime; true if held back, with *result for the program. */
bool engine_call(const struct call *c, cudaError_t *result)
{
    struct tracker *t = tracker_self();
    if (t == NULL || atomic_load_explicit(&shut_down, memory_order_relaxed)) {
        settle_owed_records(c);
        return false;
    }
    note_last_call(t, c->api);
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
    if (__builtin_expect(rejoin_pending(t), 0))
        rejoin_moved_work(t);
    if (__builtin_expect(t->trial.ended != NULL, 0))
        trial_sample(&t->trial, &t->table); /* the call that ended a timed occurrence has returned */
    bool holding = engine_holds();
    if (__builtin_expect(!holding, 0)) {
        aside_clean(t); /* the governor steps the engine aside: this thread's held-back work goes first */
        if (c->kind == CALL_CAPTURE)
            note_program_capture(program_capture_begins(c->api) ? 1 : -1);
    } else if (call_kind_in(c->kind, CALL_KINDS_NODE) &&
               atomic_load_explicit(&program_captures, memory_order_relaxed) == 0) {
        taken = follow_node_call(t, c, result);
    } else if (!call_kind_in(c->kind, CALL_KINDS_NO_ORDER)) {
        end_sequence_before(t, c); /* a boundary; a node call too while the program captures: stay out of its way */
        if (c->kind == CALL_CAPTURE)
            note_program_capture(program_capture_begins(c->api) ? 1 : -1);
    }
    fast_open(t);
    tracker_unlock(t);
    in_engine = false;
    if (!taken) {
        owed_waits_settle(c->stream); /* forwarded next: after the graphs it follows (the boundary's own too) */
        settle_owed_records(c);
        if (resets_device(c))
            engine_object_ends(ENDS_CONTEXT, NULL, call_api_name(c->api));
        if (call_kind_in(c->kind, CALL_KINDS_HOST_SYNC))
            governor_arm(c->api, c->stream); /* the stretch it ends, for the governor */
        if (!holding)
            governor_drain_retry();
    } else {
        engine_forwarded(); /* held back, or forwarded into its own capture already */
    }
    return taken;
}
