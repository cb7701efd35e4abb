/* SPDX-License-Identifier: MIT */
/* Which object made a driver call, as far as the engine cares: a communication library (NCCL, NVSHMEM) or not. */
#ifndef REPRISE_CALLING_OBJECT_H
#define REPRISE_CALLING_OBJECT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define CALLING_OBJECTS_MAX 128

/* One object's executable text and what it is. */
struct calling_object {
    uintptr_t lo, hi;
    bool communication;
};

extern struct calling_object calling_objects[CALLING_OBJECTS_MAX];
extern atomic_uint calling_object_count;

/* Finds (and classifies, logging a communication library once) the object holding a; false if it cannot. */
bool calling_object_learn(uintptr_t a, bool *communication);

/*
 * Whether a driver call from return address a comes from a communication
 * library, whose work is never held back.  A few compares over the objects
 * met so far; the first call from a new object looks it up.
 */
static inline __attribute__((always_inline)) bool calling_object_is_communication(const void *return_address)
{
    uintptr_t a = (uintptr_t)return_address;
    unsigned n = atomic_load_explicit(&calling_object_count, memory_order_acquire);
    for (unsigned i = 0; i < n; i++)
        if (a - calling_objects[i].lo < calling_objects[i].hi - calling_objects[i].lo)
            return calling_objects[i].communication;
    bool communication = false;
    if (__builtin_expect(n == CALLING_OBJECTS_MAX, 0))
        return false; /* every slot taken (calling_object_learn said so): no lookup per call */
    return calling_object_learn(a, &communication) && communication;
}

#endif
