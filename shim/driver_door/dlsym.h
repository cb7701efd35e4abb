/* SPDX-License-Identifier: MIT */
/* dlsym, interposed: asking libcuda for cuGetProcAddress or a wrapped driver function gets the shim's. */
#ifndef REPRISE_DLSYM_H
#define REPRISE_DLSYM_H

#include <stdbool.h>

/* Whether programs' dlsym calls reach the shim's: no object before it in the global scope defines dlsym. */
bool dlsym_interposed(char *who, unsigned who_len);

#endif
