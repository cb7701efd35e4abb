/* SPDX-License-Identifier: MIT */
/* The hooked functions as C declarations, ids and kinds, all from hooks.def. */
#ifndef REPRISE_HOOKS_H
#define REPRISE_HOOKS_H

#include <cuda_runtime_api.h>

/* The stream a call acts on, as hooks.def names it. */
#define STREAM_NONE ((cudaStream_t)0)
#define STREAM_OR_LEGACY(s) ((s) ? (s) : cudaStreamLegacy)
#define STREAM_OR_PER_THREAD(s) ((s) ? (s) : cudaStreamPerThread)

/* What a hooked call does, as far as observing and deciding care: one per row of call_kinds.def. */
enum call_kind {
#define CALL_KIND(kind, name, node, host_sync, order, activity, boundary, owed, target) CALL_##kind,
#include "call_kinds.def"
#undef CALL_KIND
    CALL_KIND_COUNT
};

/*
 * hooks.def's LAUNCH_EX (cudaLaunchKernelExC): counted as a launch; each
 * call is a CALL_LAUNCH, or a CALL_LAUNCH_OTHER when its launch attributes
 * forbid holding it back (shim/runtime_door/call_fields.h decides).
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
