/* k_empty: does nothing (GPU version). */
#include "kernels.h"

KERNEL void k_empty(void)
{
}
