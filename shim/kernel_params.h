/* Each kernel's driver function and parameter layout, asked of libcuda once and cached. */
#ifndef REPRISE_KERNEL_PARAMS_H
#define REPRISE_KERNEL_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "driver_api.h"

#define KERNEL_PARAMS_MAX 64

/* How a launch names its kernel. */
enum kernel_handle {
    KERNEL_BY_STUB,     /* the runtime's cudaLaunchKernel: a host stub (or a cudaKernel_t cast to one) */
    KERNEL_BY_RT_KERNEL, /* the runtime's __cudaLaunchKernel: a cudaKernel_t, which is a CUkernel */
    KERNEL_BY_DRIVER,   /* cuLaunchKernel: a CUfunction, or a CUkernel cast to one */
};

/* What a graph's kernel node needs of a kernel: the function, and where each parameter lies in its block. */
struct kernel_params {
    const void *func;                 /* the handle the launch named */
    CUfunction function;              /* what a kernel node runs, in context */
    CUcontext context;                /* current when the function was found: a graph elsewhere cannot use it */
    unsigned count;
    uint32_t total;                   /* bytes of the packed block */
    uint32_t offset[KERNEL_PARAMS_MAX];
    uint32_t size[KERNEL_PARAMS_MAX];
};

/* The layout of func's parameters (named as `how` says), or NULL if libcuda cannot tell (too many, or an error). */
const struct kernel_params *kernel_params_of(const void *func, enum kernel_handle how);

/* The kernel's name (NULL if unknown), for REPRISE_EXCLUDE_KERNELS. */
const char *kernel_name_of(const void *func, enum kernel_handle how);

/* Frees the cache (at exit). */
void kernel_params_clear(void);

#endif
