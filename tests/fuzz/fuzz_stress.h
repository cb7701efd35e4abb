/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_stress.h: what the stress kinds (issue 12) of the random
 * program generators (random_program.c, random_threads.c) run alike, apart
 * from each program's operations: a kernel's changing geometry, the invalid
 * launch's, k_big_arg's table and the host stage's host function.
 */
#ifndef REPRISE_TESTS_FUZZ_STRESS_H
#define REPRISE_TESTS_FUZZ_STRESS_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "../../kernels/kernels.h"
#include "fuzz_random.h"

/* How a kernel's launch geometry changes every `every` iterations (a cycle of three). */
enum geometry { GEO_FIXED, GEO_BLOCK, GEO_SHARED, GEO_GRID };
static const char *const geometry_names[] = {"fixed", "block", "shared", "grid"};

/* A kernel's geometry in iteration it, for one whose geometry geo changes every `every` iterations; with a
 * smaller block, a grid that covers n floats (covers_n) grows to cover them still. */
static inline void change_geometry(enum geometry geo, int every, int it, int n, int covers_n, dim3 *grid, dim3 *block,
                                   size_t *shared)
{
    int phase = (it / every) % 3;
    static const unsigned divide[] = {1, 2, 4}, more_blocks[] = {0, 1, 3};
    static const size_t dynamic[] = {0, 2048, 8192};
    switch (geo) {
    case GEO_BLOCK:
        block->x /= divide[phase];
        if (covers_n)
            grid->x = ((unsigned)n + block->x - 1) / block->x;
        break;
    case GEO_SHARED: *shared = phase ? dynamic[phase] : *shared; break;
    case GEO_GRID: grid->x += more_blocks[phase]; break;
    default: break;
    }
}

/* The invalid launch's geometry by its variant: block 2048 x 1 x 1, block 32 x 32 x 2, grid.x 0, grid.y 0. */
static inline void fault_geometry(int variant, dim3 *grid, dim3 *block)
{
    *grid = (dim3){1, 1, 1}, *block = (dim3){2048, 1, 1};
    switch (variant) {
    case 1: *block = (dim3){32, 32, 2}; break;
    case 2: grid->x = 0, block->x = 128; break;
    case 3: grid->y = 0, block->x = 128; break;
    default: break;
    }
}

/* k_big_arg's table in iteration it: filled from key, and the one word that changes every `every` iterations. */
static inline void big_arg_table(struct k_big_arg_table *table, unsigned key, int word, int every, int it)
{
    fill_host(table->w, K_BIG_ARG_WORDS, key);
    table->w[word] = (float)((it / every) % 8) * 0.25f - 1.0f;
}

/* OP_HOST_STAGE's state: pinned areas touched only by its stream's copies and its host function. */
struct stage {
    float *in, *out;
    int len, variant;
    unsigned calls;
};

/* OP_HOST_STAGE's host function: writes what the next copy reads (variant 1: from what the copy before brought). */
static inline void CUDART_CB stage_fn(void *arg)
{
    struct stage *st = arg;
    for (int j = 0; j < st->len; j++)
        st->out[j] = st->variant ? st->in[j] * 0.5f + (float)(st->calls % 8) * 0.125f
                                 : (float)((int)((st->calls * 7u + (unsigned)j * 13u) % 64u) - 32) * 0.0625f;
    st->calls++;
}

#endif
