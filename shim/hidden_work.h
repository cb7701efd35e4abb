/* Whether work the shim cannot see may reach the GPU: libraries that launch through the driver API. */
#ifndef REPRISE_HIDDEN_WORK_H
#define REPRISE_HIDDEN_WORK_H

#include <stdbool.h>
#include <stddef.h>

/*
 * True if a loaded object may submit work the shim does not see (a CUDA
 * library that reaches the driver directly, or anything linked against
 * libcuda); names the first such object in who.  Cheap when nothing was
 * loaded or unloaded since the last call.
 */
bool hidden_work_possible(char *who, size_t who_len);

#endif
