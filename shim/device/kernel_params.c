/* SPDX-License-Identifier: MIT */
/* Each kernel's driver function and parameter layout, asked of libcuda once and cached. */
#include "config.h"

#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

#include "errors.h"
#include "kernel_params.h"
#include "libcuda.h"
#include "runtime.h"

struct layout_entry {
    struct kernel_params layout;
    bool known;
    const char *name; /* asked when its layout is found; NULL if unknown */
    enum kernel_handle how;
    uint64_t twin_key; /* its twin_class's key; 0: in none (named by itself) */
    UT_hash_handle hh;
    struct layout_entry *retired_next;
};

_Static_assert(offsetof(struct layout_entry, layout) == 0, "kernel_name_of finds the entry from its layout");
_Static_assert(offsetof(struct kernel_params, func) == 0 && offsetof(struct kernel_params, function) == sizeof(void *),
               "entry_take clears everything after func");

/* Kernels of one name, parameter layout, context and kind of handle (kernel_twin_of): the first live one names all. */
struct twin_class {
    uint64_t key;
    struct layout_entry *first; /* NULL for a moment while kernel_params_retire finds another */
    bool renamed;
    UT_hash_handle hh;
};

static struct layout_entry *layouts;
static struct twin_class *twins;
/*
 * Layouts forgotten (kernel_params_retire), oldest first.  Recorded calls
 * (a slot keeps the layout its call had last) and every thread's cache may
 * still point at one, so none is freed: each compares the layout's func
 * with a launch's before using it, and a forgotten one's is RETIRED_FUNC,
 * which no launch names.  But a program that loads and unloads a module
 * at every step (cuDNN's runtime-compiled kernels, a JIT) would forget
 * layouts without end: past LAYOUTS_RETIRED_KEPT forgotten ones, the
 * oldest one's memory is the next new layout's (entry_take).  Whoever
 * still points there finds a layout then, another kernel's, which it
 * takes only for a launch of that kernel: the right one.  The cache holds
 * the layouts of the kernels loaded now, LAYOUTS_RETIRED_KEPT forgotten
 * ones, and those forgotten since the last new layout was made.
 */
static struct layout_entry *retired, *retired_last;
static unsigned retired_count;
static unsigned long long retired_total, retired_reused;
#define LAYOUTS_RETIRED_KEPT 64
/* What a forgotten layout's func becomes: no launch names it, so every cached test against it fails. */
#define RETIRED_FUNC ((const void *)&retired)
static pthread_mutex_t layouts_lock = PTHREAD_MUTEX_INITIALIZER;

#define LAYOUT_CACHE_SIZE 16
static __thread struct layout_entry *layout_cache[LAYOUT_CACHE_SIZE] __attribute__((tls_model("initial-exec")));

/* A runtime host stub's driver function (the runtime's registration knows it); NULL if none. */
static CUfunction function_of_stub(const void *stub)
{
    CUfunction f = NULL;
    struct saved_error saved;
    errors_save(&saved);
    cudaError_t err = RT_CALL(cudaGetFuncBySymbol, (cudaFunction_t *)&f, stub);
    errors_restore(&saved);
    return err == cudaSuccess ? f : NULL;
}

/* A CUkernel's function in the current context; NULL if handle is not one. */
static CUfunction function_of_kernel(const void *handle)
{
    CUfunction f = NULL;
    return DEVICE_CALL(cuKernelGetFunction, &f, (CUkernel)handle) == CUDA_SUCCESS ? f : NULL;
}

/* Parameter index i of f; loads a lazily loaded function once if it must. */
static CUresult param_info(CUfunction f, unsigned i, size_t *offset, size_t *size)
{
    CUresult err = DEVICE_CALL(cuFuncGetParamInfo, f, i, offset, size);
    if (err == CUDA_ERROR_FUNCTION_NOT_LOADED && DEVICE_CALL(cuFuncLoad, f) == CUDA_SUCCESS)
        err = DEVICE_CALL(cuFuncGetParamInfo, f, i, offset, size);
    return err;
}

/* The layout's shape (see kernel_params.h), or 0. */
unsigned kernel_shape_of(const struct kernel_params *layout)
{
    if (layout->count > KERNEL_SHAPE_PARAMS)
        return 0;
    unsigned shape = 1u << layout->count;
    for (unsigned i = 0; i < layout->count; i++) {
        if (layout->size[i] == 8)
            shape |= 1u << i;
        else if (layout->size[i] != 4)
            return 0;
    }
    uint32_t end = 0;
    for (unsigned i = 0; i < layout->count; i++) {
        uint32_t at = kernel_shape_place(end, kernel_shape_wide(shape, i));
        if (layout->offset[i] != at)
            return 0;
        end = at + layout->size[i];
    }
    return shape;
}

/* Asks libcuda for f's parameters, one index at a time until it says there are no more; false if it cannot tell. */
static bool query_layout(struct kernel_params *layout, CUfunction f)
{
    layout->function = f;
    layout->count = 0;
    layout->total = 0;
    uint32_t covered = 0;
    for (unsigned i = 0; i <= KERNEL_PARAMS_MAX; i++) {
        size_t offset = 0, size = 0;
        CUresult err = param_info(f, i, &offset, &size);
        if (err != CUDA_SUCCESS) {
            layout->shape = kernel_shape_of(layout);
            layout->gapped = covered < layout->total; /* parameters never overlap */
            return err == CUDA_ERROR_INVALID_VALUE; /* past the last parameter; anything else: it cannot tell */
        }
        if (i == KERNEL_PARAMS_MAX)
            return false; /* too many to patch */
        layout->offset[i] = (uint32_t)offset;
        layout->size[i] = (uint32_t)size;
        layout->count = i + 1;
        covered += (uint32_t)size;
        if (offset + size > layout->total)
            layout->total = (uint32_t)(offset + size);
    }
    return false;
}

/* The library of a kernel handle (a CUkernel, or a host stub the runtime knows one for); NULL if none. */
static CUlibrary library_of(const void *func, enum kernel_handle how)
{
    CUkernel kernel = NULL;
    CUlibrary library = NULL;
    if (how == KERNEL_BY_RT_KERNEL) {
        kernel = (CUkernel)func;
    } else if (how == KERNEL_BY_STUB) {
        struct saved_error saved;
        errors_save(&saved);
        if (RT_CALL(cudaGetKernel, (cudaKernel_t *)&kernel, func) != cudaSuccess)
            kernel = NULL;
        errors_restore(&saved);
    }
    /* A driver handle may be a CUfunction, which cuKernelGetLibrary must not be given: left unknown. */
    if (kernel == NULL || DEVICE_CALL(cuKernelGetLibrary, &library, kernel) != CUDA_SUCCESS)
        return NULL;
    return library;
}

/* One of a function's attributes (cuFuncGetAttribute), or 0 if libcuda will not say. */
static unsigned function_attribute(CUfunction f, CUfunction_attribute attribute)
{
    int value = 0;
    if (DEVICE_CALL(cuFuncGetAttribute, &value, attribute, f) != CUDA_SUCCESS || value < 0)
        return 0;
    return (unsigned)value;
}

/* Notes where a known layout's function (of handle func) came from (module, library if any) and its launch limits. */
static void note_owners(struct layout_entry *e, const void *func, enum kernel_handle how)
{
    if (DEVICE_CALL(cuFuncGetModule, &e->layout.module, e->layout.function) != CUDA_SUCCESS)
        e->layout.module = NULL;
    e->layout.library = library_of(func, how);
    e->layout.max_threads = function_attribute(e->layout.function, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    e->layout.max_dynamic_shared =
        function_attribute(e->layout.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
}

/*
 * Whether a launch of layout's kernel with this geometry is one the driver
 * takes: CUDA's limits on every GPU since compute capability 3.0 (grid
 * and block dimensions, 1024 threads a block) and the kernel's own (its
 * most threads a block, its most dynamic shared memory, asked again before
 * saying no: the program may have raised it with cudaFuncSetAttribute).
 * A geometry is no part of a call's signature, so a launch whose geometry
 * the driver refuses would be held back and its error lost: it passes
 * through instead, and the program gets the error from the launch itself.
 */
bool kernel_params_launch_fits(const struct kernel_params *layout, dim3 grid, dim3 block, size_t shared_mem)
{
    uint64_t threads = (uint64_t)block.x * block.y * block.z;
    if (grid.x == 0 || grid.y == 0 || grid.z == 0 || grid.x > 0x7fffffffu || grid.y > 65535 || grid.z > 65535 ||
        threads == 0 || block.x > 1024 || block.y > 1024 || block.z > 64 || threads > 1024)
        return false;
    if (layout->max_threads && threads > layout->max_threads)
        return false;
    /* Read and raised by several threads: a word, relaxed (a stale value only asks the driver again). */
    unsigned known = __atomic_load_n(&layout->max_dynamic_shared, __ATOMIC_RELAXED);
    if (shared_mem == 0 || known == 0 || shared_mem <= known)
        return true; /* 0: not known, the driver decides at the graph's update */
    unsigned now = function_attribute(layout->function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
    if (now > known) /* raised by cudaFuncSetAttribute: asked once, not at every such launch */
        __atomic_store_n((unsigned *)&layout->max_dynamic_shared, now, __ATOMIC_RELAXED);
    return now == 0 || shared_mem <= now;
}

/* Finds the driver function behind a launch's handle (func) and its layout. */
static void find_layout(struct layout_entry *e, const void *func, enum kernel_handle how)
{
    if (DEVICE_CALL(cuCtxGetCurrent, &e->layout.context) != CUDA_SUCCESS)
        e->layout.context = NULL;
    CUfunction f = NULL;
    switch (how) {
    case KERNEL_BY_STUB:
        f = function_of_stub(func);
        if (f == NULL)
            f = function_of_kernel(func); /* cudaLaunchKernel takes a cudaKernel_t too */
        break;
    case KERNEL_BY_RT_KERNEL:
        f = function_of_kernel(func);
        break;
    case KERNEL_BY_DRIVER:
        /* A CUfunction names itself; a CUkernel cast to one has a function in the current context. */
        if (query_layout(&e->layout, (CUfunction)func)) {
            e->known = true;
            note_owners(e, func, how);
            return;
        }
        f = function_of_kernel(func);
        break;
    }
    e->known = f != NULL && query_layout(&e->layout, f);
    if (e->known)
        note_owners(e, func, how);
}

/* The key of e's kind of kernel: its name, layout, context and kind of handle, hashed (FNV-1a); 0 without a name. */
static uint64_t twin_key_of(const struct layout_entry *e)
{
    if (e->name == NULL)
        return 0;
    uint64_t h = 0xcbf29ce484222325ULL;
#define TWIN_MIX(v) (h = (h ^ (uint64_t)(v)) * 0x100000001b3ULL)
    for (const char *c = e->name; *c; c++)
        TWIN_MIX((unsigned char)*c);
    TWIN_MIX((uintptr_t)e->layout.context);
    TWIN_MIX(e->how);
    TWIN_MIX(e->layout.count);
    TWIN_MIX(e->layout.total);
    TWIN_MIX(e->layout.gapped);
    for (unsigned i = 0; i < e->layout.count; i++) {
        TWIN_MIX(e->layout.offset[i]);
        TWIN_MIX(e->layout.size[i]);
    }
#undef TWIN_MIX
    return h ? h : 1;
}

/* Whether a and b are twins: the same name, the same layout in the same context, the same kind of handle. */
static bool twins_alike(const struct layout_entry *a, const struct layout_entry *b)
{
    return a->how == b->how && a->name && b->name && strcmp(a->name, b->name) == 0 &&
           kernel_params_same_layout(&a->layout, &b->layout);
}

/* Names known kernel e (handle func) by its twin (layouts_lock held): its class's first, or e, first of a new class. */
static void join_twins(struct layout_entry *e, const void *func)
{
    e->layout.twin = func;
    uint64_t key = twin_key_of(e);
    if (key == 0)
        return;
    struct twin_class *c;
    HASH_FIND(hh, twins, &key, sizeof key, c);
    if (c == NULL) {
        if ((c = calloc(1, sizeof *c)) == NULL)
            return;
        c->key = key;
        c->first = e;
        HASH_ADD(hh, twins, key, sizeof key, c);
    } else if (!twins_alike(c->first, e)) {
        return; /* another kind of kernel whose key is the same: named by itself */
    }
    e->twin_key = key;
    e->layout.twin = c->first == e ? func : c->first->layout.func; /* e's own func is set once it is complete */
}

/* Finds the driver function behind a launch's handle (func), its layout and its twin; e's func is not set yet. */
static void resolve(struct layout_entry *e, const void *func, enum kernel_handle how)
{
    find_layout(e, func, how);
    e->how = how;
    if (!e->known)
        return;
    if (DEVICE_CALL(cuFuncGetName, &e->name, e->layout.function) != CUDA_SUCCESS)
        e->name = NULL;
    join_twins(e, func);
}

/*
 * Memory for a new layout (layouts_lock held): the oldest forgotten one's
 * past LAYOUTS_RETIRED_KEPT (cleared but for its func, which stays
 * RETIRED_FUNC until the new layout is complete), else new; NULL if out of
 * memory.
 */
static struct layout_entry *entry_take(void)
{
    if (retired_count <= LAYOUTS_RETIRED_KEPT)
        return calloc(1, sizeof(struct layout_entry));
    struct layout_entry *e = retired;
    retired = e->retired_next;
    if (retired == NULL)
        retired_last = NULL;
    retired_count--;
    retired_reused++;
    memset(&e->layout.function, 0, sizeof *e - offsetof(struct layout_entry, layout.function));
    return e;
}

/* Adds forgotten layout e to the list, the newest (layouts_lock held). */
static void retired_add(struct layout_entry *e)
{
    e->retired_next = NULL;
    if (retired_last)
        retired_last->retired_next = e;
    else
        retired = e;
    retired_last = e;
    retired_count++;
    retired_total++;
}

/* The layout of func's parameters, or NULL if libcuda cannot tell. */
const struct kernel_params *kernel_params_of(const void *func, enum kernel_handle how)
{
    unsigned slot = (unsigned)(((uintptr_t)func >> 4) % LAYOUT_CACHE_SIZE);
    struct layout_entry *e = layout_cache[slot];
    /* Acquire: the entry may have been another kernel's, forgotten and taken again (its func is written last). */
    if (__builtin_expect(e == NULL || __atomic_load_n(&e->layout.func, __ATOMIC_ACQUIRE) != func, 0)) {
        pthread_mutex_lock(&layouts_lock);
        HASH_FIND_PTR(layouts, &func, e);
        if (e == NULL && (e = entry_take()) != NULL) {
            resolve(e, func, how);
            __atomic_store_n(&e->layout.func, func, __ATOMIC_RELEASE);
            HASH_ADD_PTR(layouts, layout.func, e);
        }
        pthread_mutex_unlock(&layouts_lock);
        if (e == NULL)
            return NULL;
        layout_cache[slot] = e;
    }
    return e->known ? &e->layout : NULL;
}

/* Whether two kernels take the same parameters in the same context (a kernel node may take either). */
bool kernel_params_same_layout(const struct kernel_params *a, const struct kernel_params *b)
{
    if (a->count != b->count || a->total != b->total || a->context != b->context || a->gapped != b->gapped)
        return false;
    for (unsigned i = 0; i < a->count; i++)
        if (a->offset[i] != b->offset[i] || a->size[i] != b->size[i])
            return false;
    return true;
}

/* Whether a kernel node made for node's kernel may run launch's (kernel_params.h). */
bool kernel_node_takes(const struct kernel_params *node, const struct kernel_params *launch)
{
    if (kernel_params_same_layout(node, launch))
        return true;
    return node->context == launch->context && node->total <= KERNEL_NODE_ARGS_ROOM &&
           launch->total <= KERNEL_NODE_ARGS_ROOM;
}

/* The kernel's name (NULL if unknown), for REPRISE_EXCLUDE_KERNELS. */
const char *kernel_name_of(const void *func, enum kernel_handle how)
{
    /* layout is the entry's first member; the name was asked before the entry was published, and never changes. */
    return kernel_params_name(kernel_params_of(func, how));
}

/* The name of the kernel whose layout this is (NULL if unknown). */
const char *kernel_params_name(const struct kernel_params *layout)
{
    return layout ? ((const struct layout_entry *)layout)->name : NULL;
}

/* Whether the end of owner (handle) takes e's kernel with it, or cannot be ruled out to. */
static bool owner_ends(const struct layout_entry *e, enum kernel_owner owner, const void *handle)
{
    switch (owner) {
    case KERNELS_OF_MODULE:
        return e->layout.module == NULL || (const void *)e->layout.module == handle;
    case KERNELS_OF_LIBRARY:
        return e->layout.library == NULL || (const void *)e->layout.library == handle;
    case KERNELS_ALL:
        return true;
    }
    return true;
}

/* A growing list of handles: the list, its length and room; all set once it could not grow. */
struct handle_list {
    const void **at;
    unsigned count, capacity;
    bool all;
};

/* Adds h to list. */
static void handle_list_add(struct handle_list *list, const void *h)
{
    if (list->all)
        return;
    if (list->count == list->capacity) {
        unsigned capacity = list->capacity ? 2 * list->capacity : 64;
        const void **grown = realloc(list->at, capacity * sizeof *grown);
        if (grown == NULL) {
            list->all = true;
            return;
        }
        list->at = grown, list->capacity = capacity;
    }
    list->at[list->count++] = h;
}

/*
 * The twin classes whose first kernel went (layouts_lock held): each takes
 * another live member as its first, and its members its handle as their
 * twin; a class with none left goes.
 */
static void rename_orphaned_twins(void)
{
    struct layout_entry *e, *tmp;
    struct twin_class *c, *ctmp;
    HASH_ITER(hh, layouts, e, tmp) {
        if (e->twin_key == 0)
            continue;
        HASH_FIND(hh, twins, &e->twin_key, sizeof e->twin_key, c);
        if (c && c->first == NULL)
            c->first = e, c->renamed = true;
    }
    HASH_ITER(hh, layouts, e, tmp) {
        if (e->twin_key == 0)
            continue;
        HASH_FIND(hh, twins, &e->twin_key, sizeof e->twin_key, c);
        if (c && c->renamed)
            __atomic_store_n(&e->layout.twin, c->first->layout.func, __ATOMIC_RELAXED);
    }
    HASH_ITER(hh, twins, c, ctmp) {
        c->renamed = false;
        if (c->first == NULL) {
            HASH_DEL(twins, c);
            free(c);
        }
    }
}

/* Forgets the layouts that owner's end takes with it (see kernel_params.h). */
unsigned kernel_params_retire(enum kernel_owner owner, const void *handle, const void ***handles, bool *all)
{
    struct handle_list list = {0};
    bool orphaned = false;
    pthread_mutex_lock(&layouts_lock);
    struct layout_entry *e, *tmp;
    HASH_ITER(hh, layouts, e, tmp) {
        if (!owner_ends(e, owner, handle))
            continue;
        handle_list_add(&list, e->layout.func);
        if (e->layout.twin != e->layout.func) /* regions name it by its twin: their graphs may hold it */
            handle_list_add(&list, e->layout.twin);
        if (e->twin_key) {
            struct twin_class *c;
            HASH_FIND(hh, twins, &e->twin_key, sizeof e->twin_key, c);
            if (c && c->first == e)
                c->first = NULL, orphaned = true;
        }
        HASH_DEL(layouts, e);
        /* Each thread's cache and each recorded slot compare func before using a layout: none matches now. */
        __atomic_store_n(&e->layout.func, RETIRED_FUNC, __ATOMIC_RELEASE);
        retired_add(e);
    }
    if (orphaned)
        rename_orphaned_twins();
    pthread_mutex_unlock(&layouts_lock);
    *all = list.all;
    if (list.all) {
        free(list.at);
        list.at = NULL;
    }
    *handles = list.at;
    return list.count;
}

/* How many layouts the cache holds (live, and forgotten but kept), and how many were forgotten and reused in all. */
void kernel_params_counts(struct kernel_params_counts *counts)
{
    pthread_mutex_lock(&layouts_lock);
    counts->live = HASH_COUNT(layouts);
    counts->retired_kept = retired_count;
    counts->retired_total = retired_total;
    counts->reused = retired_reused;
    pthread_mutex_unlock(&layouts_lock);
}

/* Frees the cache (at exit). */
void kernel_params_clear(void)
{
    pthread_mutex_lock(&layouts_lock);
    struct layout_entry *e, *tmp;
    HASH_ITER(hh, layouts, e, tmp) {
        HASH_DEL(layouts, e);
        free(e);
    }
    struct twin_class *c, *ctmp;
    HASH_ITER(hh, twins, c, ctmp) {
        HASH_DEL(twins, c);
        free(c);
    }
    pthread_mutex_unlock(&layouts_lock);
}
