/* SPDX-License-Identifier: MIT */
/* Observe mode's sequences: each thread's node calls between boundaries, compared with their neighbours. */
#include "config.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "event_refs.h"
#include "log.h"
#include "observe_sequences.h"
#include "settings.h"

/* The calls a thread's buffer holds at first; it grows at the end of a longer sequence. */
#define FIRST_CAPACITY 256

/* One thread's sequence under way and its watch over the ones before. */
struct sequence_watch {
    struct call_sig *calls;   /* an event call's target is its event until the sequence ends (relate_events) */
    unsigned count, capacity; /* count goes on past capacity: such a sequence is not compared */
    struct event_refs events; /* relate_events' */
    struct neighbours neighbours;
    pthread_mutex_t lock;     /* its thread while it compares a sequence; the summary while it reads */
    struct sequence_watch *next;
};

static void (*namer)(const struct sig_difference *d, struct difference_words *w);
static pthread_mutex_t watches_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sequence_watch *watches; /* under watches_lock */
static struct no_repeat retired;       /* exited threads', under watches_lock */
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;
static __thread struct sequence_watch *my_watch __attribute__((tls_model("initial-exec")));

/* How a difference is put in words; set by the process. */
void observe_set_namer(void (*fn)(const struct sig_difference *d, struct difference_words *w))
{
    namer = fn;
}

/* At a thread's exit: its summary joins the exited threads', its buffers are freed. */
static void retire_watch(void *block)
{
    struct sequence_watch *w = block;
    pthread_mutex_lock(&watches_lock);
    for (struct sequence_watch **p = &watches; *p; p = &(*p)->next)
        if (*p == w) {
            *p = w->next;
            break;
        }
    no_repeat_merge(&retired, &w->neighbours.summary);
    pthread_mutex_unlock(&watches_lock);
    neighbours_free(&w->neighbours);
    event_refs_free(&w->events);
    free(w->calls);
    pthread_mutex_destroy(&w->lock);
    if (my_watch == w)
        my_watch = NULL;
    free(w);
}

/* Makes the key whose destructor retires a thread's watch. */
static void make_exit_key(void)
{
    (void)pthread_key_create(&exit_key, retire_watch);
}

/* This thread's watch, made at its first call; NULL if memory ran out. */
static struct sequence_watch *watch_self(void)
{
    if (__builtin_expect(my_watch != NULL, 1))
        return my_watch;
    struct sequence_watch *w = calloc(1, sizeof *w);
    if (w == NULL)
        return NULL;
    /* Room for a sequence of the usual length from the start: its first ones are compared too. */
    unsigned max_calls = (unsigned)shim_options.num[OPT_MAX_REGION_CALLS];
    w->capacity = max_calls < FIRST_CAPACITY ? max_calls : FIRST_CAPACITY;
    w->calls = malloc(sizeof *w->calls * w->capacity);
    if (w->calls == NULL)
        w->capacity = 0;
    pthread_mutex_init(&w->lock, NULL);
    pthread_once(&exit_key_once, make_exit_key);
    pthread_mutex_lock(&watches_lock);
    w->next = watches;
    watches = w;
    pthread_mutex_unlock(&watches_lock);
    (void)pthread_setspecific(exit_key, w);
    my_watch = w;
    return w;
}

/*
 * Names each event call of the sequence's count calls as auto mode's
 * signatures do: by how its event relates to the sequence's earlier event
 * calls (policy/event_refs.h), so that occurrences naming a pool's events
 * in turn are alike here too.
 */
static void relate_events(struct sequence_watch *w, unsigned count)
{
    event_refs_reset(&w->events);
    for (unsigned i = 0; i < count; i++)
        if (call_kind_target(call_api_kind(w->calls[i].api)) == CALL_TARGET_EVENT)
            w->calls[i].target = event_refs_note(&w->events, w->calls[i].target, i);
}

/* Ends the thread's sequence: compared if whole and as long as a region may be; its buffer grown if it was short. */
static void end_sequence_watched(struct sequence_watch *w)
{
    unsigned count = w->count;
    w->count = 0;
    unsigned min_calls = (unsigned)shim_options.num[OPT_MIN_REGION_CALLS];
    unsigned max_calls = (unsigned)shim_options.num[OPT_MAX_REGION_CALLS];
    if (count > w->capacity) {
        unsigned capacity = count < max_calls ? count : max_calls;
        struct call_sig *grown = capacity > w->capacity ? realloc(w->calls, sizeof *grown * capacity) : NULL;
        if (grown != NULL)
            w->calls = grown, w->capacity = capacity;
        return; /* the next one fits */
    }
    if (count < min_calls || count == 0)
        return;
    relate_events(w, count);
    pthread_mutex_lock(&w->lock);
    if (neighbours_sequence(&w->neighbours, w->calls, count, 0, 0)) {
        w->neighbours.summary.thread = log_thread_number();
        if (namer)
            namer(&w->neighbours.summary.difference, &w->neighbours.summary.words);
    }
    pthread_mutex_unlock(&w->lock);
}

/* Observe mode: a call of kind on stream joins its thread's sequence, or ends it. */
void observe_sequence_call(uint32_t api, enum call_kind kind, cudaStream_t stream, uint64_t target)
{
    /* CALL_KIND_COUNT: a driver function that is no front door (cuMemcpyDtoH): no kind set holds it, it ends one. */
    bool known = kind < CALL_KIND_COUNT;
    if (known && (call_kind_in(kind, CALL_KINDS_NO_ORDER) || kind == CALL_CONFIG_PUSH || kind == CALL_CONFIG_POP))
        return;
    struct sequence_watch *w = watch_self();
    if (w == NULL)
        return;
    if (!known || !call_kind_in(kind, CALL_KINDS_NODE)) {
        end_sequence_watched(w);
        return;
    }
    if (w->count < w->capacity)
        w->calls[w->count] = (struct call_sig){.api = api, .stream = (uint64_t)(uintptr_t)stream, .target = target};
    if (w->count < UINT32_MAX)
        w->count++;
}

/* Every thread's neighbouring sequences compared so far, those of threads that exited included. */
void observe_no_repeat(struct no_repeat *out)
{
    pthread_mutex_lock(&watches_lock);
    *out = retired;
    for (struct sequence_watch *w = watches; w; w = w->next) {
        pthread_mutex_lock(&w->lock);
        no_repeat_merge(out, &w->neighbours.summary);
        pthread_mutex_unlock(&w->lock);
    }
    pthread_mutex_unlock(&watches_lock);
}
