/* The <<<>>> call configuration, kept by the shim in auto mode instead of the runtime. */
#ifndef REPRISE_LAUNCH_CONFIG_H
#define REPRISE_LAUNCH_CONFIG_H

#include <stdbool.h>

#include "call.h"

/*
 * A <<<>>> launch is two runtime calls before the launch itself: the launch
 * expression pushes the configuration, the kernel's host stub pops it and
 * passes it on explicitly (__cudaLaunchKernel or cudaLaunchKernel).  The
 * runtime uses the pushed value for nothing else, so in auto mode the shim
 * keeps it itself: a replayed launch then costs no runtime call at all
 * (measured on the H200: the pair costs about 85 ns, a fifth of a held-back
 * launch).  A stack, because a kernel's arguments may launch kernels too.
 * Push and pop are inline in the wrappers: a few stores and loads each.
 */
#define LAUNCH_CONFIG_DEPTH 16

/* One thread's pushed configurations. */
struct launch_config_stack {
    /* Pushes made and not popped yet: entries[0, pushed) are the shim's, any beyond the runtime's (they came
       while the stack was full; the runtime keeps them until they are popped). */
    unsigned pushed;
    struct pushed_config {
        dim3 grid, block;
        size_t shared_mem;
        cudaStream_t stream;
    } entries[LAUNCH_CONFIG_DEPTH];
};

extern __thread struct launch_config_stack launch_configs __attribute__((tls_model("initial-exec")));

/* A push with one pushed already (a launch inside a launch's arguments): kept deeper, or given to the runtime. */
cudaError_t launch_config_push_deeper(dim3 grid, dim3 block, size_t shared_mem, cudaStream_t stream);

/* A pop with other than one pushed: the deeper entry, or the runtime's (false: forward the pop). */
bool launch_config_pop_deeper(dim3 *grid, dim3 *block, size_t *shared_mem, void *stream);

/* Keeps the configuration a <<<>>> expression pushes; cudaSuccess (0: launch).  Inline for the first entry. */
static inline cudaError_t launch_config_push(dim3 grid, dim3 block, size_t shared_mem, cudaStream_t stream)
{
    struct launch_config_stack *s = &launch_configs;
    if (__builtin_expect(s->pushed != 0, 0))
        return launch_config_push_deeper(grid, block, shared_mem, stream);
    s->pushed = 1;
    s->entries[0].grid = grid;
    s->entries[0].block = block;
    s->entries[0].shared_mem = shared_mem;
    s->entries[0].stream = stream;
    return cudaSuccess;
}

/* Hands the kernel's stub the configuration pushed last; false if the runtime holds it (forward the pop). */
static inline bool launch_config_pop(dim3 *grid, dim3 *block, size_t *shared_mem, void *stream)
{
    struct launch_config_stack *s = &launch_configs;
    if (__builtin_expect(s->pushed != 1, 0))
        return launch_config_pop_deeper(grid, block, shared_mem, stream);
    s->pushed = 0;
    *grid = s->entries[0].grid;
    *block = s->entries[0].block;
    *shared_mem = s->entries[0].shared_mem;
    *(cudaStream_t *)stream = s->entries[0].stream;
    return true;
}

#endif
