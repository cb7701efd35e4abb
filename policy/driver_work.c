/* SPDX-License-Identifier: MIT */
/* Which CUDA driver functions submit, wait for or query stream work. */
#include "config.h"

#include <stddef.h>

#include "driver_work.h"
#include "patterns.h"

/* Whether a driver symbol (as asked of cuGetProcAddress, or as exported) belongs to a work family. */
bool driver_symbol_is_work(const char *symbol)
{
    return symbol != NULL && name_matches_any(symbol, DRIVER_WORK_PATTERNS);
}
