/* SPDX-License-Identifier: MIT */
/* The shim's global state: the options and the mode, set once by init.c and read by every layer. */
#include "config.h"

#include "settings.h"

struct options shim_options;
bool shim_observing;
bool shim_counting;
bool shim_auto;
atomic_bool shim_looking;
