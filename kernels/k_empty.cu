/* SPDX-License-Identifier: MIT */
/* k_empty: does nothing (GPU version). */
#include "kernels.h"

/* does nothing */
KERNEL void k_empty(void)
{
}
