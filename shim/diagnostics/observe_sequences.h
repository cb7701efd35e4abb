/* SPDX-License-Identifier: MIT */
/* Observe mode's sequences: each thread's node calls between boundaries, compared with their neighbours. */
#ifndef REPRISE_OBSERVE_SEQUENCES_H
#define REPRISE_OBSERVE_SEQUENCES_H

#include <stdint.h>

#include "call.h"
#include "neighbours.h"

/*
 * How a difference is put in words (names of kernels and streams): the
 * process sets it (init.c: shim/device/call_words.c's), since this layer
 * cannot ask the driver.  Unset, differences go unnamed.
 */
void observe_set_namer(void (*namer)(const struct sig_difference *d, struct difference_words *w));

/*
 * Observe mode: a call through api (a hook id, or CALL_API_DRIVER's) of
 * kind on stream, running target (a kernel, host function or event, as
 * call.h's call_target says; 0: unknown).  A node call joins its thread's
 * sequence; a boundary (a sync, an allocation, a query, anything that
 * cannot be a node) ends it, which
 * is then compared with its neighbour: as auto's engine does, by function,
 * stream and target only, no copies' memory looked up.  Allocates nothing
 * but at a sequence's end, when its buffer grows.
 */
void observe_sequence_call(uint32_t api, enum call_kind kind, cudaStream_t stream, uint64_t target);

/* Every thread's neighbouring sequences compared so far, those of threads that exited included. */
void observe_no_repeat(struct no_repeat *out);

#endif
