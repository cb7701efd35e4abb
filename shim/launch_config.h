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
    struct pushed_config {
        dim3 grid, block;
        size_t shared_mem;
        cudaStream_t stream;
    } entries[LAUNCH_CONFIG_DEPTH];
    unsigned depth;
    unsigned forwarded_above; /* pushes the runtime holds, made while the stack was full */
};

extern __thread struct launch_config_stack launch_configs __attribute__((tls_model("initial-exec")));

/* Hands a push to the runtime (the stack is full, or the runtime holds pushes above it). */
cudaError_t launch_config_push_forward(const struct call *push);

/* Keeps the configuration a <<<>>> expression pushes; cudaSuccess (0: launch). */
static inline cudaError_t launch_config_push(const struct call *push)
{
    struct launch_config_stack *s = &launch_configs;
    if (__builtin_expect(s->depth == LAUNCH_CONFIG_DEPTH || s->forwarded_above, 0))
        return launch_config_push_forward(push);
    struct pushed_config *c = &s->entries[s->depth++];
    c->grid = push->grid;
    c->block = push->block;
    c->shared_mem = push->shared_mem;
    c->stream = push->config_stream;
    return cudaSuccess;
}

/* Hands the kernel's stub the configuration pushed last; false if the runtime holds it (forward the pop). */
static inline bool launch_config_pop(const struct call *pop, cudaError_t *result)
{
    struct launch_config_stack *s = &launch_configs;
    if (__builtin_expect(s->forwarded_above, 0)) {
        s->forwarded_above--;
        return false;
    }
    if (__builtin_expect(s->depth == 0, 0))
        return false; /* pushed before the shim was in auto mode, or by someone else: the runtime's */
    const struct pushed_config *c = &s->entries[--s->depth];
    *pop->grid_out = c->grid;
    *pop->block_out = c->block;
    *pop->shared_mem_out = c->shared_mem;
    *(cudaStream_t *)pop->stream_out = c->stream;
    *result = cudaSuccess;
    return true;
}

#endif
