/* SPDX-License-Identifier: MIT */
/* k_apply_coef: CPU twin of kernels/k_apply_coef.cu; defines k_coef. */
#include "cpu_kernel.h"

static float k_coef[4];

/* The symbol address of k_coef, for cudaMemcpyToSymbol. */
const void *k_coef_symbol(void)
{
    return (const void *)k_coef;
}

/* Registers k_coef as a device symbol of the stand-in. */
__attribute__((constructor)) static void k_coef_register(void)
{
    standin_register_symbol(k_coef, sizeof(k_coef), "k_coef");
}

/* y[i] = y[i] * k_coef[i % 4] */
void k_apply_coef(float *y, int n)
{
    CPU_BLOCK_BEGIN;
    FOR_EACH_THREAD {
        int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
        if (i < n)
            y[i] = y[i] * k_coef[i % 4];
    }
}
CPU_KERNEL_2(k_apply_coef, float *, int)
