/* SPDX-License-Identifier: MIT */
/* The wrapped driver functions' names and kinds, from driver_hooks.def. */
#include "config.h"

#include <string.h>

#include "driver_table.h"
#include "hooks.h"

#define DRIVER_KIND_OF_WORK DRIVER_KIND_WORK
#define DRIVER_KIND_OF_CAPTURABLE DRIVER_KIND_CAPTURABLE
#define DRIVER_KIND_OF_CAPTURE_BEGIN DRIVER_KIND_CAPTURE_BEGIN
#define DRIVER_KIND_OF_CAPTURE_END DRIVER_KIND_CAPTURE_END
#define DRIVER_KIND_OF_BOUNDARY DRIVER_KIND_BOUNDARY
#define DRIVER_KIND_OF_SETTING DRIVER_KIND_SETTING
#define DRIVER_KIND_OF_SYNC DRIVER_KIND_SYNC
#define DRIVER_KIND_OF_CAPTURE_QUERY DRIVER_KIND_CAPTURE_QUERY

const struct driver_info driver_table[DRIVER_COUNT] = {
#define DRIVER_HOOK(kind, name, params, args, stream) [DRIVER_ID_##name] = {#name, DRIVER_KIND_OF_##kind, -1},
#define DRIVER_NODE(kind, node, name, params, args, stream, fields)                                           \
    [DRIVER_ID_##name] = {#name, DRIVER_KIND_OF_##kind, CALL_##node},
#include "driver_hooks.def"
#undef DRIVER_NODE
#undef DRIVER_HOOK
};

/* The id of an exported driver name, or -1 if the table has no wrapper for it. */
int driver_id_of(const char *name)
{
    if (name == NULL || name[0] != 'c' || name[1] != 'u')
        return -1;
    for (int id = 0; id < DRIVER_COUNT; id++)
        if (strcmp(driver_table[id].name, name) == 0)
            return id;
    return -1;
}
