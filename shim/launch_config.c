/* The <<<>>> call configuration, kept by the shim in auto mode instead of the runtime (see launch_config.h). */
#include "config.h"

#include "launch_config.h"
#include "runtime.h"

__thread struct launch_config_stack launch_configs __attribute__((tls_model("initial-exec")));

/* A push with one pushed already (a launch inside a launch's arguments): kept deeper, or given to the runtime. */
cudaError_t launch_config_push_deeper(dim3 grid, dim3 block, size_t shared_mem, cudaStream_t stream)
{
    struct launch_config_stack *s = &launch_configs;
    unsigned pushed = s->pushed++;
    if (pushed >= LAUNCH_CONFIG_DEPTH)
        return REAL_CALL(__cudaPushCallConfiguration, grid, block, shared_mem, stream);
    s->entries[pushed] = (struct pushed_config){.grid = grid, .block = block, .shared_mem = shared_mem,
                                                .stream = stream};
    return cudaSuccess;
}

/* A pop with other than one pushed: the deeper entry, or the runtime's (false: forward the pop). */
bool launch_config_pop_deeper(dim3 *grid, dim3 *block, size_t *shared_mem, void *stream)
{
    struct launch_config_stack *s = &launch_configs;
    unsigned pushed = s->pushed;
    if (pushed == 0)
        return false; /* none pushed through the shim (before it was in auto mode, or by someone else) */
    s->pushed = pushed - 1;
    if (pushed > LAUNCH_CONFIG_DEPTH)
        return false; /* the runtime holds it */
    const struct pushed_config *c = &s->entries[pushed - 1];
    *grid = c->grid;
    *block = c->block;
    *shared_mem = c->shared_mem;
    *(cudaStream_t *)stream = c->stream;
    return true;
}
