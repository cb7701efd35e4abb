/* SPDX-License-Identifier: MIT */
/* standin/util.c: allocation helpers of the stand-in. */
#include <stdio.h>
#include <stdlib.h>

#include "standin.h"

/* Aborts: the stand-in has no way to report its own allocation failure. */
static void out_of_memory(void)
{
    fputs("standin: out of host memory\n", stderr);
    abort();
}

/* malloc that aborts on failure. */
void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        out_of_memory();
    return p;
}

/* calloc that aborts on failure. */
void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        out_of_memory();
    return p;
}

/* realloc that aborts on failure. */
void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p)
        out_of_memory();
    return p;
}

/* Appends p to a growable pointer array. */
void ptr_push(void ***arr, size_t *n, size_t *cap, void *p)
{
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 8;
        *arr = xrealloc(*arr, *cap * sizeof **arr);
    }
    (*arr)[(*n)++] = p;
}
