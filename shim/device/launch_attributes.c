/* SPDX-License-Identifier: MIT */
/* A launch's attributes as the shim takes them (policy/launch_attrs.def): held back, an edge, or a boundary. */
#include "config.h"

#include <stdatomic.h>
#include <stddef.h>

#include <cuda_runtime_api.h>

#include "driver_api.h"
#include "launch_attributes.h"
#include "launch_attrs.h"
#include "log.h"

/* The table's ids are cuda.h's, and each value's bytes fit the union. */
#define LAUNCH_ATTR(id, NAME, action, value_bytes, why)                                                     \
    _Static_assert(CU_LAUNCH_ATTRIBUTE_##NAME == (id), "launch_attrs.def: the id of " #NAME);                \
    _Static_assert((value_bytes) <= sizeof(CUlaunchAttributeValue), "launch_attrs.def: the value of " #NAME);
#include "launch_attrs.def"
#undef LAUNCH_ATTR
_Static_assert(LAUNCH_ATTR_PROGRAMMATIC == CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION,
               "the programmatic attribute's id");
/* The bytes the table says the kept attributes' values use. */
_Static_assert(offsetof(CUaccessPolicyWindow, missProp) + sizeof(CUaccessProperty) == 28, "access policy window");
_Static_assert(sizeof(((CUlaunchAttributeValue *)0)->clusterDim) == 12, "cluster dimension");
_Static_assert(sizeof(((CUlaunchAttributeValue *)0)->memSyncDomainMap) == 2, "memory sync domain map");
_Static_assert(sizeof(((CUlaunchAttributeValue *)0)->programmaticStreamSerializationAllowed) == 4, "programmatic");
/* The runtime's attributes are the driver's: its ids and layout (cudaLaunchKernelExC's array is read as CUlaunchAttribute). */
_Static_assert(sizeof(cudaLaunchAttribute) == sizeof(CUlaunchAttribute), "cudaLaunchAttribute's size");
_Static_assert(offsetof(cudaLaunchAttribute, val) == offsetof(CUlaunchAttribute, value), "cudaLaunchAttribute's value");
_Static_assert((int)cudaLaunchAttributeProgrammaticStreamSerialization == CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION,
               "the runtime's programmatic attribute");
_Static_assert((int)cudaLaunchAttributeProgrammaticEvent == CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT, "the runtime's ids");
_Static_assert((int)cudaLaunchAttributeNvlinkUtilCentricScheduling == CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING,
               "the runtime's ids");

/* Attributes logged as a boundary already, by id (ids from 32 up share the last), and launches with too many. */
#define TOLD_MAX 32
static atomic_bool told[TOLD_MAX + 1], told_too_many;

/* Says once why a launch through api with attribute id is not held back. */
static void __attribute__((noinline, cold)) tell_boundary(unsigned id, const char *api)
{
    if (atomic_exchange(&told[id < TOLD_MAX ? id : TOLD_MAX], true))
        return;
    const char *name = launch_attr_name(id);
    if (name)
        log_info("%s with launch attribute %s, which the shim does not hold back: %s; each such launch ends a "
                 "region", api, name, launch_attr_why(id));
    else
        log_info("%s with launch attribute %u, which the shim does not hold back: %s; each such launch ends a "
                 "region", api, id, launch_attr_why(id));
}

static atomic_bool told_programmatic;

/*
 * Says once that the program (or a library: cuBLASLt on Hopper) launches
 * with programmatic dependencies, and what the shim makes of them: the one
 * place a user (or tests/gpu/issue25.sh) learns that such launches were seen.
 */
static void __attribute__((noinline, cold)) tell_programmatic(const char *api)
{
    if (!atomic_exchange(&told_programmatic, true))
        log_info("%s with launch attribute %s (a programmatic dependent launch): "
                 "held back like any launch; in a graph its node follows its stream's previous kernel node by a "
                 "programmatic edge", api, launch_attr_name(CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION));
}

/* Whether a launch through api with these attributes can be held back; logs a boundary's attribute once. */
bool launch_attrs_holdable(const void *attrs, unsigned count, const char *api)
{
    const CUlaunchAttribute *a = attrs;
    if (count > LAUNCH_ATTRS_MAX || (count && a == NULL)) {
        if (count > LAUNCH_ATTRS_MAX && !atomic_exchange(&told_too_many, true))
            log_info("%s with %u launch attributes, more than the %d the shim holds back with a launch; each such "
                     "launch ends a region", api, count, LAUNCH_ATTRS_MAX);
        return false;
    }
    for (unsigned i = 0; i < count; i++)
        if (launch_attr_action((unsigned)a[i].id) == LAUNCH_ATTR_BOUNDARY) {
            tell_boundary((unsigned)a[i].id, api);
            return false;
        }
    if (count && !atomic_load_explicit(&told_programmatic, memory_order_relaxed) &&
        launch_attrs_programmatic(attrs, count))
        tell_programmatic(api);
    return true;
}

/* Whether such a launch is a programmatic dependent launch. */
bool launch_attrs_programmatic(const void *attrs, unsigned count)
{
    const CUlaunchAttribute *a = attrs;
    for (unsigned i = 0; i < count; i++)
        if (a[i].id == CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION &&
            a[i].value.programmaticStreamSerializationAllowed != 0)
            return true;
    return false;
}

/* Whether a kernel node is given attribute id. */
bool launch_attr_on_node(unsigned id)
{
    return launch_attr_action(id) == LAUNCH_ATTR_KEPT;
}
