/* SPDX-License-Identifier: MIT */
/* The monotonic clock the shim times with (pace samples, observe mode, graph launches). */
#ifndef REPRISE_MONOTONIC_H
#define REPRISE_MONOTONIC_H

#include <stdint.h>
#include <time.h>

/* Now on CLOCK_MONOTONIC, in nanoseconds: read per occurrence, launch or sync, never per held-back call. */
static inline uint64_t monotonic_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

#endif
