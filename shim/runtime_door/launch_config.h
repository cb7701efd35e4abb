/* SPDX-License-Identifier: MIT */
/* The <<<>>> call configuration, kept by the shim in auto mode instead of the runtime. */
#ifndef REPRISE_LAUNCH_CONFIG_H
#define REPRISE_LAUNCH_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "call.h"

/*
 * A <<<>>> launch is two runtime calls before the launch itself: the launch
 * expression pushes the configuration, the kernel's host stub pops it and
 * passes it on explicitly (__cudaLaunchKernel or cudaLaunchKernel).  The
 * runtime uses the pushed value for nothing else, so in auto mode the shim
 * keeps it itself: a replayed launch then costs no runtime call at all
 * (measured on the H200: the pair costs about 85 ns, a fifth of a held-back
 * launch).  A stack, because a kernel's arguments may launch kernels too.
 * Push and pop are inline in the wrappers: a few stores and loads each,
 * with nothing else on their path (LAUNCH_CONFIG_SLOW).
 */
#define LAUNCH_CONFIG_DEPTH 16

/*
 * Set in a thread's pushed count until one of its pushes or pops reaches
 * the wrapper's slow side while the door is fast (engine_door_fast), and
 * for good outside auto mode and when counted: the inline push and pop
 * then find no count they take, and the slow side decides (forward, count,
 * or clear the flag), so that they test nothing else.
 */
#define LAUNCH_CONFIG_SLOW 0x80000000u

/* One thread's pushed configurations. */
struct launch_config_stack {
    /* Pushes made and not popped yet (with LAUNCH_CONFIG_SLOW, above): entries[0, pushed) are the shim's, any
       beyond the runtime's (they came while the stack was full; the runtime keeps them until they are popped). */
    unsigned pushed;
    struct pushed_config {
        dim3 grid, block;
        size_t shared_mem;
        cudaStream_t stream;
    } entries[LAUNCH_CONFIG_DEPTH];
};

extern __thread struct launch_config_stack launch_configs __attribute__((tls_model("initial-exec")));

/*
 * A push with one pushed already (a launch inside a launch's arguments), or
 * the flag set: kept deeper, or given to the runtime.  This and the pop
 * below first clear the flag if the door is fast (engine_door_fast); while
 * it is not, only auto mode's counted calls come here, and the flag stays.
 */
cudaError_t launch_config_push_deeper(dim3 grid, dim3 block, size_t shared_mem, cudaStream_t stream);

/* A pop with other than one pushed, or the flag set: the deeper entry, or the runtime's (false: forward the pop). */
bool launch_config_pop_deeper(dim3 *grid, dim3 *block, size_t *shared_mem, void *stream);

/* Copies a dim3 as 8 bytes and 4, as it travels in registers: GCC would otherwise gather it into vectors. */
static inline __attribute__((always_inline)) void launch_config_copy_dim3(dim3 *to, const dim3 *from)
{
    uint64_t xy;
    __builtin_memcpy(&xy, from, 8);
    __builtin_memcpy(to, &xy, 8);
    to->z = from->z;
}

/* Keeps the configuration of the first push (none pushed, no flag) inline; false: it was not taken. */
static inline __attribute__((always_inline)) bool launch_config_push_first(dim3 grid, dim3 block, size_t shared_mem,
                                                                          cudaStream_t stream)
{
    struct launch_config_stack *s = &launch_configs;
    if (__builtin_expect(s->pushed != 0, 0))
        return false;
    s->pushed = 1;
    launch_config_copy_dim3(&s->entries[0].grid, &grid);
    launch_config_copy_dim3(&s->entries[0].block, &block);
    s->entries[0].shared_mem = shared_mem;
    s->entries[0].stream = stream;
    return true;
}

/* Hands the kernel's stub the first entry inline (one pushed, no flag); false: it was not taken. */
static inline __attribute__((always_inline)) bool launch_config_pop_first(dim3 *grid, dim3 *block, size_t *shared_mem,
                                                                         void *stream)
{
    struct launch_config_stack *s = &launch_configs;
    if (__builtin_expect(s->pushed != 1, 0))
        return false;
    s->pushed = 0;
    launch_config_copy_dim3(grid, &s->entries[0].grid);
    launch_config_copy_dim3(block, &s->entries[0].block);
    *shared_mem = s->entries[0].shared_mem;
    *(cudaStream_t *)stream = s->entries[0].stream;
    return true;
}

#endif
