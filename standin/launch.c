/* SPDX-License-Identifier: MIT */
/*
 * standin/launch.c: kernel launches and host functions.
 *
 * Kernels are the CPU twins registered by address (kernels/cpu/): a launch
 * validates the configuration like the H200 did, copies the arguments by
 * value (each parameter's size and alignment come from the registration,
 * laid out as the CUDA ABI lays out kernel parameters), and queues the
 * launch. When it runs, the twin is called once per block, blocks in x,
 * then y, then z order.
 *
 * Measured on the H200 with CUDA 13.0 (tests/conformance.c): an invalid
 * configuration (more than 1024 threads, a zero or too large dimension) is
 * cudaErrorInvalidValue from cudaLaunchKernel and __cudaLaunchKernel alike,
 * not cudaErrorInvalidConfiguration; a host function that is no kernel is
 * cudaErrorInvalidResourceHandle, NULL is cudaErrorInvalidDeviceFunction;
 * a kernel with parameters and args == NULL is cudaErrorInvalidValue.
 * A launch refused on a capturing stream also invalidates the capture.
 * cudaKernel_t handles from __cudaGetKernel are the kernel's address.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "standin.h"

struct kentry {
    struct standin_kernel k;
    UT_hash_handle hh;      /* by k.func */
};

static struct kentry *kernels;
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static __thread struct standin_block current_block;

/* Registers a CPU twin (constructors, before main). */
void standin_register_kernel(const struct standin_kernel *k)
{
    struct kentry *e = xcalloc(1, sizeof *e);
    e->k = *k;
    pthread_mutex_lock(&registry_lock);
    HASH_ADD_PTR(kernels, k.func, e);
    pthread_mutex_unlock(&registry_lock);
}

/* Finds a registered twin by address. */
const struct standin_kernel *kernel_find(const void *func)
{
    struct kentry *e = NULL;
    pthread_mutex_lock(&registry_lock);
    HASH_FIND_PTR(kernels, &func, e);
    pthread_mutex_unlock(&registry_lock);
    return e ? &e->k : NULL;
}

/* The block being run, for the twin. */
const struct standin_block *standin_block(void)
{
    return &current_block;
}

/* Offset of each parameter, as CUDA lays out a kernel's parameter buffer. */
static size_t param_offsets(const struct standin_kernel *k, size_t *off)
{
    size_t end = 0;
    for (unsigned i = 0; i < k->nparams; i++) {
        size_t a = k->align[i] ? k->align[i] : 1;
        off[i] = (end + a - 1) / a * a;
        end = off[i] + k->size[i];
    }
    return end;
}

/* Checks a launch configuration against the H200's limits. */
static cudaError_t config_ok(dim3 grid, dim3 block, size_t shmem)
{
    CHECK(block.x == 0 || block.y == 0 || block.z == 0, cudaErrorInvalidValue);
    CHECK(block.x > 1024 || block.y > 1024 || block.z > 64, cudaErrorInvalidValue);
    CHECK((uint64_t)block.x * block.y * block.z > 1024, cudaErrorInvalidValue);
    CHECK(grid.x == 0 || grid.y == 0 || grid.z == 0, cudaErrorInvalidValue);
    CHECK(grid.x > 2147483647u || grid.y > 65535 || grid.z > 65535, cudaErrorInvalidValue);
    CHECK(shmem > 48 * 1024, cudaErrorInvalidValue);
    return cudaSuccess;
}

/* Validates a launch and builds its work item with copied arguments. */
cudaError_t kernel_work_make(struct work *w, const void *func, dim3 grid, dim3 block,
                             size_t shmem, void **args)
{
    const struct standin_kernel *k = NULL;
    unsigned long long generation = 0;
    CHECK(!func, cudaErrorInvalidDeviceFunction);
    TRY(kernel_of_handle(func, &k, &generation));
    TRY(config_ok(grid, block, shmem));
    CHECK(k->nparams > 0 && !args, cudaErrorInvalidValue);
    size_t off[STANDIN_MAX_PARAMS];
    size_t size = param_offsets(k, off);
    memset(w, 0, sizeof *w);
    w->kind = W_KERNEL;
    w->u.kernel = (struct kernel_work){k, func, generation, grid, block, (unsigned)shmem, xcalloc(1, size),
                                       xcalloc(k->nparams, sizeof(void *)), 0, false};
    for (unsigned i = 0; i < k->nparams; i++) {
        w->u.kernel.argv[i] = (char *)w->u.kernel.argbuf + off[i];
        memcpy(w->u.kernel.argv[i], args[i], k->size[i]);
    }
    return cudaSuccess;
}

/* STANDIN_PRIORITY_LOG=1 (tests): each kernel says, as it runs, the priority it runs at. */
static void say_priority(const struct kernel_work *kw)
{
    static int say = -1;
    if (say < 0)
        say = getenv("STANDIN_PRIORITY_LOG") != NULL;
    if (say)
        fprintf(stderr, "standin: kernel %s ran at priority %d\n", kw->k->name ? kw->k->name : "?", kw->priority);
}

/* Runs every block of a launch; stops at a device fault. */
cudaError_t kernel_run(struct kernel_work *kw)
{
    /* A twin's grid-dependency wait may run its primary on this thread, in the middle of one of its blocks. */
    const struct standin_block outer = current_block;
    say_priority(kw);
    void *shared = kw->shmem ? xmalloc(kw->shmem) : NULL;
    current_block.gridDim = kw->grid;
    current_block.blockDim = kw->block;
    current_block.dynamic_shared = shared;
    current_block.dynamic_shared_bytes = kw->shmem;
    for (unsigned z = 0; z < kw->grid.z; z++)
        for (unsigned y = 0; y < kw->grid.y; y++)
            for (unsigned x = 0; x < kw->grid.x; x++) {
                current_block.blockIdx = (dim3){x, y, z};
                if (shared)
                    memset(shared, 0, kw->shmem);
                kw->k->run_block(kw->argv);
                if (sticky_error() != cudaSuccess)
                    goto out;
            }
out:
    free(shared);
    current_block = outer;
    return sticky_error();
}

/*
 * Validates and queues (or captures) a launch on a stream handle (ptsz:
 * NULL means the per-thread stream), at *priority (its launch attribute,
 * clamped as a stream's) or else the stream's; a captured launch's node
 * keeps that priority, as CUDA copies a stream's into the nodes it captures; programmatic: a
 * programmatic dependent launch.
 */
cudaError_t launch_on_stream(const void *func, dim3 grid, dim3 block, void **args, size_t shmem, cudaStream_t h,
                             bool ptsz, const int *priority, bool programmatic)
{
    struct stream *s = NULL;
    struct work w;
    TRY(stream_get(h, ptsz, &s));
    cudaError_t e = kernel_work_make(&w, func, grid, block, shmem, args);
    if (e != cudaSuccess)
        return capture_fail(s, e);
    w.u.kernel.priority = priority ? priority_clamp(*priority) : s->priority;
    w.u.kernel.programmatic = programmatic;
    return stream_submit(s, &w, NULL);
}

/* cudaLaunchKernel. */
cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                             size_t sharedMem, cudaStream_t stream)
{
    API(launch_on_stream(func, gridDim, blockDim, args, sharedMem, stream, false, NULL, false));
}

/* cudaLaunchKernel, per-thread default stream flavour. */
cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                                  size_t sharedMem, cudaStream_t stream)
{
    API(launch_on_stream(func, gridDim, blockDim, args, sharedMem, stream, true, NULL, false));
}

/* cudaLaunchCooperativeKernel: a launch like any other on the CPU. */
cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 gridDim, dim3 blockDim,
                                        void **args, size_t sharedMem, cudaStream_t stream)
{
    API(launch_on_stream(func, gridDim, blockDim, args, sharedMem, stream, false, NULL, false));
}

/* cudaLaunchCooperativeKernel, per-thread default stream flavour. */
cudaError_t cudaLaunchCooperativeKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim,
                                             void **args, size_t sharedMem, cudaStream_t stream)
{
    API(launch_on_stream(func, gridDim, blockDim, args, sharedMem, stream, true, NULL, false));
}

/* cudaLaunchKernelExC: a priority attribute is the launch's priority, a programmatic dependent launch's is one; the others are
 * accepted and ignored. */
static cudaError_t launch_ex(const cudaLaunchConfig_t *c, const void *func, void **args, bool ptsz)
{
    CHECK(!c, cudaErrorInvalidValue);
    CHECK(c->numAttrs > 0 && !c->attrs, cudaErrorInvalidValue);
    const int *priority = NULL;
    bool programmatic = false;
    for (unsigned i = 0; i < c->numAttrs; i++) {
        if (c->attrs[i].id == cudaLaunchAttributePriority)
            priority = &c->attrs[i].val.priority;
        programmatic |= c->attrs[i].id == cudaLaunchAttributeProgrammaticStreamSerialization &&
                        c->attrs[i].val.programmaticStreamSerializationAllowed != 0;
    }
    return launch_on_stream(func, c->gridDim, c->blockDim, args, c->dynamicSmemBytes, c->stream, ptsz, priority,
                            programmatic);
}

/* cudaLaunchKernelExC. */
cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func, void **args)
{
    API(launch_ex(config, func, args, false));
}

/* cudaLaunchKernelExC, per-thread default stream flavour. */
cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config, const void *func,
                                     void **args)
{
    API(launch_ex(config, func, args, true));
}

/* Resolves a kernel address into a cudaKernel_t (the address itself). */
static cudaError_t get_kernel(cudaKernel_t *out, const void *func)
{
    CHECK(!out, cudaErrorInvalidValue);
    CHECK(!func, cudaErrorInvalidDeviceFunction);
    CHECK(!kernel_find(func), cudaErrorInvalidResourceHandle);
    *out = (cudaKernel_t)func;
    return cudaSuccess;
}

/* The <<<>>> call configurations pushed and not yet popped, per thread (a kernel's arguments may launch too). */
#define CONFIG_STACK_DEPTH 64
struct pushed_config {
    dim3 grid, block;
    size_t shared_mem;
    cudaStream_t stream;
};
static __thread struct pushed_config config_stack[CONFIG_STACK_DEPTH];
static __thread unsigned config_depth;

/* __cudaPushCallConfiguration: what a <<<>>> expression calls before the kernel's host stub; 0 means launch. */
unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem, cudaStream_t stream)
{
    if (config_depth == CONFIG_STACK_DEPTH)
        return cudaErrorLaunchOutOfResources;
    config_stack[config_depth++] = (struct pushed_config){gridDim, blockDim, sharedMem, stream};
    return 0;
}

/* __cudaPopCallConfiguration: what the kernel's host stub calls to get the configuration pushed last. */
cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem, void *stream)
{
    if (config_depth == 0)
        return cudaErrorMissingConfiguration;
    const struct pushed_config *c = &config_stack[--config_depth];
    *gridDim = c->grid;
    *blockDim = c->block;
    *sharedMem = c->shared_mem;
    *(cudaStream_t *)stream = c->stream;
    return cudaSuccess;
}

/* __cudaGetKernel: what nvcc's <<<>>> code calls first (CUDA 12.8+). */
cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *func)
{
    API(get_kernel(kernel, func));
}

/* __cudaLaunchKernel: what nvcc's <<<>>> code calls to launch. */
cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
                               size_t sharedMem, cudaStream_t stream)
{
    API(launch_on_stream((const void *)kernel, gridDim, blockDim, args, sharedMem, stream, false, NULL, false));
}

/* __cudaLaunchKernel with per-thread default stream semantics. */
cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                                    void **args, size_t sharedMem, cudaStream_t stream)
{
    API(launch_on_stream((const void *)kernel, gridDim, blockDim, args, sharedMem, stream, true, NULL, false));
}

/* Offset and size of a kernel parameter. */
static cudaError_t param_info(const void *func, size_t index, size_t *offset, size_t *size)
{
    const struct standin_kernel *k = NULL;
    unsigned long long generation = 0;
    CHECK(!func, cudaErrorInvalidDeviceFunction);
    TRY(kernel_of_handle(func, &k, &generation));
    CHECK(index >= k->nparams || !offset || !size, cudaErrorInvalidValue);
    size_t off[STANDIN_MAX_PARAMS];
    param_offsets(k, off);
    *offset = off[index];
    *size = k->size[index];
    return cudaSuccess;
}

/* cudaFuncGetParamInfo. */
cudaError_t cudaFuncGetParamInfo(const void *func, size_t paramIndex, size_t *paramOffset,
                                 size_t *paramSize)
{
    API(param_info(func, paramIndex, paramOffset, paramSize));
}

/* The name a registered kernel was declared with. */
static cudaError_t func_name(const char **name, const void *func)
{
    const struct standin_kernel *k = NULL;
    unsigned long long generation = 0;
    CHECK(!name || !func, cudaErrorInvalidValue);
    cudaError_t e = kernel_of_handle(func, &k, &generation);
    /* What is no kernel at all is cudaFuncGetName's InvalidDeviceFunction; an unloaded module's function is not. */
    CHECK(e != cudaSuccess && !module_handle(func), cudaErrorInvalidDeviceFunction);
    TRY(e);
    *name = k->name;
    return cudaSuccess;
}

/* cudaFuncGetName. */
cudaError_t cudaFuncGetName(const char **name, const void *func)
{
    API(func_name(name, func));
}

/* Queues (or captures) a host function. */
static cudaError_t host_func(cudaStream_t h, cudaHostFn_t fn, void *user, bool ptsz)
{
    struct stream *s = NULL;
    CHECK(!fn, cudaErrorInvalidValue);
    TRY(stream_get(h, ptsz, &s));
    struct work w = {.kind = W_HOST, .u.host = {fn, user}};
    return stream_submit(s, &w, NULL);
}

/* cudaLaunchHostFunc. */
cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData)
{
    API(host_func(stream, fn, userData, false));
}

/* cudaLaunchHostFunc, per-thread default stream flavour. */
cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t stream, cudaHostFn_t fn, void *userData)
{
    API(host_func(stream, fn, userData, true));
}

/* Queues a stream callback; it cannot be captured (invalidates). */
static cudaError_t add_callback(cudaStream_t h, cudaStreamCallback_t cb, void *user,
                                unsigned flags, bool ptsz)
{
    struct stream *s = NULL;
    CHECK(!cb || flags != 0, cudaErrorInvalidValue);
    TRY(stream_get(h, ptsz, &s));
    if (s->cap) {
        capture_invalidate(s->cap);
        return cudaErrorStreamCaptureUnsupported;
    }
    struct work w = {.kind = W_CALLBACK, .u.callback = {cb, user, h}};
    return stream_submit(s, &w, NULL);
}

/* cudaStreamAddCallback. */
cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
                                  void *userData, unsigned int flags)
{
    API(add_callback(stream, callback, userData, flags, false));
}

/* cudaStreamAddCallback, per-thread default stream flavour. */
cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t stream, cudaStreamCallback_t callback,
                                       void *userData, unsigned int flags)
{
    API(add_callback(stream, callback, userData, flags, true));
}

/* The twin registered under a name (kernel names are unique among the twins). */
cudaError_t kernel_by_name(const void **func, const char *name)
{
    CHECK(!func || !name, cudaErrorInvalidValue);
    const void *found = NULL;
    pthread_mutex_lock(&registry_lock);
    for (struct kentry *e = kernels; e; e = e->hh.next)
        if (e->k.name && strcmp(e->k.name, name) == 0) {
            found = e->k.func;
            break;
        }
    pthread_mutex_unlock(&registry_lock);
    CHECK(!found, cudaErrorSymbolNotFound);
    *func = found;
    return cudaSuccess;
}

/* cudaGetFuncBySymbol: the cudaFunction_t of a kernel is its twin's address (as cudaKernel_t). */
static cudaError_t func_by_symbol(cudaFunction_t *out, const void *symbol)
{
    CHECK(!out, cudaErrorInvalidValue);
    CHECK(!symbol, cudaErrorInvalidDeviceFunction);
    CHECK(!kernel_find(symbol), cudaErrorInvalidDeviceFunction);
    *out = (cudaFunction_t)symbol;
    return cudaSuccess;
}

/* cudaGetFuncBySymbol. */
cudaError_t cudaGetFuncBySymbol(cudaFunction_t *functionPtr, const void *symbolPtr)
{
    API(func_by_symbol(functionPtr, symbolPtr));
}

/* Parameter layout through the driver. */
cudaError_t standin_driver_param_info(const void *func, size_t index, size_t *offset, size_t *size)
{
    DRIVER_CALL(param_info(func, index, offset, size));
}

/* A twin's name through the driver. */
cudaError_t standin_driver_func_name(const char **name, const void *func)
{
    DRIVER_CALL(func_name(name, func));
}

/* A twin by name through the driver (module lookups). */
cudaError_t standin_driver_kernel_by_name(const void **func, const char *name)
{
    DRIVER_CALL(kernel_by_name(func, name));
}

/* A host function through the driver. */
cudaError_t standin_driver_host_func(cudaStream_t h, void (*fn)(void *), void *user, bool ptsz)
{
    DRIVER_CALL(host_func(h, fn, user, ptsz));
}
