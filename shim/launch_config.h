/* The <<<>>> call configuration, kept by the shim in auto mode instead of the runtime. */
#ifndef REPRISE_LAUNCH_CONFIG_H
#define REPRISE_LAUNCH_CONFIG_H

#include <stdbool.h>

#include "call.h"

/* Keeps the configuration a <<<>>> expression pushes; cudaSuccess (0: launch). */
cudaError_t launch_config_push(const struct call *push);

/* Hands the kernel's stub the configuration pushed last; false if the runtime holds it (forward the pop). */
bool launch_config_pop(const struct call *pop, cudaError_t *result);

#endif
