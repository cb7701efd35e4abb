/* SPDX-License-Identifier: MIT */
/* A call's signature: what must be the same for two calls to be the same graph node. */
#include "config.h"

#include "signature.h"

/* One step of a 64-bit mix (splitmix64's finaliser). */
static inline uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

/* A 64-bit hash of a signature (never 0). */
uint64_t sig_hash(const struct call_sig *sig)
{
    uint64_t h = mix64(((uint64_t)sig->api << 32) ^ sig->shared_mem);
    h = mix64(h ^ sig->stream);
    h = mix64(h ^ sig->target);
    h = mix64(h ^ (((uint64_t)sig->grid[0] << 32) | sig->grid[1]));
    h = mix64(h ^ (((uint64_t)sig->grid[2] << 32) | sig->block[0]));
    h = mix64(h ^ (((uint64_t)sig->block[1] << 32) | sig->block[2]));
    h = mix64(h ^ sig->bytes);
    h = mix64(h ^ (((uint64_t)sig->copy_kind << 32) | sig->flags));
    return h ? h : 1;
}
