/* SPDX-License-Identifier: MIT */
/*
 * standin/standin_kernel.h: the interface between the CPU stand-in for
 * the CUDA runtime and the CPU twins of the test kernels (kernels/cpu/).
 *
 * A CPU twin is an ordinary C function with the kernel's name and parameter
 * list. A constructor registers it by address (the same address a program
 * passes to cudaLaunchKernel), with a trampoline that unpacks the argument
 * array and the size and alignment of each parameter (for argument copies
 * and cudaFuncGetParamInfo). The stand-in calls the trampoline once per
 * block; the twin reads its block's indices from standin_block() and loops
 * over the block's threads itself, so __syncthreads() is the boundary
 * between two such loops and __shared__ memory is a local array.
 * cudaGridDependencySynchronize() is standin_grid_dependency_sync(): a twin
 * that a program may launch as a programmatic dependent launch calls it
 * before it reads what the kernel before it wrote.
 */
#ifndef STANDIN_KERNEL_H
#define STANDIN_KERNEL_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#define STANDIN_MAX_PARAMS 16

/* One kernel's CPU twin, as registered with the stand-in. */
struct standin_kernel {
    const char *name;
    const void *func;               /* the address programs launch with */
    void (*run_block)(void **args); /* runs one block with these arguments */
    unsigned nparams;
    size_t size[STANDIN_MAX_PARAMS];
    size_t align[STANDIN_MAX_PARAMS];
};

/* Where the block being run sits in its launch. */
struct standin_block {
    dim3 gridDim, blockDim, blockIdx;
    void *dynamic_shared;           /* sharedMem bytes, zeroed per block */
    size_t dynamic_shared_bytes;
};

/* Registers a CPU twin (called from constructors, before main). */
void standin_register_kernel(const struct standin_kernel *k);
/* Registers a __device__ variable's CPU twin for cudaMemcpy{To,From}Symbol. */
void standin_register_symbol(const void *addr, size_t size, const char *name);
/* The block being run; valid only inside run_block. */
const struct standin_block *standin_block(void);
/* Nonzero when [p, p + n) lies inside one live device or managed allocation. */
int standin_device_range_ok(const void *p, size_t n);
/* Reports a device fault (e.g. cudaErrorIllegalAddress): a sticky error. */
void standin_fault(cudaError_t err);
/* cudaGridDependencySynchronize(): returns once the kernels the running launch depends on programmatically (a
 * programmatic dependent launch's previous kernel, a programmatic edge's) have completed; at once for any other.
 * Before it, such a launch may run before them (docs/standin.md, "Programmatic dependent launch"). */
void standin_grid_dependency_sync(void);
/* cudaTriggerProgrammaticLaunchCompletion(): accepted; the dependents may start before it anyway. */
void standin_trigger_launch_completion(void);

#endif
