/* SPDX-License-Identifier: MIT */
/* k_poke: *p = v from thread 0 of block 0 (GPU version); a bad p faults. */
#include "kernels.h"

/* *p = v from one thread */
KERNEL void k_poke(int *p, int v)
{
    if (blockIdx.x == 0 && threadIdx.x == 0)
        *p = v;
}
