/* Driver calls from outside the interposed runtime: counted in observe mode, boundaries in auto mode. */
#include "config.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>

#include "engine.h"
#include "foreign.h"
#include "shim.h"

static atomic_ullong counts[DRIVER_COUNT];

/*
 * Whether driver function id only adds stream work that a capture records
 * faithfully: launches, memsets, device-to-device copies, event records and
 * waits, host functions.  Not copies that may read pageable host memory
 * (captured, they would read it when the graph runs), syncs, queries or
 * allocations.
 */
static bool driver_capturable(enum driver_id id)
{
    static const char *const prefixes[] = {"cuLaunchKernel", "cuLaunchHostFunc", "cuMemsetD", "cuEventRecord",
                                           "cuStreamWaitEvent", "cuMemcpyDtoDAsync"};
    const char *name = driver_table[id].name;
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
        if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
            return strncmp(prefixes[i], "cuMemsetD", 9) != 0 || strstr(name, "Async") != NULL;
    return false;
}

/* A wrapped driver function called by someone other than the runtime or the shim, on stream (NULL: none). */
void foreign_call(enum driver_id id, const void *stream)
{
    if (shim_counting)
        atomic_fetch_add_explicit(&counts[id], 1, memory_order_relaxed);
    if (shim_auto) {
        enum driver_kind kind = driver_table[id].kind;
        engine_foreign_call((cudaStream_t)stream, driver_table[id].name,
                            kind == DRIVER_KIND_CAPTURE_BEGIN ? 1 : kind == DRIVER_KIND_CAPTURE_END ? -1 : 0,
                            driver_capturable(id));
    }
}

/* How many foreign calls of driver function id were seen. */
unsigned long long foreign_calls(enum driver_id id)
{
    return atomic_load_explicit(&counts[id], memory_order_relaxed);
}

/* Every foreign call seen, all functions together. */
unsigned long long foreign_calls_total(void)
{
    unsigned long long total = 0;
    for (int id = 0; id < DRIVER_COUNT; id++)
        total += foreign_calls(id);
    return total;
}
