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
#define CALL_KIND(kind, name, node, host_sync, order, activity, boundary, owed, target) [CALL_##kind] = name,
#include "call_kinds.def"
#undef CALL_KIND
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
