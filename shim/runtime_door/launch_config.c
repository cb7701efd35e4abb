/* SPDX-License-Identifier: MIT */
/* The <<<>>> call configuration, kept by the shim in auto mode instead of the runtime (see launch_config.h). */
#include "config.h"

#include "engine_fast.h"
#include "launch_config.h"
#include "runtime.h"

__thread struct launch_config_stack launch_configs __attribute__((tls_model("initial-exec"))) = {
    .pushed = LAUNCH_CONFIG_SLOW};

/* A push with one pushed already (a launch inside a launch's arguments), or the flag set: kept deeper, or given to the runtime. */
cudaError_t launch_config_push_deeper(dim3 grid, dim3 block, size_t shared_mem, cudaStream_t stream)
{
    struct launch_config_stack *s = &launch_configs;
    if (engine_door_is_fast())
        s->pushed &= ~LAUNCH_CONFIG_SLOW;
    unsigned slow = s->pushed & LAUNCH_CONFIG_SLOW, pushed = s->pushed & ~LAUNCH_CONFIG_SLOW;
    s->pushed = (pushed + 1) | slow;
    if (pushed >= LAUNCH_CONFIG_DEPTH)
        return REAL_CALL(__cudaPushCallConfiguration, grid, block, shared_mem, stream);
    s->entries[pushed] = (struct pushed_config){.grid = grid, .block = block, .shared_mem = shared_mem,
                                                .stream = stream};
    return cudaSuccess;
}

/* A pop with other than one pushed, or the flag set: the deeper entry, or the runtime's (false: forward the pop). */
bool launch_config_pop_deeper(dim3 *grid, dim3 *block, size_t *shared_mem, void *stream)
{
    struct launch_config_stack *s = &launch_configs;
    if (engine_door_is_fast())
        s->pushed &= ~LAUNCH_CONFIG_SLOW;
    unsigned slow = s->pushed & LAUNCH_CONFIG_SLOW, pushed = s->pushed & ~LAUNCH_CONFIG_SLOW;
    if (pushed == 0)
        return false; /* none pushed through the shim (before it was in auto mode, or by someone else) */
    s->pushed = (pushed - 1) | slow;
    if (pushed > LAUNCH_CONFIG_DEPTH)
        return false; /* the runtime holds it */
    const struct pushed_config *c = &s->entries[pushed - 1];
    *grid = c->grid;
    *block = c->block;
    *shared_mem = c->shared_mem;
    *(cudaStream_t *)stream = c->stream;
    return true;
}
