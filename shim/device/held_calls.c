/* SPDX-License-Identifier: MIT */
/* Calls held back or recorded by the engine: their descriptions and argument bytes. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "launch_attributes.h"
#include "launch_attrs.h"
#include "node_kinds.h"
#include "held_calls.h"

/* Empties the list, keeping its memory. */
void held_reset(struct held_list *list)
{
    list->count = 0;
    list->arena_used = 0;
    list->differ_graph = NULL;
    list->differ_count = 0;
}

/* Frees the list's memory. */
void held_free(struct held_list *list)
{
    free(list->calls);
    free(list->arena);
    free(list->differ);
    memset(list, 0, sizeof *list);
}

/* Grows the arena to hold at least `needed` bytes; false if memory ran out. */
static bool __attribute__((noinline)) arena_grow(struct held_list *list, size_t needed)
{
    size_t capacity = list->arena_capacity ? list->arena_capacity : 4096;
    while (capacity < needed)
        capacity *= 2;
    unsigned char *grown = realloc(list->arena, capacity);
    if (grown == NULL)
        return false;
    list->arena = grown;
    list->arena_capacity = capacity;
    return true;
}

/* Makes room for n positions in the list of calls that differ; false if memory ran out. */
bool held_differ_reserve(struct held_list *list, unsigned n)
{
    if (n <= list->differ_capacity)
        return true;
    unsigned *grown = realloc(list->differ, sizeof *grown * n);
    if (grown == NULL)
        return false;
    list->differ = grown;
    list->differ_capacity = n;
    return true;
}

/* Reserves n bytes of arena, 16-byte aligned; returns their offset or -1 (see held_calls.h). */
long held_arena_take(struct held_list *list, size_t n)
{
    size_t offset = align16(list->arena_used);
    if (__builtin_expect(offset + n > list->arena_capacity || list->arena == NULL, 0) &&
        !arena_grow(list, offset + n))
        return -1;
    list->arena_used = offset + n;
    return (long)offset;
}

/* The staging a sequence's copies from pageable memory take at least: 16 bytes each (a signature has no size). */
size_t sigs_pageable_bytes(const struct call_sig *sigs, unsigned count)
{
    size_t total = 0;
    for (unsigned i = 0; i < count; i++)
        if (((sigs[i].copy_kind >> 8) & 0xf) == MEMORY_PAGEABLE)
            total += align16(sigs[i].bytes);
    return total;
}

/*
 * A launch's attributes as a signature's flags: 0 for none, else a hash of
 * every id and the bytes of its value that mean something (FNV-1a): the
 * rest of the union holds whatever the program's memory held.
 */
uint32_t launch_attrs_hash(const struct call *launch)
{
    const CUlaunchAttribute *attrs = launch->attrs;
    uint32_t h = 2166136261u;
    for (unsigned i = 0; i < launch->num_attrs; i++) {
        const unsigned char *bytes = (const unsigned char *)&attrs[i].value;
        h = (h ^ (uint32_t)attrs[i].id) * 16777619u;
        for (size_t k = 0; k < launch_attr_value_bytes((unsigned)attrs[i].id); k++)
            h = (h ^ bytes[k]) * 16777619u;
    }
    return h ? h : 1;
}

/* How a launch made through api names its kernel. */
enum kernel_handle kernel_handle_of(enum hook_id api)
{
    if (call_api_is_driver(api))
        return KERNEL_BY_DRIVER;
    return api == HOOK_ID___cudaLaunchKernel || api == HOOK_ID___cudaLaunchKernel_ptsz ? KERNEL_BY_RT_KERNEL
                                                                                        : KERNEL_BY_STUB;
}

/* Fills argv with pointers to each parameter of a recorded launch. */
void held_kernel_argv(const struct held_list *list, const struct held_call *r, void **argv)
{
    for (unsigned i = 0; i < r->layout->count; i++)
        argv[i] = held_bytes(list, r) + r->layout->offset[i];
}
