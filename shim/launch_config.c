/* The <<<>>> call configuration, kept by the shim in auto mode instead of the runtime (see launch_config.h). */
#include "config.h"

#include "launch_config.h"
#include "runtime.h"

__thread struct launch_config_stack launch_configs __attribute__((tls_model("initial-exec")));

/* Hands a push to the runtime (the stack is full, or the runtime holds pushes above it). */
cudaError_t launch_config_push_forward(const struct call *push)
{
    launch_configs.forwarded_above++;
    return REAL_CALL(__cudaPushCallConfiguration, push->grid, push->block, push->shared_mem, push->config_stream);
}
