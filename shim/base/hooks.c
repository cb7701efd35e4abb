/* SPDX-License-Identifier: MIT */
/* The table of hooked functions' names and kinds. */
#include "config.h"

#include "call.h"
#include "driver_table.h"
#include "hooks.h"

const struct hook_info hook_table[HOOK_COUNT] = {
#define HOOK(kind, name, params, args, stream) [HOOK_ID_##name] = {#name, CALL_##kind},
#include "hooks.def"
#undef HOOK
};

/* The name of a call kind, for logs and traces. */
const char *call_kind_name(enum call_kind kind)
{
    static const char *const names[CALL_KIND_COUNT] = {
        [CALL_CONFIG_PUSH] = "config_push",
        [CALL_CONFIG_POP] = "config_pop",
        [CALL_LAUNCH] = "launch",
        [CALL_LAUNCH_OTHER] = "launch_other",
        [CALL_HOST_FUNC] = "host_func",
        [CALL_HOST_FUNC_OTHER] = "host_func_other",
        [CALL_COPY] = "copy",
        [CALL_COPY_OTHER] = "copy_other",
        [CALL_COPY_SYNC] = "copy_sync",
        [CALL_SET] = "set",
        [CALL_SET_OTHER] = "set_other",
        [CALL_SET_SYNC] = "set_sync",
        [CALL_EVENT_CREATE] = "event_create",
        [CALL_EVENT_DESTROY] = "event_destroy",
        [CALL_EVENT_RECORD] = "event_record",
        [CALL_EVENT_RECORD_OTHER] = "event_record_other",
        [CALL_EVENT_WAIT] = "event_wait",
        [CALL_EVENT_SYNC] = "event_sync",
        [CALL_EVENT_QUERY] = "event_query",
        [CALL_QUERY] = "query",
        [CALL_STREAM_CREATE] = "stream_create",
        [CALL_STREAM_DESTROY] = "stream_destroy",
        [CALL_STREAM_SYNC] = "stream_sync",
        [CALL_DEVICE_SYNC] = "device_sync",
        [CALL_ALLOC] = "alloc",
        [CALL_FREE] = "free",
        [CALL_CAPTURE] = "capture",
        [CALL_CAPTURE_QUERY] = "capture_query",
        [CALL_CAPTURE_STATUS] = "capture_status",
        [CALL_CAPTURE_INFO] = "capture_info",
        [CALL_GRAPH_LAUNCH] = "graph_launch",
        [CALL_ERROR_CHECK] = "error_check",
    };
    return (unsigned)kind < CALL_KIND_COUNT ? names[kind] : "unknown";
}

/* The name of the function a call was made through, for logs ("cudaLaunchKernel", "cuLaunchKernel_ptsz"). */
const char *call_api_name(enum hook_id api)
{
    if ((int)api >= 0 && (int)api < HOOK_COUNT)
        return hook_table[api].name;
    int id = call_api_driver_id(api);
    return id >= 0 && id < DRIVER_COUNT ? driver_table[id].name : "a driver call";
}

/* The kind of call a function makes (a driver function that is no front door: CALL_KIND_COUNT). */
enum call_kind call_api_kind(unsigned api)
{
    if (api < HOOK_COUNT)
        return hook_table[api].kind;
    int id = call_api_driver_id((enum hook_id)api);
    return id >= 0 && id < DRIVER_COUNT && driver_table[id].node_kind >= 0 ? (enum call_kind)driver_table[id].node_kind
                                                                           : CALL_KIND_COUNT;
}
