/* Driver calls from outside the interposed runtime: counted in observe mode, boundaries in auto mode. */
#include "config.h"

#include <stdatomic.h>

#include "engine.h"
#include "foreign.h"
#include "shim.h"

static atomic_ullong counts[DRIVER_COUNT];

/* A wrapped driver function called by someone other than the runtime or the shim, on stream (NULL: none). */
bool foreign_call(enum driver_id id, const void *stream)
{
    if (shim_counting)
        atomic_fetch_add_explicit(&counts[id], 1, memory_order_relaxed);
    if (!shim_auto)
        return false;
    enum driver_kind kind = driver_table[id].kind;
    return engine_foreign_call((cudaStream_t)stream, driver_table[id].name,
                               kind == DRIVER_KIND_CAPTURE_BEGIN ? 1 : kind == DRIVER_KIND_CAPTURE_END ? -1 : 0,
                               kind == DRIVER_KIND_CAPTURABLE);
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
