/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_random.h: what the random program generators share (one
 * translation unit each): a seeded splitmix64 generator, never rand(), so a
 * seed gives the same program everywhere, the host data they fill, and the
 * hash of results that sees every NaN as one.
 * Generation runs on one thread; the state is the including file's own.
 */
#ifndef REPRISE_TESTS_FUZZ_RANDOM_H
#define REPRISE_TESTS_FUZZ_RANDOM_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static uint64_t rng;

/* splitmix64. */
static inline uint64_t rnd(void)
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in 0..n-1. */
static inline unsigned below(unsigned n)
{
    return (unsigned)(rnd() % n);
}

/* True with the given percentage. */
static inline int chance(unsigned percent)
{
    return below(100) < percent;
}

/*
 * A second generator, for the draws of operation kinds added later (issue
 * 12's stress kinds): a seed that draws none of them keeps the program its
 * first generator made before they existed. Seed it with rng2 = ....
 */
static uint64_t rng2;

/* Uniform in 0..n-1, from the generator whose state is *state (the first one's is left as it was). */
static inline unsigned below_from(uint64_t *state, unsigned n)
{
    uint64_t first = rng;
    rng = *state;
    unsigned r = below(n);
    *state = rng;
    rng = first;
    return r;
}

/* Uniform in 0..n-1, from the second generator. */
static inline unsigned below2(unsigned n)
{
    return below_from(&rng2, n);
}

/* True with the given percentage, from the second generator. */
static inline int chance2(unsigned percent)
{
    return below2(100) < percent;
}

/* A random range of floats inside a buffer of n: offset and length (at least 1). */
static inline void random_range(int n, int *off, int *len)
{
    *len = 1 + (int)below((unsigned)n);
    *off = (int)below((unsigned)(n - *len + 1));
}

/* Fills host memory with small exact values (multiples of 1/16) that depend on a key. */
static inline void fill_host(float *p, int n, unsigned key)
{
    for (int i = 0; i < n; i++)
        p[i] = (float)((int)((key * 2654435761u + (unsigned)i * 40503u) >> 20 & 63) - 32) * 0.0625f;
}

/*
 * FNV-1a over bytes of floats (a multiple of 4), every NaN hashed as the
 * same one (0x7fffffff): the GPU makes canonical NaNs where x86 makes others
 * and propagates payloads, so only that keeps a program's output the same on
 * the stand-in and on a GPU. Without NaNs it equals fnv1a over the bytes.
 */
static inline uint64_t hash_floats(const void *p, size_t bytes)
{
    const unsigned char *b = (const unsigned char *)p;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i + 4 <= bytes; i += 4) {
        uint32_t w;
        memcpy(&w, b + i, 4);
        if ((w & 0x7f800000u) == 0x7f800000u && (w & 0x007fffffu))
            w = 0x7fffffffu;
        unsigned char c[4];
        memcpy(c, &w, 4);
        for (int j = 0; j < 4; j++) {
            h ^= c[j];
            h *= 1099511628211ull;
        }
    }
    return h;
}

/* Prints "label: h=<hash>" for bytes of floats, NaNs alike (hash_floats). */
static inline void report_floats(const char *label, const void *p, size_t bytes)
{
    printf("%s: h=%016llx\n", label, (unsigned long long)hash_floats(p, bytes));
}

#endif
