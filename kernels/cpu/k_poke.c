/* SPDX-License-Identifier: MIT */
/*
 * k_poke: CPU twin of kernels/k_poke.cu. Where the GPU would take an
 * illegal-address fault, the twin asks the stand-in whether p is device
 * memory and reports the same fault instead of writing.
 */
#include "cpu_kernel.h"

/* *p = v from thread 0 of block 0 */
void k_poke(int *p, int v)
{
    CPU_BLOCK_BEGIN;
    if (blockIdx.x != 0)
        return;
    if (!standin_device_range_ok(p, sizeof *p)) {
        standin_fault(cudaErrorIllegalAddress);
        return;
    }
    /* Atomic: the host may spin on it with no call (mapped memory) while this thread, the device, runs. */
    __atomic_store_n(p, v, __ATOMIC_RELEASE);
}
CPU_KERNEL_2(k_poke, int *, int)
