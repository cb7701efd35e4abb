/* SPDX-License-Identifier: MIT */
/* Waits that streams owe a graph launched on another stream: made only when something next reaches them. */
#include "config.h"

#include <pthread.h>

#include "libcuda.h"
#include "log.h"
#include "owed_waits.h"

/*
 * A small table, one slot per owing stream.  A slot's stream is written
 * under the lock and read without it (release and acquire): a call on a
 * stream that owes nothing scans the slots in use and takes no lock.  The
 * rest of a slot is read and written under the lock only.  A wait is made
 * under the lock, before its slot is freed: another thread that finds the
 * slot gone may forward its work, which must come after the wait.
 */
#define OWED_SLOTS 64

struct owed_slot {
    _Atomic(cudaStream_t) stream; /* NULL: free */
    cudaEvent_t event;
    cudaStream_t origin;
    CUcontext context;            /* the launch's: where the wait is made */
    uint64_t version;
    bool barrier; /* a blocking stream owing on another stream than the legacy one: legacy-stream work settles it */
};

atomic_uint owed_wait_count;
static atomic_uint barrier_count;   /* slots with barrier set */
static atomic_uint slots_used;      /* slots [0, slots_used) may be taken */
static struct owed_slot slots[OWED_SLOTS];
static uint64_t last_version;       /* under the lock */
static pthread_mutex_t owed_lock = PTHREAD_MUTEX_INITIALIZER;

/* The slot stream owes in, or -1 (no lock needed). */
static int slot_of(cudaStream_t stream)
{
    unsigned used = atomic_load_explicit(&slots_used, memory_order_acquire);
    for (unsigned i = 0; i < used; i++)
        if (atomic_load_explicit(&slots[i].stream, memory_order_acquire) == stream)
            return (int)i;
    return -1;
}

/*
 * Makes stream wait for event now, in context (the thread that settles may
 * have none current yet: its runtime call, forwarded next, would make one);
 * says so if it cannot (once).
 */
static CUresult wait_now(cudaStream_t stream, cudaEvent_t event, CUcontext context)
{
    static atomic_bool told;
    CUcontext mine;
    bool switched = libcuda_context_enter(context, &mine);
    CUresult err = DEVICE_CALL(cuStreamWaitEvent, stream, event, 0);
    libcuda_context_leave(switched, mine);
    if (err != CUDA_SUCCESS && !atomic_exchange(&told, true))
        log_warn("stream %p could not be made to wait for a graph launched before it (%s): its later work may "
                 "overtake the graph's",
                 (void *)stream, libcuda_error_name(err));
    return err;
}

/* Frees slot i (under the lock). */
static void slot_free(unsigned i)
{
    if (slots[i].barrier)
        atomic_fetch_sub_explicit(&barrier_count, 1, memory_order_relaxed);
    atomic_store_explicit(&slots[i].stream, NULL, memory_order_release);
    atomic_fetch_sub_explicit(&owed_wait_count, 1, memory_order_relaxed);
}

/* Makes the wait of slot i and frees it (under the lock). */
static CUresult slot_settle(unsigned i)
{
    cudaStream_t stream = atomic_load_explicit(&slots[i].stream, memory_order_relaxed);
    CUresult err = wait_now(stream, slots[i].event, slots[i].context);
    log_debug("stream %p made the wait it owed a graph launched on stream %p", (void *)stream,
              (void *)slots[i].origin);
    slot_free(i);
    return err;
}

/* Settles every slot for which pick says so (under the lock taken here). */
static void settle_where(bool (*pick)(const struct owed_slot *, const void *), const void *arg)
{
    pthread_mutex_lock(&owed_lock);
    unsigned used = atomic_load_explicit(&slots_used, memory_order_relaxed);
    for (unsigned i = 0; i < used; i++)
        if (atomic_load_explicit(&slots[i].stream, memory_order_relaxed) && pick(&slots[i], arg))
            (void)slot_settle(i);
    pthread_mutex_unlock(&owed_lock);
}

/* Whether the legacy stream's work must settle a slot (its barrier). */
static bool is_barrier(const struct owed_slot *s, const void *unused)
{
    (void)unused;
    return s->barrier;
}

/* Whether a slot is owed on the event arg. */
static bool owes_event(const struct owed_slot *s, const void *event)
{
    return s->event == (cudaEvent_t)event;
}

/* Whether a slot is in use (every one). */
static bool any_slot(const struct owed_slot *s, const void *unused)
{
    (void)s, (void)unused;
    return true;
}

/* owed_waits_settle's slow path: something is owed somewhere. */
void owed_waits_settle_slow(cudaStream_t stream)
{
    if (stream == NULL || stream == cudaStreamPerThread)
        return; /* device-wide; the per-thread stream follows the legacy stream alone */
    if (stream == cudaStreamLegacy) {
        if (atomic_load_explicit(&barrier_count, memory_order_relaxed))
            settle_where(is_barrier, NULL);
        return;
    }
    if (slot_of(stream) < 0)
        return;
    pthread_mutex_lock(&owed_lock);
    int i = slot_of(stream); /* settled by another thread meanwhile? */
    if (i >= 0)
        (void)slot_settle((unsigned)i);
    pthread_mutex_unlock(&owed_lock);
}

/* Every owed wait is made now (before held-back work is submitted one by one, on whichever streams). */
void owed_waits_settle_all(void)
{
    if (atomic_load_explicit(&owed_wait_count, memory_order_relaxed))
        settle_where(any_slot, NULL);
}

/* Before event is destroyed: the streams that owe a wait on it make it now. */
void owed_waits_settle_event(cudaEvent_t event)
{
    if (event && atomic_load_explicit(&owed_wait_count, memory_order_relaxed))
        settle_where(owes_event, event);
}

/* Before a graph launch on launch: it follows what each of streams[0..count) owes (see owed_waits.h). */
CUresult owed_waits_follow(const cudaStream_t *streams, unsigned count, cudaStream_t launch, struct owed_wait *owed,
                           unsigned *waits)
{
    CUresult first = CUDA_SUCCESS;
    for (unsigned k = 0; k < count; k++)
        owed[k] = (struct owed_wait){0};
    if (atomic_load_explicit(&owed_wait_count, memory_order_relaxed) == 0)
        return first;
    /* The per-thread default stream is another stream on each thread: the same handle is no proof. */
    bool launch_known = launch != cudaStreamPerThread;
    pthread_mutex_lock(&owed_lock);
    for (unsigned k = 0; k < count; k++) {
        int i = slot_of(streams[k]);
        if (i < 0)
            continue;
        owed[k] = (struct owed_wait){slots[i].event, slots[i].origin, slots[i].version};
        if (launch_known && slots[i].origin == launch)
            continue;
        /* Nothing reached the stream since it owed the wait (that would have made it): the launch makes it. */
        CUresult err = DEVICE_CALL(cuStreamWaitEvent, launch, slots[i].event, 0);
        first = first == CUDA_SUCCESS ? err : first;
        ++*waits;
    }
    pthread_mutex_unlock(&owed_lock);
    return first;
}

/* A free slot for a new owing stream (under the lock), or -1 if the table is full. */
static int slot_take(void)
{
    unsigned used = atomic_load_explicit(&slots_used, memory_order_relaxed);
    for (unsigned i = 0; i < used; i++)
        if (atomic_load_explicit(&slots[i].stream, memory_order_relaxed) == NULL)
            return (int)i;
    if (used == OWED_SLOTS)
        return -1;
    atomic_store_explicit(&slots_used, used + 1, memory_order_release);
    return (int)used;
}

/* After a graph launch on origin, recorded in event: the streams with owe[i] owe a wait on it (see owed_waits.h). */
CUresult owed_waits_note(const cudaStream_t *streams, const bool *owe, const bool *blocking, unsigned count,
                         cudaEvent_t event, cudaStream_t origin, CUcontext context, const struct owed_wait *seen,
                         unsigned *waited)
{
    CUresult first = CUDA_SUCCESS, err;
    *waited = 0;
    pthread_mutex_lock(&owed_lock);
    for (unsigned k = 0; k < count; k++) {
        if (!owe[k])
            continue;
        int i = slot_of(streams[k]);
        if (i >= 0 && slots[i].version != seen[k].version) {
            /* Noted by another thread's launch since the joins looked: this launch does not follow it. */
            err = slot_settle((unsigned)i);
            first = first == CUDA_SUCCESS ? err : first;
            i = -1;
        }
        bool fresh = i < 0;
        if (fresh && (i = slot_take()) < 0) {
            err = wait_now(streams[k], event, NULL); /* no room: made now, as before owed waits (this context) */
            first = first == CUDA_SUCCESS ? err : first;
            ++*waited;
            continue;
        }
        struct owed_slot *s = &slots[i];
        if (!fresh && s->barrier)
            atomic_fetch_sub_explicit(&barrier_count, 1, memory_order_relaxed);
        s->event = event;
        s->origin = origin;
        s->context = context;
        s->version = ++last_version;
        /* Work on the legacy stream follows a blocking stream's last work, and what was recorded on it. */
        s->barrier = blocking[k] && origin != cudaStreamLegacy;
        if (s->barrier)
            atomic_fetch_add_explicit(&barrier_count, 1, memory_order_relaxed);
        if (fresh) {
            atomic_fetch_add_explicit(&owed_wait_count, 1, memory_order_relaxed);
            atomic_store_explicit(&s->stream, streams[k], memory_order_release);
        }
    }
    pthread_mutex_unlock(&owed_lock);
    return first;
}
