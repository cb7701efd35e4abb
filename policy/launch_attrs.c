/* SPDX-License-Identifier: MIT */
/* What the shim does with each launch attribute (launch_attrs.def): lookups by id. */
#include "config.h"

#include <stddef.h>

#include "launch_attrs.h"

/* One row of launch_attrs.def. */
struct launch_attr_row {
    const char *name;
    enum launch_attr_action action;
    unsigned value_bytes;
    const char *why;
};

/* The rows by id: an id no row names has a NULL name. */
static const struct launch_attr_row rows[] = {
#define LAUNCH_ATTR(id, NAME, action, value_bytes, why)                                                     \
    [id] = {"CU_LAUNCH_ATTRIBUTE_" #NAME, LAUNCH_ATTR_##action, value_bytes, why},
#include "launch_attrs.def"
#undef LAUNCH_ATTR
};

/* The row of id, or NULL if the table lacks it. */
static const struct launch_attr_row *row_of(unsigned id)
{
    return id < sizeof rows / sizeof rows[0] && rows[id].name != NULL ? &rows[id] : NULL;
}

/* What the shim does with a launch carrying attribute id (an id the table lacks: LAUNCH_ATTR_BOUNDARY). */
enum launch_attr_action launch_attr_action(unsigned id)
{
    const struct launch_attr_row *row = row_of(id);
    return row ? row->action : LAUNCH_ATTR_BOUNDARY;
}

/* The attribute's name in cuda.h; NULL for an id the table lacks. */
const char *launch_attr_name(unsigned id)
{
    const struct launch_attr_row *row = row_of(id);
    return row ? row->name : NULL;
}

/* Why the attribute is treated so, in words. */
const char *launch_attr_why(unsigned id)
{
    const struct launch_attr_row *row = row_of(id);
    return row ? row->why : "an attribute this version of the shim does not know (from a later CUDA)";
}

/* The bytes of the attribute's value that mean something (0 for an id the table lacks). */
unsigned launch_attr_value_bytes(unsigned id)
{
    const struct launch_attr_row *row = row_of(id);
    return row ? row->value_bytes : 0;
}
