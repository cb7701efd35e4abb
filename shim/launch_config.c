/* The <<<>>> call configuration, kept by the shim in auto mode instead of the runtime (see launch_config.h). */
#include "config.h"

#include "launch_config.h"
#include "runtime.h"

__thread struct launch_config_stack launch_configs __attribute__((tls_model("initial-exec")));

/* Hands a push to the runtime (the stack is full). */
cudaError_t launch_config_push_forward(dim3 grid, dim3 block, size_t shared_mem, cudaStream_t stream)
{
    launch_configs.pushed++;
    return REAL_CALL(__cudaPushCallConfiguration, grid, block, shared_mem, stream);
}
