/* SPDX-License-Identifier: MIT */
/* k_empty: CPU twin of kernels/k_empty.cu. */
#include "cpu_kernel.h"

/* does nothing */
void k_empty(void)
{
}
CPU_KERNEL_0(k_empty)
