/* Each kernel's parameter layout, asked of the runtime once and cached. */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <uthash.h>

#include "errors.h"
#include "kernel_params.h"
#include "runtime.h"

struct layout_entry {
    struct kernel_params layout;
    bool known;
    UT_hash_handle hh;
};

static struct layout_entry *layouts;
static pthread_mutex_t layouts_lock = PTHREAD_MUTEX_INITIALIZER;

#define LAYOUT_CACHE_SIZE 16
static __thread struct layout_entry *layout_cache[LAYOUT_CACHE_SIZE] __attribute__((tls_model("initial-exec")));

/* Asks the runtime for func's parameters, one index at a time until it says there are no more. */
static void query_layout(struct layout_entry *e)
{
    struct saved_error saved;
    errors_save(&saved);
    e->known = false;
    for (unsigned i = 0; i <= KERNEL_PARAMS_MAX; i++) {
        size_t offset = 0, size = 0;
        cudaError_t err = RT_CALL(cudaFuncGetParamInfo, e->layout.func, i, &offset, &size);
        if (err != cudaSuccess) {
            /* Past the last parameter the runtime says invalid value; anything else means it cannot tell. */
            e->known = err == cudaErrorInvalidValue;
            break;
        }
        if (i == KERNEL_PARAMS_MAX)
            break; /* too many to patch: e->known stays false */
        e->layout.offset[i] = (uint32_t)offset;
        e->layout.size[i] = (uint32_t)size;
        e->layout.count = i + 1;
        if (offset + size > e->layout.total)
            e->layout.total = (uint32_t)(offset + size);
    }
    /* The index past the end fails by design; that error is ours, not the program's. */
    errors_restore(&saved);
}

/* The layout of func's parameters, or NULL if the runtime cannot tell. */
const struct kernel_params *kernel_params_of(const void *func)
{
    unsigned slot = (unsigned)(((uintptr_t)func >> 4) % LAYOUT_CACHE_SIZE);
    struct layout_entry *e = layout_cache[slot];
    if (__builtin_expect(e == NULL || e->layout.func != func, 0)) {
        pthread_mutex_lock(&layouts_lock);
        HASH_FIND_PTR(layouts, &func, e);
        if (e == NULL && (e = calloc(1, sizeof *e)) != NULL) {
            e->layout.func = func;
            query_layout(e);
            HASH_ADD_PTR(layouts, layout.func, e);
        }
        pthread_mutex_unlock(&layouts_lock);
        if (e == NULL)
            return NULL;
        layout_cache[slot] = e;
    }
    return e->known ? &e->layout : NULL;
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
    pthread_mutex_unlock(&layouts_lock);
}
