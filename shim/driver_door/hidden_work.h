/* SPDX-License-Identifier: MIT */
/* Whether work the shim cannot see may reach the GPU: driver entry points that escape its wrappers. */
#ifndef REPRISE_HIDDEN_WORK_H
#define REPRISE_HIDDEN_WORK_H

#include <stdbool.h>
#include <stddef.h>

/*
 * True if work the shim does not see may reach the GPU: a driver work
 * function handed out or imported without a wrapper, or a dlsym interposer
 * before the shim's; says why in who (a phrase).  Cheap when nothing was
 * loaded or unloaded since the last call.
 */
bool hidden_work_possible(char *who, size_t who_len);

#endif
