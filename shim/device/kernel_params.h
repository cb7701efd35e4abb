/* SPDX-License-Identifier: MIT */
/* Each kernel's driver function and parameter layout, asked of libcuda once and cached. */
#ifndef REPRISE_KERNEL_PARAMS_H
#define REPRISE_KERNEL_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "driver_api.h"

#define KERNEL_PARAMS_MAX 64

/* How a launch names its kernel. */
enum kernel_handle {
    KERNEL_BY_STUB,     /* the runtime's cudaLaunchKernel: a host stub (or a cudaKernel_t cast to one) */
    KERNEL_BY_RT_KERNEL, /* the runtime's __cudaLaunchKernel: a cudaKernel_t, which is a CUkernel */
    KERNEL_BY_DRIVER,   /* cuLaunchKernel: a CUfunction, or a CUkernel cast to one */
};

/* What a graph's kernel node needs of a kernel: the function, and where each parameter lies in its block. */
struct kernel_params {
    const void *func;                 /* the handle the launch named */
    CUfunction function;              /* what a kernel node runs, in context */
    CUcontext context;                /* current when the function was found: a graph elsewhere cannot use it */
    CUmodule module;                  /* the module it came from, or NULL if libcuda would not say */
    CUlibrary library;                /* the library its kernel came from, or NULL if not known to be one */
    unsigned count;
    uint32_t total;                   /* bytes of the packed block */
    unsigned shape;                   /* kernel_shape_of: the fast path's copy by shape, or 0 */
    bool gapped;                      /* bytes of the block lie between parameters (padding before a pointer) */
    unsigned max_threads;             /* the most threads a block of it may have (0: not known) */
    unsigned max_dynamic_shared;      /* the most dynamic shared memory it may have, when found (0: not known) */
    const void *twin;                 /* what regions name it by (kernel_twin_of): read and moved atomically */
    uint32_t offset[KERNEL_PARAMS_MAX];
    uint32_t size[KERNEL_PARAMS_MAX];
};

/* The most parameters a layout with a shape has. */
#define KERNEL_SHAPE_PARAMS 6
/* Shapes are below this. */
#define KERNEL_SHAPES (2u << KERNEL_SHAPE_PARAMS)

/* The number of parameters of a shape. */
static inline __attribute__((always_inline)) unsigned kernel_shape_count(unsigned shape)
{
    return 31u - (unsigned)__builtin_clz(shape);
}

/* Whether parameter i of a shape has 8 bytes (else 4). */
static inline __attribute__((always_inline)) bool kernel_shape_wide(unsigned shape, unsigned i)
{
    return (shape >> i) & 1u;
}

/* Where the parameter after one that ends at end lies, wide (8 bytes) or not (4): at the next multiple of its size. */
static inline __attribute__((always_inline)) uint32_t kernel_shape_place(uint32_t end, bool wide)
{
    return wide ? (end + 7) & ~7u : end;
}

/*
 * A layout's shape: 1 << count, with bit i set where parameter i has 8
 * bytes, for at most KERNEL_SHAPE_PARAMS parameters of 4 or 8 bytes each,
 * each where kernel_shape_place puts it after the one before (pointers and
 * scalars, as a C compiler lays them out); 0 for any other.  With a constant shape, the
 * fast path's copy of the parameters has every offset and size known.
 */
unsigned kernel_shape_of(const struct kernel_params *layout);

/* The layout of func's parameters (named as `how` says), or NULL if libcuda cannot tell (too many, or an error). */
const struct kernel_params *kernel_params_of(const void *func, enum kernel_handle how);

/* Whether the driver takes a launch of layout's kernel with this geometry (CUDA's limits and the kernel's). */
bool kernel_params_launch_fits(const struct kernel_params *layout, dim3 grid, dim3 block, size_t shared_mem);

/*
 * The bytes every kernel node keeps for its parameter block in each of a
 * graph's instances, at least: a node made for one kernel may run another
 * whose block fits (kernel_node_takes), as a library switches between
 * instantiations of one template whose parameters differ (PyTorch's
 * vectorised and unrolled elementwise kernels, chosen by a tensor's
 * alignment, in a decode loop).  256 bytes hold such kernels' blocks (tens
 * of bytes) at a few hundred kilobytes for a region of a few hundred
 * launches and its instances.
 */
#define KERNEL_NODE_ARGS_ROOM 256

/* The bytes a kernel node made for layout's kernel keeps for parameter blocks (region_graph.c's instances). */
static inline uint32_t kernel_node_args_room(const struct kernel_params *layout)
{
    return layout->total > KERNEL_NODE_ARGS_ROOM ? layout->total : KERNEL_NODE_ARGS_ROOM;
}

/* Whether two kernels take the same parameters (count, offsets, sizes) in the same context. */
bool kernel_params_same_layout(const struct kernel_params *a, const struct kernel_params *b);

/*
 * Whether a graph's kernel node made for (or holding) node's kernel may run
 * launch's kernel instead: cuGraphExecKernelNodeSetParams lets the function
 * change within its context, and the node keeps room for the new block:
 * the same layout, or both blocks within KERNEL_NODE_ARGS_ROOM (so that any
 * kernel a node was given fits the room of the one it was made for).
 */
bool kernel_node_takes(const struct kernel_params *node, const struct kernel_params *launch);

/*
 * What a call's signature names a launch's kernel by: its twin, the first
 * live kernel seen of the same name, parameter layout, context and kind of
 * handle (itself when it is the first), or func itself where its layout is
 * unknown.  A library that builds its kernels at run time (cuDNN's
 * attention, one execution plan per sequence length, each loading its own
 * copy of the same kernel) launches a new handle of one kernel at every
 * size: named by its handle, every token of a decode loop would be a region
 * of its own.  Twins make them one; the node still runs the handle the
 * launch named (a function differing from the node's is patched, as a
 * kernel standing in is).
 */
static inline uint64_t kernel_twin_of(const void *func, enum kernel_handle how)
{
    const struct kernel_params *k = kernel_params_of(func, how);
    return (uint64_t)(uintptr_t)(k ? __atomic_load_n(&k->twin, __ATOMIC_RELAXED) : func);
}

/* The kernel's name (NULL if unknown), for REPRISE_EXCLUDE_KERNELS. */
const char *kernel_name_of(const void *func, enum kernel_handle how);

/* The name of the kernel whose layout this is (NULL if unknown). */
const char *kernel_params_name(const struct kernel_params *layout);

/* What takes kernels with it when it ends. */
enum kernel_owner {
    KERNELS_OF_MODULE,  /* a module unloaded (cuModuleUnload) */
    KERNELS_OF_LIBRARY, /* a library unloaded (cuLibraryUnload, cudaLibraryUnload) */
    KERNELS_ALL,        /* a context destroyed or a device reset */
};

/*
 * Forgets the layouts of the kernels that the end of owner (a CUmodule or
 * CUlibrary) takes with it, and of those whose module or library is not
 * known, so that a handle a later load gives out again is asked about anew.
 * Returns how many handles it lists in *handles (malloc'd; the caller
 * frees it): those the launches named, and the twins that name them in
 * signatures (a graph of a twin's region may hold a kernel that goes); or
 * sets *all when that list could not be made (every handle must then be
 * taken as gone).  A twin that goes hands its name to another live kernel
 * of its kind.  A forgotten layout stays readable: a recorded call or a
 * graph may still point at it (and its memory may become another kernel's
 * layout later: whoever uses a layout compares its func first).
 */
unsigned kernel_params_retire(enum kernel_owner owner, const void *handle, const void ***handles, bool *all);

/* What the layout cache holds, for the exit summary. */
struct kernel_params_counts {
    unsigned live;                    /* layouts of kernels not forgotten */
    unsigned retired_kept;            /* forgotten ones still kept (at most 64 past those reused) */
    unsigned long long retired_total; /* forgotten since the start */
    unsigned long long reused;        /* forgotten ones whose memory a new layout took */
};

/* How many layouts the cache holds (live, and forgotten but kept), and how many were forgotten and reused in all. */
void kernel_params_counts(struct kernel_params_counts *counts);

/* Frees the cache (at exit). */
void kernel_params_clear(void);

#endif
