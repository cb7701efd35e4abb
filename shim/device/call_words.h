/* SPDX-License-Identifier: MIT */
/* A difference between two calls in words: the function, the kernel's name, the stream, what differs. */
#ifndef REPRISE_CALL_WORDS_H
#define REPRISE_CALL_WORDS_H

#include "neighbours.h"

/*
 * Fills w for difference d: the function called at its position (the
 * earlier sequence's call, or the later's where the earlier ended) and its
 * kernel's name, what differs and both values, kernels and streams named
 * as the driver knows them.  Asks the driver (a kernel's name, a stream's
 * id): call it while they live, when the difference is found.
 */
void difference_in_words(const struct sig_difference *d, struct difference_words *w);

/* The name of the kernel a launch's signature names, or NULL (not a launch, or the driver cannot tell). */
const char *call_sig_kernel_name(const struct call_sig *sig);

#endif
