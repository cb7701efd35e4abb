/* SPDX-License-Identifier: MIT */
/* A call's signature: what must be the same for two calls to be the same graph node. */
#ifndef REPRISE_SIGNATURE_H
#define REPRISE_SIGNATURE_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Everything that fixes a node's kind and place, and nothing that a graph's
 * node can take anew: argument bytes, pointers, memset values, a launch's
 * grid, block and shared memory or a copy's size, and which event an event
 * call names (patched into the graph) stay out; how that event relates to
 * the sequence's earlier event calls stays in (policy/event_refs.h).  The shim fills it from the intercepted call
 * (call_signature, shim/device/held_calls.c); grid, block and shared_mem are
 * zero there, bytes is whether a copy's or set's size is not zero.
 */
struct call_sig {
    uint64_t stream;    /* the stream handle */
    uint64_t target;    /* kernel or host function: what runs; an event call's reference (policy/event_refs.h) */
    uint64_t bytes;     /* copy or set size */
    uint32_t api;       /* hook id */
    uint32_t shared_mem;
    uint32_t grid[3];
    uint32_t block[3];
    uint32_t copy_kind; /* cudaMemcpyKind as resolved by the shim */
    uint32_t flags;
};  /* no padding: equality is a memcmp */

/* A 64-bit hash of a signature (never 0). */
uint64_t sig_hash(const struct call_sig *sig);

/* Whether two signatures are the same: eight word compares, inline because every held-back call makes one. */
static inline bool sig_equal(const struct call_sig *a, const struct call_sig *b)
{
    _Static_assert(sizeof(struct call_sig) == 64, "struct call_sig must have no padding");
    uint64_t wa[8], wb[8], diff = 0;
    __builtin_memcpy(wa, a, sizeof wa);
    __builtin_memcpy(wb, b, sizeof wb);
    for (int i = 0; i < 8; i++)
        diff |= wa[i] ^ wb[i];
    return diff == 0;
}

/* Mixes one signature hash into a sequence hash. */
static inline uint64_t sig_hash_extend(uint64_t seq, uint64_t h)
{
    seq ^= h + 0x9e3779b97f4a7c15ULL + (seq << 6) + (seq >> 2);
    return seq;
}

#endif
