/* SPDX-License-Identifier: MIT */
/*
 * standin/modules.c: modules and libraries, and the functions and
 * kernels they hand out, with CUDA's lifetimes.
 *
 * A module (cuModuleLoad, cuModuleLoadData) or a library (cuLibraryLoadData,
 * cuLibraryLoadFromFile) reads no image: any CPU twin is found in it by the
 * name it was registered with. What it hands out is a handle of its own, a
 * struct function naming its owner and the twin: cuModuleGetFunction's
 * CUfunction, cuLibraryGetKernel's CUkernel, and a library kernel's
 * CUfunction in the context (cuKernelGetFunction, one a context). The same
 * name asked again gives the same handle. A library is its own module
 * (cuLibraryGetModule, cuFuncGetModule of its kernels' functions). The
 * runtime's kernels keep their twin's address as handle; they belong to the
 * runtime's module, which cannot be unloaded.
 *
 * Unloading a module or library kills what it handed out, and a context
 * reset unloads the context's modules and kills the libraries' functions in
 * it (not the libraries' kernels: a library outlives contexts). A dead
 * handle is cudaErrorInvalidResourceHandle (the driver's
 * CUDA_ERROR_INVALID_HANDLE) for an eager launch, a kernel node, exec
 * SetParams and the parameter queries; an executable graph holding one
 * aborts the process when instantiated or launched (graph.c), as the real
 * driver crashes there. A dead handle stays allocated and known, never
 * taken for another; unless STANDIN_REUSE_HANDLES=1: then the n-th function
 * (kernel) a module (library) hands out is a dead handle that was the n-th
 * of its owner, as the real driver's allocator may give an address again,
 * possibly naming another twin with another parameter layout. Each handing
 * out is a new generation of the handle: a node made before it still runs
 * a dead function.
 *
 * Guessed: unloading runs the queued work first (launches already made
 * still run); the runtime's module unloaded with cuModuleUnload, or a
 * library's module, is CUDA_ERROR_NOT_PERMITTED (the latter as cuda.h says).
 */
#include <stdlib.h>
#include <string.h>

#include "standin.h"

struct module;

/* A function or kernel handle. */
struct function {
    void *self;                         /* key of the handle table */
    bool kernel;                        /* a library's CUkernel; else a CUfunction */
    struct module *owner;               /* NULL once dead */
    const struct standin_kernel *k;
    unsigned index;                     /* its place among its owner's functions (kernels) */
    unsigned long long generation;      /* one more each time the handle is handed out */
    struct function *in_context;        /* a kernel's function in the context, once asked for */
    UT_hash_handle hh;
};

/* A module, or a library (its own module). */
struct module {
    void *self;                         /* key of the module table */
    bool library;
    bool loaded;
    struct function **handed;           /* its functions (a library: its kernels), in order */
    size_t n, cap;
    unsigned functions, kernels;        /* how many of each it handed out */
    UT_hash_handle hh;
};

static struct module *modules;          /* every module and library ever loaded, by address */
static struct function *handles;        /* every handle ever handed out, by address */
static struct module runtime_module = {.loaded = true};

/* STANDIN_REUSE_HANDLES=1: dead handles by the index they had; [0] functions, [1] kernels. */
static struct function **reusable[2];
static size_t nreusable[2];

/* True when STANDIN_REUSE_HANDLES=1 asks for dead handles to be handed out again. */
static bool reuse_handles(void)
{
    static int reuse = -1;
    if (reuse < 0) {
        const char *v = getenv("STANDIN_REUSE_HANDLES");
        reuse = v && strcmp(v, "1") == 0;
    }
    return reuse;
}

/* The handle of m's next function (kernel) naming k: a dead one of that index when reused, else a new one. */
static struct function *handle_new(struct module *m, bool kernel, const struct standin_kernel *k)
{
    unsigned index = kernel ? m->kernels++ : m->functions++;
    struct function *f = NULL;
    if (reuse_handles() && index < nreusable[kernel] && reusable[kernel][index]) {
        f = reusable[kernel][index];
        reusable[kernel][index] = NULL;
    } else {
        f = xcalloc(1, sizeof *f);
        f->self = f;
        HASH_ADD_PTR(handles, self, f);
    }
    f->kernel = kernel;
    f->owner = m;
    f->k = k;
    f->index = index;
    f->generation++;
    f->in_context = NULL;
    return f;
}

/* Kills a handle: it names nothing from now on, and may be handed out again when handles are reused. */
static void handle_kill(struct function *f)
{
    if (!f || !f->owner)
        return;
    f->owner = NULL;
    if (!reuse_handles())
        return;
    size_t *n = &nreusable[f->kernel];
    if (f->index >= *n) {
        reusable[f->kernel] = xrealloc(reusable[f->kernel], (f->index + 1) * sizeof **reusable);
        memset(reusable[f->kernel] + *n, 0, (f->index + 1 - *n) * sizeof **reusable);
        *n = f->index + 1;
    }
    if (!reusable[f->kernel][f->index])
        reusable[f->kernel][f->index] = f;
}

/* The live function or kernel a handle is, or NULL (a twin's address, a dead handle, anything else). */
static struct function *handle_live(const void *handle)
{
    struct function *f = NULL;
    HASH_FIND_PTR(handles, &handle, f);
    return f && f->owner ? f : NULL;
}

/* The twin a launch names, and the handle's generation (modules.c's top comment). */
cudaError_t kernel_of_handle(const void *handle, const struct standin_kernel **k, unsigned long long *generation)
{
    struct function *f = NULL;
    HASH_FIND_PTR(handles, &handle, f);
    if (f) {
        CHECK(!f->owner, cudaErrorInvalidResourceHandle);
        *k = f->k;
        *generation = f->generation;
        return cudaSuccess;
    }
    *k = kernel_find(handle);
    CHECK(!*k, cudaErrorInvalidResourceHandle);
    *generation = 0;
    return cudaSuccess;
}

/* True for a handle a module or library handed out, unloaded since or not. */
bool module_handle(const void *handle)
{
    struct function *f = NULL;
    HASH_FIND_PTR(handles, &handle, f);
    return f != NULL;
}

/* True when a handle taken at generation names a function of an unloaded module since (or another one). */
bool handle_unloaded(const void *handle, unsigned long long generation)
{
    struct function *f = NULL;
    HASH_FIND_PTR(handles, &handle, f);
    return f && (!f->owner || f->generation != generation);
}

/* A loaded module (library: a loaded library) by handle. */
static cudaError_t module_get(void *h, bool library, struct module **out)
{
    struct module *m = NULL;
    CHECK(!h, cudaErrorInvalidResourceHandle);
    if (h == &runtime_module) {
        CHECK(library, cudaErrorInvalidResourceHandle);
        *out = &runtime_module;
        return cudaSuccess;
    }
    HASH_FIND_PTR(modules, &h, m);
    CHECK(!m || !m->loaded || (library && !m->library), cudaErrorInvalidResourceHandle);
    *out = m;
    return cudaSuccess;
}

/* cuModuleLoad(Data), cuLibraryLoad*: a fresh module or library (no image read). */
static cudaError_t module_load(void **out, bool library)
{
    CHECK(!out, cudaErrorInvalidValue);
    struct module *m = xcalloc(1, sizeof *m);
    m->self = m;
    m->library = library;
    m->loaded = true;
    HASH_ADD_PTR(modules, self, m);
    *out = m;
    return cudaSuccess;
}

/* Kills what m handed out (a library: its kernels and their functions); m stays loaded. */
static void module_kill_handles(struct module *m)
{
    for (size_t i = 0; i < m->n; i++) {
        handle_kill(m->handed[i]->in_context);
        handle_kill(m->handed[i]);
    }
    free(m->handed);
    m->handed = NULL;
    m->n = m->cap = 0;
}

/* cuModuleUnload (library: cuLibraryUnload): the queue runs first, then every handle it gave dies. */
static cudaError_t module_unload(void *h, bool library)
{
    struct module *m = NULL;
    TRY(module_get(h, library, &m));
    CHECK(m == &runtime_module || (m->library && !library), cudaErrorNotPermitted);
    (void)sched_run_all();
    module_kill_handles(m);
    m->loaded = false;
    return cudaSuccess;
}

/* What m handed out under name (a kernel or a function), or NULL. */
static struct function *handed_find(const struct module *m, const char *name)
{
    for (size_t i = 0; i < m->n; i++)
        if (strcmp(m->handed[i]->k->name, name) == 0)
            return m->handed[i];
    return NULL;
}

/* A library kernel's function in the context: made at the first request (again after a context reset). */
static struct function *kernel_function(struct function *kern)
{
    if (!kern->in_context || !kern->in_context->owner)
        kern->in_context = handle_new(kern->owner, false, kern->k);
    return kern->in_context;
}

/* cuModuleGetFunction (kernel false) or cuLibraryGetKernel (kernel true, a library): the twin named so. */
static cudaError_t module_function(void **out, void *h, const char *name, bool kernel)
{
    struct module *m = NULL;
    const void *twin = NULL;
    CHECK(!out || !name, cudaErrorInvalidValue);
    TRY(module_get(h, kernel, &m));
    struct function *f = m == &runtime_module ? NULL : handed_find(m, name);
    if (!f) {
        TRY(kernel_by_name(&twin, name));
        if (m == &runtime_module) {
            *out = (void *)twin;
            return cudaSuccess;
        }
        f = handle_new(m, m->library, kernel_find(twin));
        ptr_push((void ***)&m->handed, &m->n, &m->cap, f);
    }
    /* A library's module hands out its kernels' functions. */
    *out = m->library && !kernel ? kernel_function(f) : f;
    return cudaSuccess;
}

/* cuFuncGetModule (library false) or cuKernelGetLibrary (library true, a kernel): what fn came from. */
static cudaError_t function_owner(void **out, const void *fn, bool library)
{
    CHECK(!out, cudaErrorInvalidValue);
    struct function *f = handle_live(fn);
    if (!f) {
        CHECK(library || !kernel_find(fn), cudaErrorInvalidResourceHandle);
        *out = &runtime_module;
        return cudaSuccess;
    }
    CHECK(library != f->kernel, cudaErrorInvalidResourceHandle);
    *out = f->owner;
    return cudaSuccess;
}

/* cuKernelGetFunction: a library kernel's function in the context; a runtime kernel is its own. */
static cudaError_t kernel_get_function(void **out, const void *kernel)
{
    CHECK(!out, cudaErrorInvalidValue);
    struct function *f = handle_live(kernel);
    if (!f) {
        CHECK(module_handle(kernel) || !kernel_find(kernel), cudaErrorInvalidResourceHandle);
        *out = (void *)kernel;
        return cudaSuccess;
    }
    CHECK(!f->kernel, cudaErrorInvalidResourceHandle);
    *out = kernel_function(f);
    return cudaSuccess;
}

/* cuLibraryGetModule: a library is its own module. */
static cudaError_t library_module(void **out, void *lib)
{
    struct module *m = NULL;
    CHECK(!out, cudaErrorInvalidValue);
    TRY(module_get(lib, true, &m));
    *out = m;
    return cudaSuccess;
}

/* A context reset: its modules are unloaded; libraries stay, their kernels' functions in it die. */
void modules_context_reset(void)
{
    struct module *m, *tmp;
    HASH_ITER(hh, modules, m, tmp) {
        if (!m->loaded)
            continue;
        if (!m->library) {
            module_kill_handles(m);
            m->loaded = false;
            continue;
        }
        for (size_t i = 0; i < m->n; i++) {
            handle_kill(m->handed[i]->in_context);
            m->handed[i]->in_context = NULL;
        }
    }
}

/* ------------------------------------------------------------ the driver's entries */

cudaError_t standin_driver_module_load(void **module, bool library)
{
    DRIVER_CALL(module_load(module, library));
}

cudaError_t standin_driver_module_unload(void *module, bool library)
{
    DRIVER_CALL(module_unload(module, library));
}

cudaError_t standin_driver_module_function(void **fn, void *module, const char *name, bool kernel)
{
    DRIVER_CALL(module_function(fn, module, name, kernel));
}

cudaError_t standin_driver_function_owner(void **module, const void *fn, bool library)
{
    DRIVER_CALL(function_owner(module, fn, library));
}

cudaError_t standin_driver_kernel_function(void **fn, const void *kernel)
{
    DRIVER_CALL(kernel_get_function(fn, kernel));
}

cudaError_t standin_driver_library_module(void **module, void *library)
{
    DRIVER_CALL(library_module(module, library));
}
