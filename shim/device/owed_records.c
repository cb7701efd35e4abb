/* SPDX-License-Identifier: MIT */
/* Program events recorded inside a fast-path graph: recorded after its launch only when something next observes them. */
#include "config.h"

#include <pthread.h>

#include "libcuda.h"
#include "log.h"
#include "owed_records.h"

/*
 * A small table, one slot per owed event, as owed_waits.c's: a slot's
 * event and stream are written under the lock and read without it
 * (release and acquire), so that a call that concerns nothing owed scans
 * the slots in use and takes no lock.  A record is made under the lock,
 * before its slot is freed: another thread that finds the slot gone may
 * forward a wait on the event, which must find it recorded.
 */
#define OWED_SLOTS 64

struct owed_record {
    _Atomic(cudaEvent_t) event;   /* NULL: free */
    _Atomic(cudaStream_t) stream; /* where the graph was launched: the record is made there */
    CUcontext context;            /* the launch's */
    bool barrier;                 /* a blocking stream: legacy-stream work settles it */
    unsigned host_waits;          /* owed_record_host_waits when it was noted */
};

atomic_uint owed_record_count;
atomic_uint owed_record_host_waits;
static atomic_uint barrier_count; /* slots with barrier set */
static atomic_uint slots_used;    /* slots [0, slots_used) may be taken */
static struct owed_record slots[OWED_SLOTS];
static pthread_mutex_t owed_lock = PTHREAD_MUTEX_INITIALIZER;

/* Records event on stream now, in context (the settling thread may have none current). */
static CUresult record_now(cudaEvent_t event, cudaStream_t stream, CUcontext context)
{
    CUcontext mine;
    bool switched = libcuda_context_enter(context, &mine);
    CUresult err = DEVICE_CALL(cuEventRecord, event, stream);
    libcuda_context_leave(switched, mine);
    return err;
}

/* Says (once) that a record owed after a graph was given up: it could not be made (err). */
static void say_record_lost(cudaEvent_t event, CUresult err)
{
    static atomic_bool told;
    if (!atomic_exchange(&told, true))
        log_warn("event %p could not be recorded after the graph that recorded it (%s): what waits for it may "
                 "overtake the graph's work",
                 (void *)event, libcuda_error_name(err));
}

/* Frees slot i (under the lock). */
static void slot_free(unsigned i)
{
    if (slots[i].barrier)
        atomic_fetch_sub_explicit(&barrier_count, 1, memory_order_relaxed);
    atomic_store_explicit(&slots[i].event, NULL, memory_order_release);
    atomic_fetch_sub_explicit(&owed_record_count, 1, memory_order_relaxed);
}

/* Makes the record of slot i (under the lock); the slot stays taken. */
static CUresult slot_record(unsigned i)
{
    struct owed_record *s = &slots[i];
    cudaEvent_t event = atomic_load_explicit(&s->event, memory_order_relaxed);
    cudaStream_t stream = atomic_load_explicit(&s->stream, memory_order_relaxed);
    CUresult err = record_now(event, stream, s->context);
    if (err == CUDA_SUCCESS)
        log_debug("event %p made the record it owed after a graph launched on stream %p", (void *)event,
                  (void *)stream);
    return err;
}

/*
 * Makes the record of slot i, for the host to observe (see
 * owed_records_observe) or not, and frees it, made or not (under the lock).
 */
static CUresult slot_settle(unsigned i, bool host_observes)
{
    struct owed_record *s = &slots[i];
    cudaEvent_t event = atomic_load_explicit(&s->event, memory_order_relaxed);
    CUresult err = slot_record(i);
    if (err != CUDA_SUCCESS)
        say_record_lost(event, err);
    /* The program may have seen the graph done (a sync, a query): a query of the event must then say so. */
    else if (host_observes && atomic_load_explicit(&owed_record_host_waits, memory_order_relaxed) != s->host_waits)
        err = DEVICE_CALL(cuEventSynchronize, event);
    slot_free(i);
    return err;
}

/* Whether a call that extends stream and observes event reaches slot s (exactly: under the lock). */
static bool reaches(const struct owed_record *s, cudaStream_t stream, cudaEvent_t event)
{
    cudaEvent_t owed = atomic_load_explicit(&s->event, memory_order_acquire);
    if (owed == NULL)
        return false;
    if (event == OWED_ANY_EVENT || (event != NULL && owed == event))
        return true;
    if (stream == NULL || stream == cudaStreamPerThread)
        return false; /* device-wide; the per-thread stream is never owed on */
    return atomic_load_explicit(&s->stream, memory_order_relaxed) == stream ||
           (stream == cudaStreamLegacy && s->barrier);
}

/* The settles' slow path: something is owed somewhere (host_observes: see owed_records_observe). */
void owed_records_settle_slow(cudaStream_t stream, cudaEvent_t event, bool host_observes)
{
    /* Without the lock first: most calls reach nothing owed (a slot's barrier is read only with the lock). */
    unsigned used = atomic_load_explicit(&slots_used, memory_order_acquire);
    bool any = event == OWED_ANY_EVENT ||
               (stream == cudaStreamLegacy && atomic_load_explicit(&barrier_count, memory_order_relaxed) != 0);
    for (unsigned i = 0; i < used && !any; i++) {
        cudaEvent_t owed = atomic_load_explicit(&slots[i].event, memory_order_acquire);
        any = owed != NULL && ((event != NULL && owed == event) ||
                               (stream != NULL && atomic_load_explicit(&slots[i].stream, memory_order_relaxed) == stream));
    }
    if (!any)
        return;
    pthread_mutex_lock(&owed_lock);
    used = atomic_load_explicit(&slots_used, memory_order_relaxed);
    for (unsigned i = 0; i < used; i++)
        if (reaches(&slots[i], stream, event))
            (void)slot_settle(i, host_observes);
    pthread_mutex_unlock(&owed_lock);
}

/* Every owed record is made now (before held-back work is submitted one by one). */
void owed_records_settle_all(void)
{
    owed_records_settle(NULL, OWED_ANY_EVENT);
}

/* Whether event is one of events[0..count). */
static bool among(const cudaEvent_t *events, unsigned count, cudaEvent_t event)
{
    for (unsigned k = 0; k < count; k++)
        if (events[k] == event)
            return true;
    return false;
}

/*
 * Before a fast-path graph is launched on streams[0]: what it follows is
 * made, what it records again dropped.  A record that cannot be made stays
 * owed, and so do the rest: the graph, which would wait for the event as
 * recorded before, is not launched (see owed_records.h).
 */
CUresult owed_records_before_launch(const cudaStream_t *streams, unsigned count, const cudaEvent_t *records,
                                    unsigned nrecords, const cudaEvent_t *waits, unsigned nwaits)
{
    if (atomic_load_explicit(&owed_record_count, memory_order_relaxed) == 0)
        return CUDA_SUCCESS;
    bool legacy = among((const cudaEvent_t *)streams, count, (cudaEvent_t)cudaStreamLegacy);
    CUresult err = CUDA_SUCCESS;
    pthread_mutex_lock(&owed_lock);
    unsigned used = atomic_load_explicit(&slots_used, memory_order_relaxed);
    for (unsigned i = 0; i < used && err == CUDA_SUCCESS; i++) {
        cudaEvent_t event = atomic_load_explicit(&slots[i].event, memory_order_relaxed);
        if (event == NULL)
            continue;
        cudaStream_t stream = atomic_load_explicit(&slots[i].stream, memory_order_relaxed);
        bool follows = among(waits, nwaits, event); /* the graph's wait node waits for the record before it */
        if (!follows && among(records, nrecords, event)) {
            slot_free(i); /* recorded again by the graph before anything observed it: dropped */
            continue;
        }
        /* Or the graph is later work on its stream. */
        follows = follows || among((const cudaEvent_t *)streams, count, (cudaEvent_t)stream) ||
                  (legacy && slots[i].barrier);
        if (follows && (err = slot_record(i)) == CUDA_SUCCESS)
            slot_free(i);
    }
    pthread_mutex_unlock(&owed_lock);
    return err;
}

/* A free slot (under the lock), or -1 if the table is full. */
static int slot_take(void)
{
    unsigned used = atomic_load_explicit(&slots_used, memory_order_relaxed);
    for (unsigned i = 0; i < used; i++)
        if (atomic_load_explicit(&slots[i].event, memory_order_relaxed) == NULL)
            return (int)i;
    if (used == OWED_SLOTS)
        return -1;
    atomic_store_explicit(&slots_used, used + 1, memory_order_release);
    return (int)used;
}

/* After a fast-path graph was launched on stream in context: events[0..count) are owed a record there. */
CUresult owed_records_note(const cudaEvent_t *events, unsigned count, cudaStream_t stream, CUcontext context,
                           bool blocking)
{
    CUresult first = CUDA_SUCCESS;
    if (count == 0)
        return first;
    pthread_mutex_lock(&owed_lock);
    unsigned used = atomic_load_explicit(&slots_used, memory_order_relaxed);
    for (unsigned k = 0; k < count; k++) {
        /* Owed already (another thread's graph recorded it since this launch looked): this record is the later. */
        for (unsigned i = 0; i < used; i++)
            if (atomic_load_explicit(&slots[i].event, memory_order_relaxed) == events[k])
                slot_free(i);
        int i = slot_take();
        if (i < 0) {
            CUresult err = record_now(events[k], stream, NULL); /* no room: made now (this context) */
            if (err != CUDA_SUCCESS)
                say_record_lost(events[k], err);
            first = first == CUDA_SUCCESS ? err : first;
            continue;
        }
        used = atomic_load_explicit(&slots_used, memory_order_relaxed);
        struct owed_record *s = &slots[i];
        atomic_store_explicit(&s->stream, stream, memory_order_relaxed);
        s->context = context;
        s->barrier = blocking && stream != cudaStreamLegacy;
        if (s->barrier)
            atomic_fetch_add_explicit(&barrier_count, 1, memory_order_relaxed);
        s->host_waits = atomic_load_explicit(&owed_record_host_waits, memory_order_relaxed);
        atomic_fetch_add_explicit(&owed_record_count, 1, memory_order_relaxed);
        atomic_store_explicit(&s->event, events[k], memory_order_release);
    }
    pthread_mutex_unlock(&owed_lock);
    return first;
}
