/* SPDX-License-Identifier: MIT */
/* The hooked functions as C declarations, ids and kinds, all from hooks.def. */
#ifndef REPRISE_HOOKS_H
#define REPRISE_HOOKS_H

#include <cuda_runtime_api.h>

/* The stream a call acts on, as hooks.def names it. */
#define STREAM_NONE ((cudaStream_t)0)
#define STREAM_OR_LEGACY(s) ((s) ? (s) : cudaStreamLegacy)
#define STREAM_OR_PER_THREAD(s) ((s) ? (s) : cudaStreamPerThread)

/* What a hooked call does, as far as observing and deciding care. */
enum call_kind {
    CALL_CONFIG_PUSH,
    CALL_CONFIG_POP,
    CALL_LAUNCH,
    CALL_LAUNCH_OTHER,
    CALL_HOST_FUNC,
    CALL_HOST_FUNC_OTHER,
    CALL_COPY,
    CALL_COPY_OTHER,
    CALL_COPY_SYNC,
    CALL_SET,
    CALL_SET_OTHER,
    CALL_SET_SYNC,
    CALL_EVENT_CREATE,
    CALL_EVENT_DESTROY,
    CALL_EVENT_RECORD,
    CALL_EVENT_RECORD_OTHER,
    CALL_EVENT_WAIT,
    CALL_EVENT_SYNC,
    CALL_EVENT_QUERY,
    CALL_QUERY,
    CALL_STREAM_CREATE,
    CALL_STREAM_DESTROY,
    CALL_STREAM_SYNC,
    CALL_DEVICE_SYNC,
    CALL_ALLOC,
    CALL_FREE,
    CALL_CAPTURE,
    CALL_CAPTURE_QUERY,
    CALL_CAPTURE_STATUS,
    CALL_CAPTURE_INFO,
    CALL_GRAPH_LAUNCH,
    CALL_ERROR_CHECK,
    CALL_KIND_COUNT
};

/*
 * hooks.def's LAUNCH_EX (cudaLaunchKernelExC): counted as a launch; each
 * call is a CALL_LAUNCH, or a CALL_LAUNCH_OTHER when its launch attributes
 * forbid holding it back (shim/runtime_door/wrappers.c decides).
 */
#define CALL_LAUNCH_EX CALL_LAUNCH

/* One id per hooked function. */
enum hook_id {
#define HOOK(kind, name, params, args, stream) HOOK_ID_##name,
#include "hooks.def"
#undef HOOK
    HOOK_COUNT
};

/* A pointer type per hooked function, and its prototype. */
#define HOOK(kind, name, params, args, stream)                               \
    typedef cudaError_t (*name##_fn) params;                                 \
    cudaError_t name params;
#include "hooks.def"
#undef HOOK

/* Static facts about one hooked function. */
struct hook_info {
    const char *name;
    enum call_kind kind;
};

extern const struct hook_info hook_table[HOOK_COUNT];

/* The name of a call kind, for logs and traces. */
const char *call_kind_name(enum call_kind kind);

#endif
