/* The table of hooked functions' names and kinds. */
#include "config.h"

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
