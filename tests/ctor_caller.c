/* SPDX-License-Identifier: MIT */
/* A library whose constructor calls the runtime before main, as CUDA libraries and PyTorch do. */
#include "config.h"

#include "hooks.h"

int ctor_result = -1;

/* Runs at load time, possibly before the shim's own constructor. */
__attribute__((constructor)) static void call_runtime_early(void)
{
    ctor_result = cudaStreamQuery(NULL);
}
