/* SPDX-License-Identifier: MIT */
/* One intercepted call, described for the engine: which function, on which stream, with what. */
#ifndef REPRISE_CALL_H
#define REPRISE_CALL_H

#include <stdbool.h>
#include <stdint.h>

#include "hooks.h"

/*
 * Filled by the wrappers from the hooked function's own parameters
 * (shim/runtime_door/call_fields.h, the driver door's DRIVER_FIELDS_*);
 * only the fields of the call's kind are set,
 * the others are left unwritten (no zeroing on the hot path): read a field
 * only for the kinds that fill it.
 */
struct call {
    enum hook_id api;           /* a runtime hook's id, or CALL_API_DRIVER(a driver_hooks.def id) */
    enum call_kind kind;
    cudaStream_t stream;        /* as hooks.def resolves it: never NULL */
    /* LAUNCH */
    const void *func;           /* host stub or cudaKernel_t */
    dim3 grid, block;
    void **args;
    void **extra;               /* cuLaunchKernel's packed form (CU_LAUNCH_PARAM_BUFFER_POINTER), when args is NULL */
    const void *attrs;          /* cuLaunchKernelEx's CUlaunchAttribute array (cudaLaunchKernelExC's: the same layout),
                                   none a boundary (shim/device/launch_attributes.h) */
    unsigned num_attrs;         /* 0 for every other launch */
    size_t shared_mem;
    /* COPY and SET */
    void *dst;
    const void *src;
    size_t bytes;
    enum cudaMemcpyKind copy_kind; /* cudaMemcpyDefault for cuMemcpyAsync: both ends are looked up */
    int value;                  /* SET: the element's bits (a byte, or cuMemsetD16/D32's 2 or 4 bytes) */
    unsigned element_size;      /* SET: 1, 2 or 4 */
    /* HOST_FUNC */
    cudaHostFn_t host_fn;
    void *host_data;
    /* CONFIG_PUSH uses grid, block, shared_mem and config_stream; CONFIG_POP writes through these */
    cudaStream_t config_stream;
    dim3 *grid_out, *block_out;
    size_t *shared_mem_out;
    void *stream_out;
    /* EVENT_RECORD and EVENT_WAIT (the event also for EVENT_RECORD_OTHER, _SYNC, _QUERY and _DESTROY) */
    cudaEvent_t event;
    unsigned flags;
    /* CAPTURE_STATUS and CAPTURE_INFO */
    enum cudaStreamCaptureStatus *status_out;
};

/*
 * The two front doors share one id space: a driver function's id follows
 * every runtime hook's, so that signatures and logs tell them apart.
 */
#define CALL_API_DRIVER(id) ((enum hook_id)(HOOK_COUNT + 1 + (int)(id)))

/* Whether a call came through the driver's door (a driver_hooks.def wrapper). */
static inline bool call_api_is_driver(enum hook_id api)
{
    return (int)api > HOOK_COUNT;
}

/* The driver_hooks.def id of a driver-door call. */
static inline int call_api_driver_id(enum hook_id api)
{
    return (int)api - HOOK_COUNT - 1;
}

/* The kind of call a function makes (a driver function that is no front door: CALL_KIND_COUNT). */
enum call_kind call_api_kind(unsigned api);

/* What stream work a call is ordered against (call_kinds.def's order column): bits, STREAM_EVENT both. */
enum call_order {
    CALL_ORDERS_NOTHING = 0,      /* nothing: creations, capture questions, error checks */
    CALL_ORDERS_STREAM = 1,       /* its stream's */
    CALL_ORDERS_EVENT = 2,        /* its event's */
    CALL_ORDERS_STREAM_EVENT = 3, /* both */
    CALL_ORDERS_DEVICE = 4,       /* anyone's: device-wide */
};

/* Sets of kinds, one bit per kind (call_kind_in tests one), from call_kinds.def's columns. */
struct call_kind_sets {
    unsigned node_kinds;      /* can be graph nodes (launches, copies, sets, host functions, event records and waits) */
    unsigned host_sync_kinds; /* wait on the host for stream work (syncs, synchronous copies and sets) */
    unsigned no_order_kinds;  /* order nothing against stream work */
    unsigned stream_kinds;    /* ordered against their stream's work (order STREAM or STREAM_EVENT) */
    unsigned event_kinds;     /* name an event they are ordered by (order EVENT or STREAM_EVENT) */
};

/* The sets, written out from the table: every use folds to a constant. */
static inline struct call_kind_sets call_kind_sets(void)
{
    struct call_kind_sets s = {0};
#define CALL_KIND(kind, name, node, host_sync, order, activity, boundary, owed, target)                    \
    s.node_kinds |= (unsigned)(node) << CALL_##kind;                                                        \
    s.host_sync_kinds |= (unsigned)(host_sync) << CALL_##kind;                                              \
    s.no_order_kinds |= (unsigned)(CALL_ORDERS_##order == CALL_ORDERS_NOTHING) << CALL_##kind;              \
    s.stream_kinds |= (unsigned)((CALL_ORDERS_##order & CALL_ORDERS_STREAM) != 0) << CALL_##kind;            \
    s.event_kinds |= (unsigned)((CALL_ORDERS_##order & CALL_ORDERS_EVENT) != 0) << CALL_##kind;
#include "call_kinds.def"
#undef CALL_KIND
    return s;
}

#define CALL_KINDS_NODE (call_kind_sets().node_kinds)
#define CALL_KINDS_HOST_SYNC (call_kind_sets().host_sync_kinds)
#define CALL_KINDS_NO_ORDER (call_kind_sets().no_order_kinds)
#define CALL_KINDS_ON_STREAM (call_kind_sets().stream_kinds)
#define CALL_KINDS_ON_EVENT (call_kind_sets().event_kinds)

/* Whether kind is one of the set (CALL_KINDS_*). */
static inline bool call_kind_in(enum call_kind kind, unsigned set)
{
    _Static_assert(CALL_KIND_COUNT <= 32, "call kinds must fit a 32-bit set");
    return (set >> kind) & 1u;
}

/* The name of the function a call was made through, for logs ("cudaLaunchKernel", "cuLaunchKernel_ptsz"). */
const char *call_api_name(enum hook_id api);

/* The fields every call fills (a macro, so that HOOK's parameter names do not capture them). */
#define CALL_HEAD(c, api_, kind_, stream_) ((c).api = (api_), (c).kind = (kind_), (c).stream = (stream_))

/* What a call's signature names it by (call_kinds.def's target column). */
enum call_target { CALL_TARGET_NONE, CALL_TARGET_KERNEL, CALL_TARGET_HOST_FUNC, CALL_TARGET_EVENT };

/* The target column of kind (CALL_TARGET_NONE for CALL_KIND_COUNT). */
static inline enum call_target call_kind_target(enum call_kind kind)
{
    switch (kind) {
#define CALL_KIND(kind, name, node, host_sync, order, activity, boundary, owed, target)                    \
    case CALL_##kind:                                                                                      \
        return CALL_TARGET_##target;
#include "call_kinds.def"
#undef CALL_KIND
    default:
        return CALL_TARGET_NONE;
    }
}

/* A call's target, by the target column: the field each names. */
#define CALL_TARGET_FIELD_NONE(c) 0
#define CALL_TARGET_FIELD_KERNEL(c) (uint64_t)(uintptr_t)(c)->func
#define CALL_TARGET_FIELD_HOST_FUNC(c) (uint64_t)(uintptr_t)(c)->host_fn
#define CALL_TARGET_FIELD_EVENT(c) (uint64_t)(uintptr_t)(c)->event

/* The target of a call as its signature has it: a launch's kernel, a host function, an event; 0 for others. */
static inline uint64_t call_target(const struct call *c)
{
    switch (c->kind) {
#define CALL_KIND(kind, name, node, host_sync, order, activity, boundary, owed, target)                    \
    case CALL_##kind:                                                                                      \
        return CALL_TARGET_FIELD_##target(c);
#include "call_kinds.def"
#undef CALL_KIND
    default:
        return 0;
    }
}

#endif
