/* The <<<>>> call configuration, kept by the shim in auto mode instead of the runtime. */
#include "config.h"

#include "launch_config.h"
#include "runtime.h"

/*
 * A <<<>>> launch is two runtime calls before the launch itself: the launch
 * expression pushes the configuration, the kernel's host stub pops it and
 * passes it on explicitly (__cudaLaunchKernel or cudaLaunchKernel).  The
 * runtime uses the pushed value for nothing else, so in auto mode the shim
 * keeps it itself: a replayed launch then costs no runtime call at all
 * (measured on the H200: the pair costs about 85 ns, a fifth of a held-back
 * launch).  A stack, because a kernel's arguments may launch kernels too.
 */
#define CONFIG_DEPTH 16

struct pushed_config {
    dim3 grid, block;
    size_t shared_mem;
    cudaStream_t stream;
};

static __thread struct pushed_config stack[CONFIG_DEPTH] __attribute__((tls_model("initial-exec")));
static __thread unsigned depth __attribute__((tls_model("initial-exec")));
static __thread unsigned forwarded_above __attribute__((tls_model("initial-exec"))); /* pushes the runtime holds */

/* Keeps the configuration a <<<>>> expression pushes; cudaSuccess (0: launch). */
cudaError_t launch_config_push(const struct call *push)
{
    if (depth == CONFIG_DEPTH || forwarded_above) {
        forwarded_above++;
        return REAL_CALL(__cudaPushCallConfiguration, push->grid, push->block, push->shared_mem,
                         push->config_stream);
    }
    stack[depth++] = (struct pushed_config){push->grid, push->block, push->shared_mem, push->config_stream};
    return cudaSuccess;
}

/* Hands the kernel's stub the configuration pushed last; false if the runtime holds it (forward the pop). */
bool launch_config_pop(const struct call *pop, cudaError_t *result)
{
    if (forwarded_above) {
        forwarded_above--;
        return false;
    }
    if (depth == 0)
        return false; /* pushed before the shim was in auto mode, or by someone else: the runtime's */
    const struct pushed_config *c = &stack[--depth];
    *pop->grid_out = c->grid;
    *pop->block_out = c->block;
    *pop->shared_mem_out = c->shared_mem;
    *(cudaStream_t *)pop->stream_out = c->stream;
    *result = cudaSuccess;
    return true;
}
