/* SPDX-License-Identifier: MIT */
/*
 * The shim's global state: configuration (settings.c) and initialisation
 * (init.c).  shim_init_slow is the one call that runs up the layers: every
 * front door starts the initialisation, which init.c, above them all, does.
 */
#ifndef REPRISE_SETTINGS_H
#define REPRISE_SETTINGS_H

#include <stdatomic.h>
#include <stdbool.h>

#include "options.h"

extern struct options shim_options;
extern atomic_bool shim_ready;
extern bool shim_observing; /* mode is observe or auto: look at what passes */
extern bool shim_counting;  /* count what passes: observe, or auto with a summary or trace asked for */
extern bool shim_auto;      /* mode is auto: graph repeated work */
/* The front doors look at calls: shim_observing, except while auto mode steps aside (the governor), when they forward
   every call as in off mode.  Read relaxed at every call; written by the engine's governor. */
extern atomic_bool shim_looking;

/* Whether the front doors look at calls now (shim_looking): one relaxed load. */
static inline bool shim_looks(void)
{
    return atomic_load_explicit(&shim_looking, memory_order_relaxed);
}

/* Initialises once; returns at once when called again or recursively during init. */
void shim_init_slow(void);

/* Makes sure the shim is initialised; the common case is one load. */
static inline void shim_enter(void)
{
    if (__builtin_expect(!atomic_load_explicit(&shim_ready, memory_order_acquire), 0))
        shim_init_slow();
}

#endif
