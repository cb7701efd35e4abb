/* Each kernel's parameter layout, asked of the runtime once and cached. */
#ifndef REPRISE_KERNEL_PARAMS_H
#define REPRISE_KERNEL_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#define KERNEL_PARAMS_MAX 64

/* Where each parameter of a kernel lies in its packed parameter block. */
struct kernel_params {
    const void *func;
    unsigned count;
    uint32_t total;                   /* bytes of the packed block */
    uint32_t offset[KERNEL_PARAMS_MAX];
    uint32_t size[KERNEL_PARAMS_MAX];
};

/* The layout of func's parameters, or NULL if the runtime cannot tell (too many, or an error). */
const struct kernel_params *kernel_params_of(const void *func);

/* Frees the cache (at exit). */
void kernel_params_clear(void);

#endif
