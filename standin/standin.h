/* SPDX-License-Identifier: MIT */
/*
 * standin/standin.h: internal header of the CPU stand-in for the CUDA
 * runtime (libcudart_standin.so). Not seen by test programs.
 *
 * The real header is included the way NVIDIA builds libcudart: with
 * __CUDA_API_VERSION_INTERNAL, which declares every per-thread-default-stream
 * variant (cudaMemcpy_ptds, cudaLaunchKernel_ptsz, ...) next to the plain
 * name. The macros that rename plain names to those variants are then
 * undefined, so each file can define both, and the compiler checks every
 * definition against CUDA 13's own prototype.
 *
 * Concurrency: one global mutex, taken by every API entry (api_enter) and
 * released on the way out (api_leave); everything below runs under it.
 */
#ifndef STANDIN_H
#define STANDIN_H

#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda_runtime_api.h>

#undef cudaMemcpy
#undef cudaMemcpyToSymbol
#undef cudaMemcpyFromSymbol
#undef cudaMemcpy2D
#undef cudaMemset
#undef cudaMemset2D
#undef cudaGraphLaunch
#undef cudaStreamBeginCapture
#undef cudaStreamEndCapture
#undef cudaStreamGetCaptureInfo
#undef cudaStreamIsCapturing
#undef cudaMemcpyAsync
#undef cudaMemcpyToSymbolAsync
#undef cudaMemcpyFromSymbolAsync
#undef cudaMemcpy2DAsync
#undef cudaMemsetAsync
#undef cudaMemset2DAsync
#undef cudaStreamQuery
#undef cudaEventRecord
#undef cudaEventRecordWithFlags
#undef cudaStreamWaitEvent
#undef cudaStreamAddCallback
#undef cudaStreamSynchronize
#undef cudaLaunchKernel
#undef cudaLaunchKernelExC
#undef cudaLaunchHostFunc
#undef cudaLaunchCooperativeKernel
#undef cudaMallocAsync
#undef cudaFreeAsync

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uthash.h>

#include "standin_kernel.h"
#include "standin_driver.h"


struct graph;
struct gnode;
struct capture;
struct event;
struct stream;

/* ------------------------------------------------------------ errors.c */

/* Takes the global lock for an API call; false (and *err set) when the call
 * must fail at once: a sticky error, or a call from inside a host function. */
bool api_enter(cudaError_t *err);
/* As api_enter, but a sticky error does not stop the call (a context reset, which clears it). */
bool api_enter_despite_fault(cudaError_t *err);
/* Records err as the thread's last error (unless success or NotReady) and
 * releases the global lock; returns err. */
cudaError_t api_leave(cudaError_t err);
/* Releases the global lock without touching the last error (the driver
 * stand-in's calls: driver errors are not the runtime's); returns err. */
cudaError_t api_leave_quiet(cudaError_t err);
/* Takes the global lock for the stand-in's own device thread (no checks). */
void api_lock(void);
/* Releases the global lock taken by api_lock. */
void api_unlock(void);
/* Waits for cv, the global lock (held) released meanwhile. */
void api_wait(pthread_cond_t *cv);
/* The sticky error (cudaSuccess while the context is healthy). */
cudaError_t sticky_error(void);
/* Makes err the sticky error of the whole process. */
void set_sticky_error(cudaError_t err);
/* Forgets the sticky error (a context reset: the device is usable again). */
void clear_sticky_error(void);
/* Marks the current thread as running a host function (true) or not. */
void set_in_host_function(bool on);

/* Body of an API function: enter, evaluate call, leave. */
#define API(call)                                                             \
    do {                                                                      \
        cudaError_t api_e_;                                                   \
        if (!api_enter(&api_e_))                                              \
            return api_e_;                                                    \
        return api_leave(call);                                               \
    } while (0)

/* Body of a driver stand-in entry point (standin_driver_*): enter, evaluate call, leave without recording its
 * error as the runtime's last error (driver errors are not the runtime's). */
#define DRIVER_CALL(call)                                                     \
    do {                                                                      \
        cudaError_t driver_e_;                                                \
        if (!api_enter(&driver_e_))                                           \
            return driver_e_;                                                 \
        return api_leave_quiet(call);                                         \
    } while (0)

/* Fails the enclosing function with e when cond holds. */
#define CHECK(cond, e)                                                        \
    do {                                                                      \
        if (cond)                                                             \
            return (e);                                                       \
    } while (0)

/* Propagates a non-success result of call. */
#define TRY(call)                                                             \
    do {                                                                      \
        cudaError_t try_e_ = (call);                                          \
        if (try_e_ != cudaSuccess)                                            \
            return try_e_;                                                    \
    } while (0)

/* ------------------------------------------------------------ util */

/* malloc that aborts on failure. */
void *xmalloc(size_t n);
/* calloc that aborts on failure. */
void *xcalloc(size_t n, size_t size);
/* realloc that aborts on failure. */
void *xrealloc(void *p, size_t n);
/* Appends p to a growable pointer array. */
void ptr_push(void ***arr, size_t *n, size_t *cap, void *p);

/* ------------------------------------------------------------ host_cost.c */

/* Spends STANDIN_SUBMIT_US: an operation (or a graph launch) queued on a stream. */
void host_cost_submit(void);
/* Spends STANDIN_GRAPH_UPDATE_US: a cudaGraphExecUpdate. */
void host_cost_graph_update(void);
/* Spends STANDIN_GRAPH_LAUNCH_US: a cudaGraphLaunch. */
void host_cost_graph_launch(void);
/* Spends STANDIN_NODE_PATCH_US: one node of an executable graph given new parameters. */
void host_cost_node_patch(void);
/* Queues `kernels` kernels' run time on the device, on the virtual host clock (STANDIN_KERNEL_US). */
void device_time_queue(unsigned long kernels);
/* A host sync: the virtual host clock moves on to when the device's queued kernels have run. */
void device_time_wait(void);
/* A program's own host work, us microseconds (exported; on the virtual host clock if preloaded, else a sleep). */
void standin_host_work(long us);
/* The next cuEventRecord of event through the driver fails (exported, for tests; events.c). */
cudaError_t standin_fail_driver_record(cudaEvent_t event);

/* ------------------------------------------------------------ work */

/* What one queued operation or graph node does. */
enum work_kind {
    W_NOP,          /* ordering only: stream waits, graph ends, empty nodes */
    W_KERNEL,
    W_COPY,
    W_SET,
    W_HOST,         /* cudaLaunchHostFunc / host node */
    W_CALLBACK,     /* cudaStreamAddCallback */
    W_EVENT_RECORD,
    W_EVENT_WAIT,   /* graph event-wait node: its event joins the preds */
    W_FREE,         /* cudaFreeAsync outside capture */
    W_MEM_ALLOC,    /* graph memory allocation node (memory reserved at capture) */
    W_MEM_FREE,     /* graph memory free node */
};

/* A kernel launch: the twin, its configuration and a private argument copy. */
struct kernel_work {
    const struct standin_kernel *k;
    const void *handle;             /* what the launch named: a twin's address, or a module's function */
    unsigned long long generation;  /* the handle's generation then (modules.c: a reused handle is another) */
    dim3 grid, block;
    unsigned shmem;
    void *argbuf;   /* all arguments, laid out at their parameter offsets */
    void **argv;    /* argv[i] points into argbuf */
    /* Queued: the priority it runs at (its launch's, else its stream's); a graph node's: its priority attribute
       (0 unless set, or captured: the launch's, else the stream's), which a graph launch uses or not (graph.c). */
    int priority;
    bool programmatic; /* a programmatic dependent launch on a stream (in a graph, its edges say it) */
};

/* One operation, queued on a stream or held by a graph node. */
struct work {
    enum work_kind kind;
    union {
        struct kernel_work kernel;
        struct {
            struct cudaMemcpy3DParms p;
            void *staging;      /* owned copy of pageable source bytes */
        } copy;
        struct cudaMemsetParams set;
        struct cudaHostNodeParams host;
        struct {
            cudaStreamCallback_t fn;
            void *user;
            cudaStream_t stream;
        } callback;
        struct event *event;    /* W_EVENT_RECORD, W_EVENT_WAIT */
        struct {
            void *ptr;
            size_t size;
        } mem;                  /* W_FREE, W_MEM_ALLOC, W_MEM_FREE */
    } u;
};

/* Deep copy of a work item (kernel arguments and staging included). */
void work_clone(struct work *dst, const struct work *src);
/* Releases what a work item owns. */
void work_release(struct work *w);
/* Performs queued work item `id` on the CPU; returns a device fault or cudaSuccess. */
cudaError_t work_run(struct work *w, uint64_t id);

/* ------------------------------------------------------------ scheduler.c */

/* Queues w (taken over) to run after every pending op in preds; returns its id. */
uint64_t sched_submit(struct work *w, const uint64_t *preds, size_t npreds);
/* The same, preds[i] a primary where programmatic[i] (NULL: none) and both are kernels: w may start before it
 * (scheduler.c, "Programmatic dependencies"). */
uint64_t sched_submit_dependent(struct work *w, const uint64_t *preds, const bool *programmatic, size_t npreds);
/* True while the op with this id has not completed (0 is never pending). */
bool sched_pending(uint64_t id);
/* Runs one ready op chosen by the seeded generator; false when none is ready. */
bool sched_step(void);
/* Runs ops until id has completed; returns the sticky error if one arose. */
cudaError_t sched_run_until(uint64_t id);
/* Runs at most one op, then reports whether id has run (the query rule). */
cudaError_t sched_query(uint64_t id);
/* Runs every queued op; returns the sticky error if one arose. */
cudaError_t sched_run_all(void);
/* Drops every queued op unrun (a context reset after a device fault). */
void sched_drop_all(void);
/* The fake device clock, in nanoseconds. */
uint64_t sched_now_ns(void);

/* ------------------------------------------------------------ device_thread.c */

/* Starts the thread that runs ready ops without host waits (once; mapped memory exists). */
void device_thread_start(void);
/* An op became ready: wakes the device thread if it runs. */
void device_thread_notify(void);

/* ------------------------------------------------------------ streams.c */

struct stream {
    void *self;                 /* key of the live-handle table */
    unsigned flags;             /* cudaStreamDefault or cudaStreamNonBlocking */
    int priority;
    int kind;                   /* STREAM_USER, STREAM_LEGACY, STREAM_PER_THREAD */
    uint64_t last_op;           /* last op submitted to the stream, 0 if none */
    unsigned long long id;      /* cudaStreamGetId */
    struct capture *cap;        /* capture the stream takes part in, or NULL */
    struct gnode **deps;        /* capture: nodes the next node depends on */
    size_t ndeps, capdeps;
    struct stream *next;        /* list of all streams (legacy barrier) */
    UT_hash_handle hh;          /* live-handle table */
};

/* A stream's or a launch's priority as the device takes it: clamped to [-5 (greatest), 0 (least)]. */
int priority_clamp(int priority);

enum { STREAM_USER, STREAM_LEGACY, STREAM_PER_THREAD };

/* Resolves a handle (ptds: NULL means the per-thread stream). */
cudaError_t stream_get(cudaStream_t h, bool ptds, struct stream **out);
/* The legacy default stream. */
struct stream *stream_legacy(void);
/* True for streams that synchronise with the legacy stream. */
bool stream_is_blocking(const struct stream *s);
/* Collects the preds that a new op on s must wait for; returns the count. */
size_t stream_preds(struct stream *s, uint64_t **preds, size_t *cap);
/* Queues w on s, or adds it as a node when s captures; *op_out gets the op
 * id (0 when captured). Checks the capture rules for s first. */
cudaError_t stream_submit(struct stream *s, struct work *w, uint64_t *op_out);
/* Queues w on s outside capture (no checks); returns the op id. */
uint64_t stream_enqueue(struct stream *s, struct work *w);
/* A context reset: every capture ends, created streams become handles of a destroyed context. */
void streams_context_reset(void);

/* ------------------------------------------------------------ events.c */

struct event {
    void *self;                 /* key of the live-handle table */
    unsigned flags;
    bool recorded;              /* ever recorded outside capture */
    uint64_t last_record;       /* op id of the latest record, 0 if none */
    uint64_t time_ns;           /* fake clock when that record ran */
    unsigned long long cap_id;  /* last recorded in this capture (0: not) */
    struct gnode **deps;        /* the capture dependencies it recorded */
    size_t ndeps;
    bool destroyed;             /* kept: a graph's node may name it (graph.c aborts its launch) */
    bool fail_driver_record;    /* its next cuEventRecord fails (standin_fail_driver_record) */
    UT_hash_handle hh;
};

/* Resolves an event handle. */
cudaError_t event_get(cudaEvent_t h, struct event **out);
/* Marks a record op (id) submitted for ev, outside capture. */
void event_note_record(struct event *ev, uint64_t op);
/* Called when a record op for ev runs: stamps the time, may free ev. */
void event_record_ran(struct event *ev, uint64_t op);
/* A context reset: every event becomes a handle of a destroyed context. */
void events_context_reset(void);

/* ------------------------------------------------------------ memory.c */

enum mem_kind { MEM_PAGEABLE, MEM_DEVICE, MEM_PINNED, MEM_MANAGED, MEM_SYMBOL };

/* What kind of memory p points into; base and size get the allocation. */
enum mem_kind mem_lookup(const void *p, void **base, size_t *size);
/* Frees an allocation now (a cudaFreeAsync that ran). */
void mem_release(void *ptr);
/* Device memory that lives until exit (graph allocation nodes). */
void *mem_alloc_device(size_t n);
/* cudaMalloc's body for a kind of memory (the capture-mode check first). */
cudaError_t mem_alloc(void **out, size_t size, enum mem_kind kind);
/* cudaFree's body (host: cudaFreeHost's): waits for the device, then frees. */
cudaError_t mem_free(void *p, bool host);
/* cudaHostAlloc's body (cudaHostAlloc* flags, the driver's CU_MEMHOSTALLOC_* have the same values). */
cudaError_t mem_host_alloc(void **p, size_t size, unsigned flags);
/* cudaHostGetDevicePointer's body. */
cudaError_t mem_host_device_pointer(void **dev, void *host, unsigned flags);
/* cudaMallocAsync's body: at once outside capture, a memory alloc node inside. */
cudaError_t mem_malloc_async(void **p, size_t size, cudaStream_t h, bool ptsz);
/* cudaFreeAsync's body: queued outside capture, a memory free node inside. */
cudaError_t mem_free_async(void *p, cudaStream_t h, bool ptsz);
/* Validates a copy and fills a 3-D parameter block for a 2-D copy. */
cudaError_t copy_params_2d(struct cudaMemcpy3DParms *p, void *dst, size_t dpitch,
                           const void *src, size_t spitch, size_t width,
                           size_t height, enum cudaMemcpyKind kind);
/* Validates user-given 3-D copy parameters (pitched pointers only). */
cudaError_t copy_params_check(const struct cudaMemcpy3DParms *p);
/* Validates user-given memset parameters. */
cudaError_t memset_params_check(const struct cudaMemsetParams *p);
/* The memory type class used by graph update rules (1 device, 0 host). */
int mem_type_class(const void *p);
/* Performs a 3-D copy; staging, when set, replaces the (packed) source. */
void copy_run(const struct cudaMemcpy3DParms *p, const void *staging);
/* Performs a 2-D memset of 1, 2 or 4-byte elements. */
void set_run(const struct cudaMemsetParams *p);

/* ------------------------------------------------------------ launch.c */

/* Finds a registered twin by the address programs launch with. */
const struct standin_kernel *kernel_find(const void *func);
/* The twin registered under a name (cudaErrorSymbolNotFound when none). */
cudaError_t kernel_by_name(const void **func, const char *name);
/* Runs every block of a launch through its CPU twin; returns a fault. */
cudaError_t kernel_run(struct kernel_work *k);
/* Validates a launch and builds its work item (arguments copied). */
cudaError_t kernel_work_make(struct work *w, const void *func, dim3 grid, dim3 block,
                             size_t shmem, void **args);
/* Validates and queues (or captures) a launch on a stream handle (ptsz: NULL means the per-thread stream), at
 * *priority (NULL: the stream's); programmatic: a programmatic dependent launch (after the stream's previous
 * op, if a kernel, as its primary). */
cudaError_t launch_on_stream(const void *func, dim3 grid, dim3 block, void **args, size_t shmem, cudaStream_t h,
                             bool ptsz, const int *priority, bool programmatic);

/* ------------------------------------------------------------ capture.c */

struct capture {
    unsigned long long id;
    enum cudaStreamCaptureMode mode;
    pthread_t thread;           /* thread that began it */
    struct graph *graph;
    struct stream *origin;
    bool invalidated;
    struct stream **members;    /* origin and every stream that joined */
    size_t nmembers, capmembers;
    UT_hash_handle hh;          /* active captures by id */
};

/* Finds an active capture by id. */
struct capture *capture_find(unsigned long long id);
/* Marks a capture invalidated. */
void capture_invalidate(struct capture *c);
/* A call adding work to s failed with e: invalidates s's capture; returns e. */
cudaError_t capture_fail(struct stream *s, cudaError_t e);
/* Takes a stream being destroyed out of its capture. */
void capture_forget_stream(struct stream *s);
/* Adds w as a node of s's capture after s's dependencies. */
cudaError_t capture_add(struct stream *s, struct work *w);
/* The "potentially unsafe call" rule of the current thread's capture mode:
 * an error (and invalidated captures) when the call is prohibited. */
cudaError_t capture_check_unsafe(void);
/* The legacy stream is about to be used: fails (invalidating) when a
 * blocking stream captures. */
cudaError_t capture_check_legacy(void);
/* A synchronisation is about to wait for s: fails when s captures. */
cudaError_t capture_check_stream_sync(struct stream *s);
/* A synchronisation is about to wait for ev: fails when ev was captured. */
cudaError_t capture_check_event_sync(struct event *ev);
/* A device-wide synchronisation: fails when any capture is active. */
cudaError_t capture_check_device_sync(void);
/* Joins s to ev's capture (cudaStreamWaitEvent); *handled when it did. */
cudaError_t capture_wait_event(struct stream *s, struct event *ev, bool *handled);
/* Records ev in s's capture. */
void capture_record_event(struct stream *s, struct event *ev);
/* True when some blocking stream is capturing. */
bool capture_blocking_active(void);
/* cudaStreamGetCaptureInfo's body (CUDA 13 signature; every output but st optional). */
cudaError_t capture_info(cudaStream_t h, enum cudaStreamCaptureStatus *st, unsigned long long *id,
                         cudaGraph_t *graph, const cudaGraphNode_t **deps, const cudaGraphEdgeData **edges,
                         size_t *ndeps, bool ptsz);

/* ------------------------------------------------------------ graph.c */

/* Creates an empty graph. */
struct graph *graph_new(void);
/* Frees a graph and its nodes. */
void graph_free(struct graph *g);
/* Adds a node (taking w) after deps; returns it. */
struct gnode *graph_add(struct graph *g, enum cudaGraphNodeType type, struct work *w,
                        struct gnode *const *deps, size_t ndeps);
/* Ancestors-or-self test: true when a is b or an ancestor of b. */
bool graph_reaches(const struct gnode *a, const struct gnode *b);
/* A context reset: every graph, node and executable graph becomes a handle of a destroyed context. */
void graphs_context_reset(void);

/* ------------------------------------------------------------ driver_entry.c */

/* A driver function the runtime calls as CUDA's runtime does (a preloaded shim's wrapper first), or NULL. */
void *driver_function(const char *name);

/* ------------------------------------------------------------ modules.c */

/* The twin a launch names (a registered twin's address, or a live function or kernel of a module or
 * library) and the handle's generation; cudaErrorInvalidResourceHandle for anything else, an unloaded
 * module's function included. */
cudaError_t kernel_of_handle(const void *handle, const struct standin_kernel **k, unsigned long long *generation);
/* True for a function or kernel handle that a module or library handed out, unloaded since or not. */
bool module_handle(const void *handle);
/* True when a handle a node took (at generation) names a function of an unloaded module since. */
bool handle_unloaded(const void *handle, unsigned long long generation);
/* A context reset: its modules are unloaded, and the functions of libraries' kernels in it die. */
void modules_context_reset(void);

/* ------------------------------------------------------------ context.c */

/* True from the first call that needs the context until a reset (cuDevicePrimaryCtxGetState's `active`). */
extern bool context_active;

/* Handles of a destroyed context: resolving one gives cudaErrorContextIsDestroyed. In a call the real driver
 * crashes in (launching, destroying or changing what the handle names), that aborts the process saying so;
 * any other result e is returned. */
cudaError_t context_fatal_if_destroyed(cudaError_t e, const char *call, const char *what, const void *handle);

#endif
