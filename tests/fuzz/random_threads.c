/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/random_threads.c: a random multi-threaded CUDA program per
 * seed, for the multi-threaded differential test
 * (tests/fuzz/threads_differential.sh).
 *
 *     random_threads [--dump] [--no-handoff-wait] [--no-pair-order] [--no-relay-order] [--iters=N] [--keep=T:I,...] SEED
 *
 * The shape. From SEED (splitmix64, tests/fuzz/fuzz_random.h) it builds 2..3
 * host threads. Each thread owns 1..3 streams (blocking, non-blocking, in
 * some threads its per-thread default stream cudaStreamPerThread, sometimes
 * the legacy stream too), 2..4 private buffers, a few private events and a
 * body of operations that it runs 30..60 times: kernel launches of the test
 * kernels (kernels/kernels.h), memsets, D2D copies, copies from pageable
 * memory, copies into a pinned landing area of the stream, host functions,
 * event records and waits among its own streams, now and then a stream
 * query or synchronisation. Each iteration ends with the thread's
 * kind of synchronisation (its streams, a join into one stream, the device,
 * or only every few iterations); after a synchronised iteration the thread
 * folds into its own hash its streams' landing areas and host functions'
 * sums (read on the host straight after its syncs, before any other call)
 * and then its buffers.
 *
 * Threads exchange data through 1..3 *channels*. A channel's producer owns a
 * shared buffer: its body writes it, and at the publish point records the
 * channel's "produced" event on the stream that owns the buffer. In the
 * channel's handoff iterations (every k-th) it then publishes the iteration
 * on the host (mutex and condition variable). The consumer, at the end of
 * its body in the same iteration, waits on the host for it, makes the GPU
 * wait (cudaStreamWaitEvent on its reading stream, cudaEventSynchronize,
 * cudaDeviceSynchronize, a launch on the legacy stream,
 * cudaStreamSynchronize of the producer's stream, or cudaEventQuery until
 * done), reads the shared buffer into a private one (a copy, an axpy or a
 * sum), records the channel's "taken" event and publishes "done". Before
 * its next iteration the producer waits on the host for "done" and makes
 * the buffer's home stream wait for the read (cudaStreamWaitEvent or
 * cudaEventSynchronize of "taken", cudaStreamSynchronize of the reading
 * stream, or a launch on the legacy stream) before anything writes the
 * buffer again.
 *
 * Why it is race-free. Inside a thread, each buffer is owned by one stream
 * at a time; another stream takes it over through a record and a wait (as
 * in random_program.c), and at the end of the body every buffer goes home.
 * Across threads only shared buffers are touched by two threads, and the
 * consumer only reads them: its read follows the producer's writes (the
 * GPU wait of the handoff, issued after the host handshake, so after the
 * producer's record), and the producer's next write follows the read (the
 * wait for "taken"). After the publish point the producer's body neither
 * reads nor writes the shared buffer. The legacy-stream handoff is allowed
 * only where it orders: the producer's publishing stream is a blocking one
 * (created blocking, per-thread default, or legacy), whose work the legacy
 * launch waits for, and the consumer reads on a blocking or the legacy
 * stream, which waits for the launch (the other way round for "done": the
 * reading stream and the buffer's home stream). A stream is synchronised
 * from another thread only if it was created (cudaStreamPerThread names
 * the caller's own). Landing areas and host function sums are per stream,
 * written by that stream only. Host waits only wait for points that
 * come earlier in the other thread's iteration order (a publish in the same
 * iteration, a consumer's end in the previous one), so no thread can wait
 * for one waiting for it. Nothing printed depends on timing: query answers
 * are not printed, errors are counted per thread, and everything is printed
 * by main after joining the threads, in a fixed order.
 *
 * Shared streams and stress kinds (issue 12). In some seeds two threads
 * share one created stream (a *pair*): at a point of its body each takes
 * the pair's mutex, moves a few of its buffers onto the shared stream
 * (record and wait, as between its own streams), issues a few calls there,
 * moves them back, and releases the mutex. Each thread's calls there touch
 * only its own buffers, so the order in which the two go does not matter;
 * in an *ordered* pair the first thread's calls also write the pair's
 * mailbox buffer and the second's read it, ordered by the shared stream
 * alone: a host handshake (the second waits for the first's segment of the
 * iteration, the first for the second's of the previous one) fixes which
 * thread goes first, so the read must see the write of the same iteration.
 * The first thread of an ordered pair is the lower-numbered one: within an
 * iteration a thread then waits mid-body only for lower-numbered threads
 * (and at its end for publishes), so no two threads wait for each other
 * (two ordered pairs in opposite directions deadlocked seeds 100300,
 * 100316 and 100573). No thread waits on the host while it holds a mutex.
 * Bodies may also hold the stress kinds of random_program.c (drawn from a
 * second generator, so that a seed drawing none keeps its program): a
 * k_big_arg launch whose 4000-byte table changes one word every few
 * iterations, a kernel or copy whose pointer rotates among three buffers, a
 * kernel whose block size, dynamic shared memory or grid changes every few
 * iterations, a host function writing pinned memory that the next copy on
 * its stream reads, an invalid launch in every few iterations (counted as an
 * error; cudaGetLastError or cudaPeekAtLastError right after it must give
 * the launch's result, else main prints how often it did not). Not the
 * program's own capture: another thread's stream or device sync during it
 * would change its result with timing (random_program.c has it). A host spin
 * on mapped memory (issue 12 case 1): k_poke writes the iteration into the
 * thread's cudaHostAllocMapped flag and the thread spins on it with no CUDA
 * call (its held-back work runs only through the shim's watchdog, and
 * other threads' may be in the way). The header line "stress kinds:"
 * counts them.
 *
 * Relays (issue 15): in some seeds two threads take turns on a created
 * stream of their own, the *relay stream*, as PyTorch's forward and
 * backward threads do (drawn from a third generator: a seed without a relay
 * keeps its program). At a point of its body the giver (the lower-numbered
 * thread) moves a few of its buffers onto the relay stream, issues calls
 * there and writes the relay box, moves them back, and hands the stream
 * over on the host; the receiver, at the start of its iteration, waits on
 * the host for that, reads the box into a buffer of its own whose home is
 * the relay stream (its first call there; in some seeds it moves another
 * buffer over first), issues a few calls there and hands the stream back;
 * it synchronises the relay stream with its own at the end of each
 * synchronised iteration. In a *training* relay the giver waits on the
 * host for the stream to come back (the receiver also writes the box) and
 * then reads the box on the relay stream, which the receiver waits for
 * before it goes on; in the other the giver goes on at once and waits only
 * before its next turn. Only the relay stream orders the box's writes and
 * reads: no CUDA call passes between the threads. The giver waits
 * mid-body for a higher-numbered thread, which is safe because the
 * receiver's turn comes first in its iteration and waits for nothing else.
 *
 * --dump             prints the generated program
 * --no-handoff-wait  the consumer skips the GPU wait of every handoff (the
 *                    host handshake stays): a deliberately racy program, whose
 *                    output must depend on STANDIN_SEED for some seeds
 * --no-pair-order    ordered pairs skip their host handshake (the mutex
 *                    stays): a deliberately racy program, whose mailbox
 *                    reads then depend on which thread goes first
 * --no-relay-order   a relay's threads skip their host hand-over: a
 *                    deliberately racy program, whose box then depends on
 *                    which thread goes first
 * --runtime-only     every call through the runtime door (fuzz_door.h): the
 *                    output must not change
 * --door-mask=BITS   only these kinds of call may take the driver door
 *                    (fuzz_door.h: enum door_class; FUZZ_DOOR_MASK too), to
 *                    minimise a seed (default: every kind)
 * --iters=N          runs every body N times instead
 * --keep=T:I,...     keeps only these operations of thread T's body (numbers
 *                    as --dump prints them; repeatable), to minimise a seed
 *                    (keep a pair's lock and unlock together)
 */
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "../../kernels/kernels.h"
#include "../report.h"
#include "fuzz_random.h"
#include "fuzz_door.h"
#include "fuzz_stress.h"

#define MAX_THREADS 3
#define MAX_STREAMS 4
#define MAX_PRIVATE 4
#define MAX_CHANNELS 3
#define MAX_BUFFERS (MAX_PRIVATE + MAX_CHANNELS)
#define MAX_EVENTS 3
#define MAX_OPS 256
#define MAX_PAIRS 2       /* pairs of threads sharing a stream */
#define SHARED_S(p) (MAX_STREAMS + (p)) /* the stream index of pair p's shared stream in a body */
#define RELAY_S (MAX_STREAMS + MAX_PAIRS) /* the stream index of the relay stream in a body */
#define RELAY_BOX MAX_PAIRS               /* the relay box's index among the mailboxes */
#define MAX_STAGES 2      /* OP_HOST_STAGE operations per thread */

/* ------------------------------------------------------------ the program */

enum stream_kind { STREAM_LEGACY, STREAM_BLOCKING, STREAM_NON_BLOCKING, STREAM_PER_THREAD };
static const char *const stream_kind_names[] = {"legacy", "blocking", "non-blocking", "per-thread"};

enum op_kind {
    OP_KERNEL,
    OP_D2D,
    OP_MEMSET,
    OP_H2D_PAGEABLE,
    OP_D2H_PINNED,
    OP_HOST_FUNC,
    OP_RECORD,
    OP_WAIT,
    OP_QUERY_STREAM,
    OP_SYNC_STREAM,
    OP_SYNC_EVENT,
    OP_PUBLISH,      /* producer: record "produced"; in a handoff iteration, publish it */
    OP_HANDOFF_WAIT, /* consumer: wait on the host for the producer, then make the GPU wait */
    OP_TAKE,         /* consumer: read the shared buffer into a private one */
    OP_TAKEN,        /* consumer: record "taken" and publish "done" */
    OP_LOCK,         /* pair ival: (in an ordered pair, wait for the other's segment, then) take its mutex */
    OP_UNLOCK,       /* pair ival: release its mutex (in an ordered pair, say the segment is done) */
    OP_MAILBOX,      /* pair ival's mailbox, on its shared stream: the first thread writes it, the second reads it */
    /* stress kinds (issue 12) */
    OP_BIG_ARG,      /* k_big_arg: a 4000-byte table by value, one word changing every few iterations */
    OP_ROTATE,       /* a kernel or copy whose pointer argument rotates among three buffers */
    OP_HOST_STAGE,   /* [D2H into pinned,] a host function writing pinned memory, the H2D copy reading it */
    OP_FAULT,        /* an invalid launch in some iterations, and the last error right after it */
    OP_MAPPED_SPIN,  /* k_poke writes the iteration into mapped memory; the thread spins on it, no CUDA call */
    /* relays (issue 15): host hand-overs of the relay stream, no CUDA call */
    OP_RELAY_GIVE,   /* giver: (not training) waits until its last turn came back */
    OP_RELAY_GO,     /* giver: hands the relay stream over; training: waits until it comes back */
    OP_RELAY_AFTER,  /* giver, training: says its reads after the turn are issued */
    OP_RELAY_WAIT,   /* receiver: waits for its turn */
    OP_RELAY_BACK,   /* receiver: hands the relay stream back; training: waits for the giver's reads */
};
static const char *const op_names[] = {"kernel",       "d2d",          "memset",      "h2d_pageable", "d2h_pinned",
                                       "host_func",    "record",       "wait",        "query_stream", "sync_stream",
                                       "sync_event",   "publish",      "handoff_wait", "take",        "taken",
                                       "lock",         "unlock",       "mailbox",     "big_arg",      "rotate",
                                       "host_stage",   "fault",        "mapped_spin",  "relay_give",   "relay_go",
                                       "relay_after",  "relay_wait",   "relay_back"};

/* The stress kinds, in the order their presence is drawn. */
enum stress { ST_SHARED_STREAM, ST_BIG_ARG, ST_ROTATE, ST_GEOMETRY, ST_HOST_STAGE, ST_FAULT, ST_MAPPED_SPIN,
              ST_DRIVER_DOOR, ST_DRIVER_ONLY, ST_RELAY, ST_COUNT };
static const char *const stress_names[] = {"shared_stream", "big_arg", "rotate", "geometry", "host_stage", "fault",
                                           "mapped_spin", "driver_door", "driver_only", "relay"};
/* Percentage of seeds with a pair sharing a stream; of threads with each body kind (1 or 2 of it). */
static const unsigned stress_percent[ST_COUNT] = {
    [ST_SHARED_STREAM] = 45, [ST_BIG_ARG] = 20, [ST_ROTATE] = 20, [ST_GEOMETRY] = 20, [ST_HOST_STAGE] = 20,
    [ST_FAULT] = 15,
    /* Once a program has mapped memory the stand-in's device thread runs all its work on its own, and each
       spin on held-back work costs up to the watchdog's bound until its region is refused. */
    [ST_MAPPED_SPIN] = 12,
    /* Not drawn by draw_stress but by the door generator (fuzz_door.h: door_seed): operations made through
       the driver (80% of seeds), and seeds where every operation that can goes through it (20%). */
    [ST_DRIVER_DOOR] = 80, [ST_DRIVER_ONLY] = 20,
    /* Not drawn by draw_stress but by the third generator (gen_relay). */
    [ST_RELAY] = 35,
};

enum kernel_id { K_FILL, K_AXPY, K_SCALE, K_ADD_STEP, K_COMBINE, K_REDUCE, K_EMPTY, K_APPLY_COEF, K_COUNT };
static const char *const kernel_names[] = {"fill", "axpy", "scale", "add_step", "combine", "reduce_sum",
                                           "empty", "apply_coef"};

/* How the consumer makes the GPU wait for the producer's record. */
enum handoff {
    HANDOFF_STREAM_WAIT, /* cudaStreamWaitEvent on its reading stream */
    HANDOFF_EVENT_SYNC,  /* cudaEventSynchronize */
    HANDOFF_DEVICE_SYNC, /* cudaDeviceSynchronize */
    HANDOFF_LEGACY,      /* a launch on the legacy stream (blocking streams on both sides) */
    HANDOFF_STREAM_SYNC, /* cudaStreamSynchronize of the producer's stream (a created one) */
    HANDOFF_EVENT_POLL,  /* cudaEventQuery until it answers cudaSuccess */
    HANDOFF_COUNT
};
static const char *const handoff_names[] = {"stream_wait", "event_sync",  "device_sync",
                                            "legacy_launch", "stream_sync", "event_poll"};

/* How the producer makes its next write wait for the consumer's read ("taken"). */
enum done {
    DONE_STREAM_WAIT, /* cudaStreamWaitEvent on the buffer's home stream */
    DONE_EVENT_SYNC,  /* cudaEventSynchronize */
    DONE_STREAM_SYNC, /* cudaStreamSynchronize of the consumer's reading stream (a created one) */
    DONE_LEGACY,      /* a launch on the legacy stream (blocking streams on both sides) */
    DONE_COUNT
};
static const char *const done_names[] = {"stream_wait", "event_sync", "stream_sync", "legacy_launch"};

enum sync_mode { SYNC_STREAMS, SYNC_JOIN, SYNC_DEVICE, SYNC_EVERY_FEW, SYNC_COUNT };
static const char *const sync_names[] = {"streams", "join", "device", "every_few"};

struct op {
    enum op_kind kind;
    int s;       /* stream index in the thread */
    int k;       /* kernel */
    int b[4];    /* buffer indices in the thread (OP_ROTATE: three rotating, then a fixed one or -1) */
    int vary;    /* scalar arguments or offsets change with the iteration */
    int block;   /* threads per block of a kernel */
    float f;     /* scalar */
    int ival;    /* step, memset byte, what OP_TAKE does */
    int off, off2, len; /* in floats: destination offset, source offset, length */
    int ev;      /* private event */
    int channel; /* -1: every iteration; else only in this channel's handoff iterations (or its channel) */
    int geo;     /* kernel: its geometry changes every `every` iterations (enum geometry, fuzz_stress.h) */
    int every, phase; /* the period of a change (geometry, big_arg's word, fault) */
    int variant; /* what a stress kind or mailbox does */
    int via;     /* launched through __cudaLaunchKernel */
    int slot;    /* OP_HOST_STAGE: its state in the thread */
    struct door d[4]; /* the doors of its calls (fuzz_door.h; door_slots says how many it uses) */
};

/* One host thread's part: its streams, buffers, events and body. */
struct thread_program {
    int nstreams;
    enum stream_kind kind[MAX_STREAMS];
    int nprivate, nbuffers; /* buffers 0..nprivate-1 are private, the rest shared (it produces them) */
    int home[MAX_BUFFERS];
    int nevents;
    enum sync_mode sync;
    int sync_every;
    int fold_stream;  /* the stream it copies its buffers back on, or -1: cudaMemcpy */
    struct op ops[MAX_OPS];
    int count;
    int nstages, nspins;
    struct door end_door[2 * MAX_STREAMS + 1]; /* the iteration's end: records or syncs, waits, the device */
    struct door fold_door[2];                  /* the fold's copies and their sync */
};

/* Two threads sharing a created stream, each issuing a few calls on it under the pair's mutex. */
struct pair {
    int first, second; /* threads; in an ordered pair the first writes the mailbox and the second reads it */
    int ordered;
    enum stream_kind kind; /* blocking or non-blocking */
};

/* Two threads taking turns on the relay stream, host hand-overs between (see the header). */
struct relay {
    int giver, receiver; /* giver < receiver */
    int training;        /* the giver waits for the stream to come back, then reads the box */
    int moves_first;     /* the receiver's first call moves a buffer onto the relay stream (else it reads the box) */
    enum stream_kind kind; /* blocking or non-blocking */
    int box_buffer;      /* the receiver's buffer whose home is the relay stream */
};

/* Data from a producer thread to a consumer thread. */
struct channel {
    int producer, consumer;
    int buffer;         /* the producer's buffer index */
    int every, phase;   /* handoff iterations: it % every == phase */
    enum handoff handoff;
    enum done done;
    int publish_stream; /* the producer's */
    int read_stream;    /* the consumer's */
    struct door handoff_door, done_door; /* the consumer's GPU wait, the producer's */
};

static struct {
    int nthreads, n, iters;
    struct thread_program t[MAX_THREADS];
    int nchannels;
    struct channel ch[MAX_CHANNELS];
    int npairs;
    struct pair pair[MAX_PAIRS];
    int has_relay;
    struct relay relay;
    int stress[ST_COUNT]; /* how many of each stress kind the program has */
    unsigned door_share;  /* percent of operations through the driver (fuzz_door.h) */
} P;

/* Generation state of the thread whose body is being generated. */
static struct thread_program *gen;
static int owner[MAX_BUFFERS]; /* a stream index in the thread, or SHARED_S(p) inside a segment */
static int frozen[MAX_BUFFERS]; /* published: the rest of the body leaves it alone */
static int emit_channel = -1;

/* Appends an operation to the current thread's body. */
static struct op *emit(enum op_kind kind, int s)
{
    if (gen->count == MAX_OPS) {
        fprintf(stderr, "random_threads: too many operations\n");
        exit(2);
    }
    struct op *o = &gen->ops[gen->count++];
    memset(o, 0, sizeof *o);
    o->kind = kind;
    o->s = s;
    o->channel = emit_channel;
    return o;
}

/* Stream s is about to touch buffer b: if another of the thread's streams owns it, join through an event. */
static void need(int s, int b)
{
    if (owner[b] == s)
        return;
    int ev = (int)below((unsigned)gen->nevents);
    emit(OP_RECORD, owner[b])->ev = ev;
    emit(OP_WAIT, s)->ev = ev;
    owner[b] = s;
}

/* How many buffers the body may still touch. */
static int usable_buffers(void)
{
    int usable = 0;
    for (int b = 0; b < gen->nbuffers; b++)
        usable += !frozen[b];
    return usable;
}

/* A random buffer the body may still touch, other than the ones given (-1: none). */
static int pick_buffer(int not1, int not2)
{
    int b;
    do
        b = (int)below((unsigned)gen->nbuffers);
    while (b == not1 || b == not2 || frozen[b]);
    return b;
}

/* An operation on stream s over a random range of buffer b (destination offset off, source offset off2). */
static struct op *emit_ranged(enum op_kind kind, int s, int b)
{
    need(s, b);
    struct op *o = emit(kind, s);
    o->b[0] = b;
    random_range(P.n, &o->off, &o->len);
    o->off2 = (int)below((unsigned)(P.n - o->len + 1));
    return o;
}

/* How many buffers a kernel takes. */
static int kernel_buffers(enum kernel_id k)
{
    switch (k) {
    case K_EMPTY: return 0;
    case K_AXPY:
    case K_REDUCE: return 2;
    case K_COMBINE: return 3;
    default: return 1;
    }
}

/* One kernel launch on stream s, over buffers the body may still touch. */
static void gen_kernel(int s)
{
    static const float scalars[] = {0.5f, -0.25f, 0.75f, 1.25f};
    enum kernel_id k;
    do
        k = (enum kernel_id)below(K_COUNT);
    while (kernel_buffers(k) > usable_buffers());
    int b0 = -1, b1 = -1, b2 = -1;
    if (kernel_buffers(k) > 0)
        need(s, b0 = pick_buffer(-1, -1));
    if (kernel_buffers(k) > 1)
        need(s, b1 = pick_buffer(b0, -1));
    if (kernel_buffers(k) > 2)
        need(s, b2 = pick_buffer(b0, b1));
    struct op *o = emit(OP_KERNEL, s);
    o->k = k;
    o->b[0] = b0, o->b[1] = b1, o->b[2] = b2;
    o->vary = chance(50);
    o->block = chance(25) ? 128 : 256;
    o->f = scalars[below(4)];
    o->ival = (int)below(10);
}

/* One operation of the body's random part, on stream s. */
static void gen_body_op(int s)
{
    unsigned r = below(100);
    struct op *o;
    if (r < 45 || usable_buffers() < 2) {
        gen_kernel(s);
    } else if (r < 57) {
        int src = pick_buffer(-1, -1), dst = pick_buffer(src, -1);
        need(s, src);
        o = emit_ranged(OP_D2D, s, dst);
        o->b[1] = src;
        o->vary = chance(30);
    } else if (r < 67) {
        int b = pick_buffer(-1, -1);
        need(s, b);
        o = emit(OP_MEMSET, s);
        o->b[0] = b;
        random_range(P.n, &o->off, &o->len);
        o->ival = (int)below(6);
        o->vary = chance(40);
    } else if (r < 72) {
        emit_ranged(OP_H2D_PAGEABLE, s, pick_buffer(-1, -1));
    } else if (r < 77) {
        /* Into the stream's own pinned landing area, read on the host after the iteration's sync. */
        emit_ranged(OP_D2H_PINNED, s, pick_buffer(-1, -1));
    } else if (r < 81) {
        emit(OP_HOST_FUNC, s);
    } else if (r < 85) {
        emit(OP_RECORD, s)->ev = (int)below((unsigned)gen->nevents);
    } else if (r < 90) {
        emit(OP_WAIT, s)->ev = (int)below((unsigned)gen->nevents); /* only adds order */
    } else if (r < 94) {
        emit(OP_QUERY_STREAM, s);
    } else if (r < 97) {
        emit(OP_SYNC_STREAM, s);
    } else {
        emit(OP_SYNC_EVENT, s)->ev = (int)below((unsigned)gen->nevents);
    }
}

/* The producer's side of channel c at its publish point: write the shared buffer, record, publish. */
static void gen_publish(int c)
{
    const struct channel *ch = &P.ch[c];
    int s = ch->publish_stream, shared = ch->buffer;
    /* The last write before the handoff, so that a consumer reading too early reads something else. */
    need(s, shared);
    struct op *o;
    if (chance(50)) {
        int x = pick_buffer(shared, -1);
        need(s, x);
        o = emit(OP_KERNEL, s);
        o->k = K_AXPY, o->b[0] = x, o->b[1] = shared, o->f = 0.5f;
    } else {
        o = emit(OP_KERNEL, s);
        o->k = K_ADD_STEP, o->b[0] = shared, o->f = 0.25f, o->vary = 1;
    }
    o->block = 256;
    emit(OP_PUBLISH, s)->channel = c;
    frozen[shared] = 1;
}

/* The consumer's side of channel c, at the end of its body: wait, read, record "taken". */
static void gen_take(int c)
{
    const struct channel *ch = &P.ch[c];
    int s = ch->read_stream;
    emit_channel = c; /* all of it only in the channel's handoff iterations */
    emit(OP_HANDOFF_WAIT, s);
    int dst = (int)below((unsigned)gen->nprivate), before = owner[dst];
    int what = (int)below(3); /* a copy, an axpy, a sum */
    struct op *o = emit_ranged(OP_TAKE, s, dst);
    o->ival = what;
    o->f = chance(50) ? 0.5f : -0.75f;
    emit(OP_TAKEN, s);
    need(before, dst); /* ownership as outside the handoff iterations */
    emit_channel = -1;
}

/* Whether a stream's work is ordered with the legacy stream's (both ways). */
static int orders_with_legacy(enum stream_kind kind)
{
    return kind != STREAM_NON_BLOCKING;
}

/* Whether a stream is one the program created (so any thread can name it). */
static int is_created(enum stream_kind kind)
{
    return kind == STREAM_BLOCKING || kind == STREAM_NON_BLOCKING;
}

/* A random stream of thread t that orders with the legacy stream, or -1. */
static int pick_legacy_ordered_stream(int t)
{
    int candidates[MAX_STREAMS], n = 0;
    for (int s = 0; s < P.t[t].nstreams; s++)
        if (orders_with_legacy(P.t[t].kind[s]))
            candidates[n++] = s;
    return n ? candidates[below((unsigned)n)] : -1;
}

/* Thread t's streams, buffers, events and synchronisation. */
static void gen_thread_resources(int t)
{
    struct thread_program *tp = &P.t[t];
    int created = 1 + (int)below(3);
    for (int s = 0; s < created; s++)
        tp->kind[s] = chance(55) ? STREAM_NON_BLOCKING : STREAM_BLOCKING;
    if (chance(40))
        tp->kind[0] = STREAM_PER_THREAD;
    tp->nstreams = created;
    if (chance(25))
        tp->kind[tp->nstreams++] = STREAM_LEGACY;
    tp->nprivate = tp->nbuffers = 2 + (int)below(MAX_PRIVATE - 1);
    tp->nevents = 1 + (int)below(MAX_EVENTS);
    tp->sync = (enum sync_mode)below(SYNC_COUNT);
    tp->sync_every = 2 + (int)below(5);
    tp->fold_stream = chance(25) ? -1 : 0; /* stream 0 is never the legacy one */
}

/* Channel c: its two threads, its shared buffer, when and how it hands over. */
static void gen_channel(int c)
{
    struct channel *ch = &P.ch[c];
    ch->producer = (int)below((unsigned)P.nthreads);
    ch->consumer = (ch->producer + 1 + (int)below((unsigned)P.nthreads - 1)) % P.nthreads;
    struct thread_program *prod = &P.t[ch->producer];
    ch->buffer = prod->nbuffers++;
    prod->home[ch->buffer] = 0;
    ch->every = 1 + (int)below(4);
    ch->phase = (int)below((unsigned)ch->every);
    ch->handoff = (enum handoff)below(HANDOFF_COUNT);
    ch->done = (enum done)below(DONE_COUNT);
    ch->publish_stream = (int)below((unsigned)prod->nstreams);
    ch->read_stream = (int)below((unsigned)P.t[ch->consumer].nstreams);
    const struct thread_program *cons = &P.t[ch->consumer];
    if (ch->handoff == HANDOFF_LEGACY || ch->done == DONE_LEGACY) {
        /* The legacy launch orders only blocking (and legacy) streams, on both sides; the buffer's home
           stream (stream 0) is where the producer's next write waits. */
        int publish = pick_legacy_ordered_stream(ch->producer), read = pick_legacy_ordered_stream(ch->consumer);
        if (ch->handoff == HANDOFF_LEGACY && (publish < 0 || read < 0))
            ch->handoff = HANDOFF_STREAM_WAIT;
        else if (ch->handoff == HANDOFF_LEGACY)
            ch->publish_stream = publish;
        if (ch->done == DONE_LEGACY && (read < 0 || !orders_with_legacy(prod->kind[0])))
            ch->done = DONE_STREAM_WAIT;
        if (read >= 0 && (ch->handoff == HANDOFF_LEGACY || ch->done == DONE_LEGACY))
            ch->read_stream = read;
    }
    /* Another thread can name only a created stream (cudaStreamPerThread would be its own). */
    if (ch->handoff == HANDOFF_STREAM_SYNC && !is_created(prod->kind[ch->publish_stream]))
        ch->handoff = HANDOFF_EVENT_SYNC;
    if (ch->done == DONE_STREAM_SYNC && !is_created(cons->kind[ch->read_stream]))
        ch->done = DONE_EVENT_SYNC;
}

/* ------------------------------------------------------------ shared streams and stress kinds (issue 12) */

/* One call of a segment on pair p's shared stream, over the thread's own buffers. */
static void gen_segment_call(int shared)
{
    unsigned r = below(100);
    struct op *o;
    if (r < 60 || usable_buffers() < 2) {
        gen_kernel(shared);
    } else if (r < 80) {
        int b = pick_buffer(-1, -1);
        need(shared, b);
        o = emit(OP_MEMSET, shared);
        o->b[0] = b;
        random_range(P.n, &o->off, &o->len);
        o->ival = (int)below(6);
        o->vary = chance(40);
    } else {
        int src = pick_buffer(-1, -1), dst = pick_buffer(src, -1);
        need(shared, src);
        o = emit_ranged(OP_D2D, shared, dst);
        o->b[1] = src;
        o->vary = chance(30);
    }
}

/* Thread t's segment of pair p here: the mutex, a few calls on the shared stream (and the mailbox), its buffers back. */
static void gen_segment(int t, int p)
{
    const struct pair *pr = &P.pair[p];
    int shared = SHARED_S(p), before[MAX_BUFFERS];
    memcpy(before, owner, sizeof before);
    emit(OP_LOCK, shared)->ival = p;
    for (int i = 1 + (int)below(3); i > 0; i--)
        gen_segment_call(shared);
    if (pr->ordered) {
        int b = pick_buffer(-1, -1);
        need(shared, b);
        struct op *o = emit(OP_MAILBOX, shared);
        o->ival = p;
        o->b[0] = b;
        /* the first thread: 0 mailbox += 0.5 * b, 1 a range of b copied into it and a step added; the second:
           2 b += f * mailbox, 3 a range of it copied into b */
        o->variant = (t == pr->first ? 0 : 2) + (int)below2(2);
        o->f = chance2(50) ? 0.5f : -0.25f;
        random_range(P.n, &o->off, &o->len);
        o->off2 = (int)below2((unsigned)(P.n - o->len + 1));
    }
    for (int b = 0; b < gen->nbuffers; b++)
        if (owner[b] == shared)
            need(before[b], b);
    emit(OP_UNLOCK, shared)->ival = p;
}

/* A k_big_arg launch on stream s: its 4000-byte table argument changes one word (one it reads) every few iterations. */
static void gen_big_arg(int s)
{
    int b = pick_buffer(-1, -1);
    need(s, b);
    struct op *o = emit(OP_BIG_ARG, s);
    o->b[0] = b;
    o->ival = (int)below2(1u << 16);
    o->off = below2(2) ? P.n - 1 : (int)below2((unsigned)P.n); /* the word that changes */
    o->every = 1 + (int)below2(3);
    o->via = chance2(40);
    o->block = chance2(50) ? 128 : 256;
}

/* A kernel or copy on stream s whose pointer argument rotates among three buffers, one each iteration. */
static void gen_rotate(int s)
{
    int usable = usable_buffers();
    if (usable < 3)
        return;
    int r0 = pick_buffer(-1, -1), r1 = pick_buffer(r0, -1), r2 = pick_buffer(r0, r1), fixed = -1;
    /* 0: k_add_step writes the rotating buffer; 1: k_axpy reads it into a fixed one; 2: a D2D copy from it */
    int variant = usable < 4 ? 0 : (int)below2(3);
    if (variant > 0) {
        do
            fixed = pick_buffer(r0, r1);
        while (fixed == r2);
    }
    need(s, r0), need(s, r1), need(s, r2);
    if (fixed >= 0)
        need(s, fixed);
    struct op *o = emit(OP_ROTATE, s);
    o->b[0] = r0, o->b[1] = r1, o->b[2] = r2, o->b[3] = fixed;
    o->variant = variant;
    o->phase = (int)below2(3);
    o->f = variant == 1 ? 0.5f : 0.25f;
    o->ival = (int)below2(10);
    o->block = chance2(50) ? 128 : 256;
    o->via = chance2(30);
    random_range(P.n, &o->off, &o->len);
    o->off2 = (int)below2((unsigned)(P.n - o->len + 1));
}

/* An ordinary kernel launch on stream s whose block size, dynamic shared memory or grid changes every few iterations. */
static void gen_geometry(int s)
{
    gen_kernel(s);
    struct op *o = &gen->ops[gen->count - 1];
    o->geo = GEO_BLOCK + (int)below2(3);
    o->every = 3 + (int)below2(5);
}

/* On stream s: [a D2H copy into pinned memory,] a host function writing pinned memory, an H2D copy reading it. */
static void gen_host_stage(int s)
{
    if (gen->nstages == MAX_STAGES)
        return;
    int dst = pick_buffer(-1, -1), src = -1;
    need(s, dst);
    int variant = (int)below2(2); /* 0: it writes a pattern of its call count; 1: it transforms what the D2H brought */
    if (variant) {
        src = pick_buffer(-1, -1);
        need(s, src);
    }
    struct op *o = emit(OP_HOST_STAGE, s);
    o->b[0] = dst, o->b[1] = src;
    o->variant = variant;
    o->slot = gen->nstages++;
    random_range(P.n, &o->off, &o->len);
    o->off2 = (int)below2((unsigned)(P.n - o->len + 1));
}

/* An invalid launch on stream s in every few iterations from the seventh on, and the last error right after it. */
static void gen_fault(int s)
{
    struct op *o = emit(OP_FAULT, s);
    o->variant = (int)below2(4); /* block 2048 x 1 x 1, block 32 x 32 x 2, grid.x 0, grid.y 0 */
    o->ival = (int)below2(2);    /* then: cudaGetLastError; cudaPeekAtLastError and cudaGetLastError */
    o->every = 3 + (int)below2(8);
    o->phase = 6 + (int)below2((unsigned)o->every);
    o->via = chance2(40);
    o->b[0] = pick_buffer(-1, -1); /* an argument only: the launch never runs */
}

#define MAX_SPINS 2     /* OP_MAPPED_SPIN operations per thread */
#define SPIN_LIMIT_S 30 /* a spin that waits longer is a hang: the program says so and exits 3 */

/* On stream s: k_poke writes the iteration into the thread's mapped flag, and the thread spins on it. */
static void gen_mapped_spin(int s)
{
    if (gen->nspins == MAX_SPINS)
        return;
    struct op *o = emit(OP_MAPPED_SPIN, s);
    o->slot = gen->nspins++;
    o->via = chance2(40);
}

static int stress_at[ST_COUNT][2]; /* body positions of the thread's stress operations, -1: none */

/* Where the current thread's stress operations go (positions 0..length of its body), from the second generator. */
static void draw_stress(int length)
{
    for (int k = ST_BIG_ARG; k < ST_COUNT; k++) {
        stress_at[k][0] = stress_at[k][1] = -1;
        if (k == ST_DRIVER_DOOR || k == ST_DRIVER_ONLY || k == ST_RELAY || !chance2(stress_percent[k]))
            continue;
        stress_at[k][0] = (int)below2((unsigned)length + 1);
        if (chance2(30))
            stress_at[k][1] = (int)below2((unsigned)length + 1);
    }
}

/* Emits the current thread's stress operations placed at body position i. */
static void gen_stress_at(int i)
{
    for (int k = ST_BIG_ARG; k < ST_COUNT; k++)
        for (int j = 0; j < 2; j++) {
            if (stress_at[k][j] != i)
                continue;
            int s = (int)below2((unsigned)gen->nstreams), before = gen->count;
            switch ((enum stress)k) {
            case ST_BIG_ARG: gen_big_arg(s); break;
            case ST_ROTATE: gen_rotate(s); break;
            case ST_GEOMETRY: gen_geometry(s); break;
            case ST_HOST_STAGE: gen_host_stage(s); break;
            case ST_FAULT: gen_fault(s); break;
            case ST_MAPPED_SPIN: gen_mapped_spin(s); break;
            case ST_SHARED_STREAM:
            case ST_DRIVER_DOOR:
            case ST_DRIVER_ONLY:
            case ST_RELAY:
            case ST_COUNT: break;
            }
            P.stress[k] += gen->count > before;
        }
}

/* Pairs of threads sharing a stream (none in most seeds), from the second generator. */
static void gen_pairs(void)
{
    P.npairs = 0;
    if (!chance2(stress_percent[ST_SHARED_STREAM]))
        return;
    P.npairs = chance2(25) ? 2 : 1;
    for (int p = 0; p < P.npairs; p++) {
        struct pair *pr = &P.pair[p];
        pr->first = (int)below2((unsigned)P.nthreads);
        pr->second = (pr->first + 1 + (int)below2((unsigned)P.nthreads - 1)) % P.nthreads;
        pr->ordered = chance2(60);
        pr->kind = chance2(50) ? STREAM_NON_BLOCKING : STREAM_BLOCKING;
        if (pr->ordered && pr->first > pr->second) { /* waits within an iteration go to lower threads only */
            int t = pr->first;
            pr->first = pr->second, pr->second = t;
        }
    }
    P.stress[ST_SHARED_STREAM] = P.npairs;
}

/* ------------------------------------------------------------ relays (issue 15) */

/* A third generator, for the relays: a seed that draws none keeps the program it had before them. */
static uint64_t rng3;

/* Uniform in 0..n-1, from the third generator. */
static unsigned below3(unsigned n)
{
    return below_from(&rng3, n);
}

/* True with the given percentage, from the third generator. */
static int chance3(unsigned percent)
{
    return below3(100) < percent;
}

/* The relay (none in most seeds), from the third generator. */
static void gen_relay(void)
{
    P.has_relay = chance3(stress_percent[ST_RELAY]);
    if (!P.has_relay)
        return;
    struct relay *r = &P.relay;
    r->giver = (int)below3((unsigned)P.nthreads - 1);
    r->receiver = r->giver + 1 + (int)below3((unsigned)(P.nthreads - 1 - r->giver));
    r->training = chance3(60);
    r->moves_first = chance3(30);
    r->kind = chance3(50) ? STREAM_NON_BLOCKING : STREAM_BLOCKING;
    r->box_buffer = (int)below3((unsigned)P.t[r->receiver].nprivate);
    P.stress[ST_RELAY] = 1;
}

/* An access of the relay box on the relay stream with buffer b (moved there first): one that writes it, or reads it. */
static void gen_box(int writes, int b)
{
    need(RELAY_S, b);
    struct op *o = emit(OP_MAILBOX, RELAY_S);
    o->ival = RELAY_BOX;
    o->b[0] = b;
    o->variant = (writes ? 0 : 2) + (int)below3(2); /* as a pair's mailbox: 0 and 1 write it, 2 and 3 read it */
    o->f = chance3(50) ? 0.5f : -0.25f;
    random_range(P.n, &o->off, &o->len);
    o->off2 = (int)below3((unsigned)(P.n - o->len + 1));
}

/* Moves every buffer the relay stream took over back to where it was (before). */
static void leave_relay(const int *before)
{
    for (int b = 0; b < gen->nbuffers; b++)
        if (owner[b] == RELAY_S)
            need(before[b], b);
}

/* The giver's turn: calls on the relay stream over its buffers, a write of the box, the hand-over (and its reads after). */
static void gen_relay_give(void)
{
    int before[MAX_BUFFERS];
    memcpy(before, owner, sizeof before);
    emit(OP_RELAY_GIVE, RELAY_S);
    for (int i = 1 + (int)below3(3); i > 0; i--)
        gen_segment_call(RELAY_S);
    gen_box(1, pick_buffer(-1, -1));
    leave_relay(before);
    emit(OP_RELAY_GO, RELAY_S);
    if (!P.relay.training)
        return;
    gen_box(0, pick_buffer(-1, -1));
    if (chance3(50))
        gen_segment_call(RELAY_S);
    leave_relay(before);
    emit(OP_RELAY_AFTER, RELAY_S);
}

/* The receiver's turn, first in its body: the box read (into its buffer at home on the relay stream), a few calls, back. */
static void gen_relay_take(void)
{
    int box_buffer = P.relay.box_buffer, before[MAX_BUFFERS];
    memcpy(before, owner, sizeof before);
    emit(OP_RELAY_WAIT, RELAY_S);
    gen_box(0, P.relay.moves_first ? pick_buffer(box_buffer, -1) : box_buffer);
    for (int i = (int)below3(3); i > 0; i--)
        gen_segment_call(RELAY_S);
    if (P.relay.training)
        gen_box(1, box_buffer);
    leave_relay(before);
    emit(OP_RELAY_BACK, RELAY_S);
}

/* Thread t's body: random operations, its channels' publish points and pairs' segments, then its channels' takes. */
static void gen_body(int t)
{
    gen = &P.t[t];
    int length = 4 + (int)below(20);
    int publish_at[MAX_CHANNELS];
    for (int c = 0; c < P.nchannels; c++)
        publish_at[c] = P.ch[c].producer == t ? (int)below((unsigned)length + 1) : -1;
    for (int b = 0; b < gen->nprivate; b++)
        gen->home[b] = (int)below((unsigned)gen->nstreams);
    int gives = P.has_relay && P.relay.giver == t, takes = P.has_relay && P.relay.receiver == t;
    int give_at = gives ? (int)below3((unsigned)length + 1) : -1;
    if (takes)
        gen->home[P.relay.box_buffer] = RELAY_S;
    for (int b = 0; b < gen->nbuffers; b++)
        owner[b] = gen->home[b], frozen[b] = 0;
    int segment_at[MAX_PAIRS];
    for (int p = 0; p < P.npairs; p++)
        segment_at[p] = P.pair[p].first == t || P.pair[p].second == t ? (int)below2((unsigned)length + 1) : -1;
    draw_stress(length);
    if (takes)
        gen_relay_take();
    for (int i = 0; i <= length; i++) {
        if (i == give_at)
            gen_relay_give();
        for (int c = 0; c < P.nchannels; c++)
            if (publish_at[c] == i)
                gen_publish(c);
        for (int p = 0; p < P.npairs; p++)
            if (segment_at[p] == i)
                gen_segment(t, p);
        gen_stress_at(i);
        if (i < length)
            gen_body_op((int)below((unsigned)gen->nstreams));
    }
    for (int c = 0; c < P.nchannels; c++)
        if (P.ch[c].consumer == t)
            gen_take(c);
    /* Every buffer back to its home stream, so that iterations chain without a sync. */
    for (int b = 0; b < gen->nbuffers; b++)
        need(gen->home[b], b);
}

/* Generates the program of a seed. */
static void generate(uint64_t seed)
{
    rng = seed * 0x2545f4914f6cdd1dull + 7;
    rng2 = (seed ^ 0x5851f42d4c957f2dull) * 0xd1342543de82ef95ull + 7;
    rng3 = (seed ^ 0x6a09e667f3bcc909ull) * 0x9e3779b97f4a7c15ull + 11;
    static const int sizes[] = {256, 300, 512, 768};
    P.nthreads = 2 + (int)below(MAX_THREADS - 1);
    P.n = sizes[below(4)];
    P.iters = 30 + (int)below(31);
    for (int t = 0; t < P.nthreads; t++)
        gen_thread_resources(t);
    P.nchannels = 1 + (int)below(MAX_CHANNELS);
    for (int c = 0; c < P.nchannels; c++)
        gen_channel(c);
    gen_pairs();
    gen_relay();
    for (int t = 0; t < P.nthreads; t++)
        gen_body(t);
}

/* The kinds of an operation's calls that can go through the driver, one letter each (door_pick's kinds:
 * 'l' launch, 'c' copy, 'm' memset, 'r' event record, 'o' another, '-' none). */
static const char *door_slots(const struct op *o)
{
    switch (o->kind) {
    case OP_KERNEL:
    case OP_BIG_ARG:
    case OP_MAPPED_SPIN:
    case OP_FAULT: return "l";
    case OP_ROTATE: return o->variant == 2 ? "c" : "l";
    case OP_D2D:
    case OP_H2D_PAGEABLE:
    case OP_D2H_PINNED: return "c";
    case OP_MEMSET: return "m";
    case OP_RECORD:
    case OP_PUBLISH:
    case OP_TAKEN: return "r";
    case OP_HOST_FUNC:
    case OP_WAIT:
    case OP_QUERY_STREAM:
    case OP_SYNC_STREAM:
    case OP_SYNC_EVENT: return "o";
    case OP_TAKE: return o->ival == 0 ? "c" : "l";
    case OP_MAILBOX: return o->variant == 1 ? "cl" : o->variant == 3 ? "c" : "l";
    case OP_HOST_STAGE: return o->variant ? "coc" : "-oc"; /* [D2H,] host function, H2D */
    case OP_HANDOFF_WAIT: /* the channel's doors */
    case OP_LOCK:
    case OP_UNLOCK:
    case OP_RELAY_GIVE:
    case OP_RELAY_GO:
    case OP_RELAY_AFTER:
    case OP_RELAY_WAIT:
    case OP_RELAY_BACK: return "";
    }
    return "";
}

/* Draws every call's door from the door generator (the program's shape stays the seed's) and counts them. */
static void assign_doors(uint64_t seed)
{
    P.door_share = door_seed(seed);
    int driver_ops = 0;
    for (int t = 0; t < P.nthreads; t++) {
        struct thread_program *tp = &P.t[t];
        for (int i = 0; i < tp->count; i++) {
            struct op *o = &tp->ops[i];
            const char *slots = door_slots(o);
            int driver = 0;
            for (int j = 0; j < 4; j++) {
                o->d[j] = door_pick(P.door_share, j < (int)strlen(slots) ? slots[j] : 'o');
                if (j < (int)strlen(slots) && slots[j] != '-')
                    driver |= door_ever_driver(o->d[j]);
            }
            driver_ops += driver;
        }
        for (int i = 0; i < 2 * MAX_STREAMS + 1; i++)
            tp->end_door[i] = door_pick(P.door_share, i < MAX_STREAMS ? 'r' : 'o');
        tp->fold_door[0] = door_pick(P.door_share, 'c');
        tp->fold_door[1] = door_pick(P.door_share, 'o');
    }
    for (int c = 0; c < P.nchannels; c++) {
        P.ch[c].handoff_door = door_pick(P.door_share, 'l');
        P.ch[c].done_door = door_pick(P.door_share, 'l');
        driver_ops += door_ever_driver(P.ch[c].handoff_door) + door_ever_driver(P.ch[c].done_door);
    }
    P.stress[ST_DRIVER_DOOR] = driver_ops;
    P.stress[ST_DRIVER_ONLY] = P.door_share == 100 && driver_ops > 0;
}

/* --runtime-only: every call through the runtime (the output must not change). */
static void runtime_only(void)
{
    for (int t = 0; t < P.nthreads; t++) {
        struct thread_program *tp = &P.t[t];
        for (int i = 0; i < tp->count; i++)
            for (int j = 0; j < 4; j++)
                tp->ops[i].d[j].driver = 0, tp->ops[i].d[j].flip = 0;
        for (int i = 0; i < 2 * MAX_STREAMS + 1; i++)
            tp->end_door[i].driver = 0, tp->end_door[i].flip = 0;
        for (int i = 0; i < 2; i++)
            tp->fold_door[i].driver = 0, tp->fold_door[i].flip = 0;
    }
    for (int c = 0; c < P.nchannels; c++) {
        P.ch[c].handoff_door.driver = P.ch[c].handoff_door.flip = 0;
        P.ch[c].done_door.driver = P.ch[c].done_door.flip = 0;
    }
}

/* Prints an operation's doors (--dump). */
static void dump_doors(const struct op *o)
{
    const char *slots = door_slots(o);
    if (!*slots)
        return;
    printf("  [");
    for (int j = 0; slots[j]; j++)
        if (slots[j] != '-')
            door_dump(&o->d[j], slots[j], " ");
    printf(" ]");
}

/* Prints one operation of a body (--dump). */
static void dump_op(int index, const struct op *o)
{
    static const char *const rotations[] = {"add_step writes it", "axpy reads it into b3", "d2d from it into b3"};
    static const char *const faults[] = {"block 2048x1x1", "block 32x32x2", "grid.x 0", "grid.y 0"};
    static const char *const mailbox[] = {"mailbox += 0.5 * b", "b's range into mailbox, a step added",
                                          "b += f * mailbox", "mailbox's range into b"};
    if (o->s == RELAY_S)
        printf("  %3d r  %-12s", index, op_names[o->kind]);
    else if (o->s >= MAX_STREAMS)
        printf("  %3d p%d %-12s", index, o->s - MAX_STREAMS, op_names[o->kind]);
    else
        printf("  %3d s%d %-12s", index, o->s, op_names[o->kind]);
    switch (o->kind) {
    case OP_KERNEL:
        printf(" %s b%d b%d b%d f=%g i=%d block=%d%s", kernel_names[o->k], o->b[0], o->b[1], o->b[2], o->f,
               o->ival, o->block, o->vary ? " vary" : "");
        if (o->geo)
            printf(" geometry=%s every %d", geometry_names[o->geo], o->every);
        break;
    case OP_LOCK:
    case OP_UNLOCK: printf(" pair %d", o->ival); break;
    case OP_MAILBOX:
        if (o->ival == RELAY_BOX)
            printf(" relay box: %s", mailbox[o->variant]);
        else
            printf(" pair %d: %s", o->ival, mailbox[o->variant]);
        printf(", b%d f=%g off=%d src_off=%d len=%d", o->b[0], o->f, o->off, o->off2, o->len);
        break;
    case OP_BIG_ARG:
        printf(" b%d key=%d word %d changes every %d, block=%d%s", o->b[0], o->ival, o->off, o->every, o->block,
               o->via ? " __cudaLaunchKernel" : "");
        break;
    case OP_ROTATE:
        printf(" b%d b%d b%d from %d (%s) b3=b%d f=%g i=%d block=%d off=%d src_off=%d len=%d%s", o->b[0], o->b[1],
               o->b[2], o->phase, rotations[o->variant], o->b[3], o->f, o->ival, o->block, o->off, o->off2, o->len,
               o->via ? " __cudaLaunchKernel" : "");
        break;
    case OP_HOST_STAGE:
        printf(" slot %d: %s, host function, h2d into b%d off=%d len=%d", o->slot,
               o->variant ? "d2h from b1 first" : "no d2h", o->b[0], o->off, o->len);
        if (o->variant)
            printf(" b1=b%d src_off=%d", o->b[1], o->off2);
        break;
    case OP_FAULT:
        printf(" %s every %d from %d, then %s%s", faults[o->variant], o->every, o->phase,
               o->ival ? "cudaPeekAtLastError and cudaGetLastError" : "cudaGetLastError",
               o->via ? " __cudaLaunchKernel" : "");
        break;
    case OP_MAPPED_SPIN:
        printf(" slot %d: k_poke into mapped memory%s, then the thread spins on it", o->slot,
               o->via ? " (__cudaLaunchKernel)" : "");
        break;
    case OP_RECORD:
    case OP_WAIT:
    case OP_SYNC_EVENT: printf(" e%d", o->ev); break;
    case OP_D2D:
    case OP_MEMSET:
    case OP_H2D_PAGEABLE:
    case OP_D2H_PINNED:
    case OP_TAKE:
        printf(" b%d b%d off=%d src_off=%d len=%d val=%d f=%g%s", o->b[0], o->b[1], o->off, o->off2, o->len,
               o->ival, o->f, o->vary ? " vary" : "");
        break;
    default: break;
    }
    if (o->channel >= 0)
        printf(" [channel %d]", o->channel);
    dump_doors(o);
    printf("\n");
}

/* Prints the stress kinds the program has (a header line of the output and of --dump). */
static void print_stress_kinds(void)
{
    int ordered = 0;
    for (int p = 0; p < P.npairs; p++)
        ordered += P.pair[p].ordered;
    printf("stress kinds:");
    for (int k = 0; k < ST_COUNT; k++)
        if (stress_percent[k])
            printf(" %s %d", stress_names[k], P.stress[k]);
    printf(" ordered_pair %d training_relay %d\n", ordered, P.has_relay && P.relay.training);
}

/* Prints the program (--dump). */
static void dump(void)
{
    printf("%d threads, buffers of %d floats, %d iterations; driver door: %u%% of the calls that can\n", P.nthreads,
           P.n, P.iters, P.door_share);
    print_stress_kinds();
    for (int p = 0; p < P.npairs; p++)
        printf("pair %d: threads %d and %d share a %s stream (p%d in their bodies)%s\n", p, P.pair[p].first,
               P.pair[p].second, stream_kind_names[P.pair[p].kind], p,
               P.pair[p].ordered ? ", ordered: the first writes the mailbox, the second reads it" : "");
    if (P.has_relay)
        printf("relay: thread %d gives a %s stream (r in their bodies) to thread %d, whose b%d lives there; %s; the "
               "receiver's first call there %s\n",
               P.relay.giver, stream_kind_names[P.relay.kind], P.relay.receiver, P.relay.box_buffer,
               P.relay.training ? "training: the giver waits for it back and then reads the box"
                                : "the giver goes on at once",
               P.relay.moves_first ? "moves a buffer over" : "reads the box");
    for (int c = 0; c < P.nchannels; c++) {
        const struct channel *ch = &P.ch[c];
        printf("channel %d: thread %d b%d (published on s%d) -> thread %d (read on s%d), every %d from %d, "
               "handoff %s, done by %s\n",
               c, ch->producer, ch->buffer, ch->publish_stream, ch->consumer, ch->read_stream, ch->every, ch->phase,
               handoff_names[ch->handoff], done_names[ch->done]);
        printf("  handoff door");
        door_dump(&ch->handoff_door, 'l', " ");
        printf(", done door");
        door_dump(&ch->done_door, 'l', " ");
        printf("\n");
    }
    for (int t = 0; t < P.nthreads; t++) {
        const struct thread_program *tp = &P.t[t];
        printf("thread %d: streams", t);
        for (int s = 0; s < tp->nstreams; s++)
            printf(" s%d=%s", s, stream_kind_names[tp->kind[s]]);
        printf("; buffers (homes)");
        for (int b = 0; b < tp->nbuffers; b++)
            if (tp->home[b] == RELAY_S)
                printf(" b%d@r", b);
            else
                printf(" b%d@s%d%s", b, tp->home[b], b >= tp->nprivate ? "(shared)" : "");
        printf("; events %d; sync %s (every %d); fold %s\n", tp->nevents, sync_names[tp->sync], tp->sync_every,
               tp->fold_stream < 0 ? "cudaMemcpy" : "on s0");
        for (int i = 0; i < tp->count; i++)
            dump_op(i, &tp->ops[i]);
    }
}

/* --keep=T:I,J,...: keeps only these operations of thread T's body (to minimise a seed by hand). */
static void keep_only(const char *spec)
{
    char *end;
    long t = strtol(spec, &end, 10);
    if (*end != ':' || t < 0 || t >= P.nthreads) {
        fprintf(stderr, "random_threads: --keep=T:I,J,... (T a thread)\n");
        exit(2);
    }
    struct thread_program *tp = &P.t[t];
    static char wanted[MAX_OPS];
    memset(wanted, 0, sizeof wanted);
    for (const char *p = end + 1; *p;) {
        long i = strtol(p, &end, 10);
        if (end == p)
            break;
        if (i >= 0 && i < tp->count)
            wanted[i] = 1;
        p = *end ? end + 1 : end;
    }
    int n = 0;
    for (int i = 0; i < tp->count; i++)
        if (wanted[i])
            tp->ops[n++] = tp->ops[i];
    tp->count = n;
}

/* ------------------------------------------------------------ running it */

static cudaStream_t streams[MAX_THREADS][MAX_STREAMS + MAX_PAIRS + 1]; /* then the pairs' shared streams, the relay's */
static cudaEvent_t events[MAX_THREADS][MAX_EVENTS], join_events[MAX_THREADS][MAX_STREAMS];
static cudaEvent_t produced[MAX_CHANNELS], taken[MAX_CHANNELS];
static float *buffers[MAX_THREADS][MAX_BUFFERS];
static int no_handoff_wait, no_pair_order, no_relay_order;

/* The host handshake of the channels: the last iteration published ("ready") and taken ("done"). */
static pthread_mutex_t handshake_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t handshake_changed = PTHREAD_COND_INITIALIZER;
static int ready[MAX_CHANNELS], done[MAX_CHANNELS];

/* The pairs: each one's mutex, mailbox and (ordered pairs) the last iteration of each thread's segment. */
static pthread_mutex_t pair_lock[MAX_PAIRS] = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER};
static float *mailboxes[MAX_PAIRS + 1]; /* then the relay box */
static volatile int *spin_flags; /* OP_MAPPED_SPIN: cudaHostAllocMapped, MAX_SPINS ints a thread */
static int *spin_flags_device;
static int segment_posted[MAX_PAIRS], segment_done[MAX_PAIRS];
/* The relay's host hand-overs: the last iteration the giver gave, the receiver gave back, the giver read after. */
static int relay_given = -1, relay_back = -1, relay_after = -1;

/* A host function's state: one per stream, touched only by that stream's host functions. */
struct host_calls {
    uint64_t sum;
    unsigned calls;
    const float *landing; /* the stream's pinned landing area, which it also folds in */
};

/* What a thread keeps while it runs: main prints it after joining. */
struct worker {
    int t;
    float *pageable_src, *pinned_fold;
    float *landing[MAX_STREAMS]; /* pinned, written by D2H copies of that stream only */
    struct host_calls host_calls[MAX_STREAMS];
    uint64_t hash; /* every buffer after every synchronised iteration */
    unsigned long errors;
    char first_error[128];
    struct stage stages[MAX_STAGES];
    unsigned long last_error_disagreed; /* after a fault: cudaGetLastError/cudaPeekAtLastError said otherwise */
};
static struct worker workers[MAX_THREADS];

/* Publishes a new value of *counter. */
static void publish(int *counter, int value)
{
    pthread_mutex_lock(&handshake_lock);
    *counter = value;
    pthread_cond_broadcast(&handshake_changed);
    pthread_mutex_unlock(&handshake_lock);
}

/* Waits until *counter reaches value. */
static void await(const int *counter, int value)
{
    pthread_mutex_lock(&handshake_lock);
    while (*counter < value)
        pthread_cond_wait(&handshake_changed, &handshake_lock);
    pthread_mutex_unlock(&handshake_lock);
}

/* A host function: folds its call count and its stream's landing area into its stream's sum. */
static void CUDART_CB host_function(void *arg)
{
    struct host_calls *h = arg;
    h->sum = (h->sum ^ (h->calls * 0x9e37u + 1)) * 1099511628211ull;
    h->sum ^= hash_floats(h->landing, (size_t)P.n * sizeof(float));
    h->calls++;
}

/* Whether iteration it hands channel c's buffer over. */
static int handoff_iteration(int c, int it)
{
    return it >= 0 && it % P.ch[c].every == P.ch[c].phase;
}

/* Counts a failed call; keeps the first one's description (queries may answer cudaErrorNotReady). */
static void check(struct worker *w, cudaError_t e, int it, int op, const char *what)
{
    if (e == cudaSuccess || e == cudaErrorNotReady)
        return;
    if (w->errors++ == 0)
        snprintf(w->first_error, sizeof w->first_error, "iteration %d op %d %s: %s", it, op, what,
                 cudaGetErrorName(e));
}

/* Launches kernel k for operation o in iteration it, grid x block unless o's geometry changes every few iterations. */
static cudaError_t launch_op(const struct op *o, int it, const void *k, unsigned grid, unsigned block, void **args,
                             cudaStream_t s)
{
    dim3 g = {grid, 1, 1}, b = {block, 1, 1};
    size_t shared = 0;
    if (o->geo) /* K_REDUCE and K_EMPTY launch one block */
        change_geometry(o->geo, o->every, it, P.n, o->k != K_REDUCE && o->k != K_EMPTY, &g, &b, &shared);
    return door_launch(door_at(o->d[0], it), k, g, b, args, shared, s, o->via);
}

/* launch1d through door d. */
static cudaError_t launch1d_door(struct door d, const void *k, unsigned grid, unsigned block, void **args,
                                 cudaStream_t s)
{
    dim3 g = {grid, 1, 1}, b = {block, 1, 1};
    return door_launch(d, k, g, b, args, 0, s, 0);
}

/* Call j of operation o in iteration it goes through this door. */
#define DOOR(j) door_at(o->d[j], it)

/* Runs a pair's or stress kind's operation of thread t's body in iteration it. */
static void run_stress_op(struct worker *w, const struct op *o, int it, int index, cudaStream_t s)
{
    int t = w->t, n = P.n;
    size_t fsz = sizeof(float);
    unsigned grid = o->block ? (unsigned)((P.n + o->block - 1) / o->block) : 1, block = (unsigned)o->block;
    switch (o->kind) {
    case OP_LOCK: {
        const struct pair *pr = &P.pair[o->ival];
        if (no_pair_order)
            ; /* --no-pair-order: whichever thread gets the mutex first goes first */
        else if (pr->ordered && t == pr->first)
            await(&segment_done[o->ival], it - 1); /* the second's read of the last iteration was issued */
        else if (pr->ordered)
            await(&segment_posted[o->ival], it);   /* the first's write of this iteration was issued */
        pthread_mutex_lock(&pair_lock[o->ival]);
        break;
    }
    case OP_UNLOCK: {
        const struct pair *pr = &P.pair[o->ival];
        pthread_mutex_unlock(&pair_lock[o->ival]);
        if (pr->ordered)
            publish(t == pr->first ? &segment_posted[o->ival] : &segment_done[o->ival], it);
        break;
    }
    case OP_MAILBOX: {
        float *box = mailboxes[o->ival], *b = buffers[t][o->b[0]], f = o->f, half = 0.5f, quarter = 0.25f;
        int step = it % 7;
        unsigned g = (unsigned)((P.n + 255) / 256);
        switch (o->variant) {
        case 0:
            check(w, launch1d_door(DOOR(0), (const void *)k_axpy, g, 256, (void *[]){&half, &b, &box, &n}, s), it, index,
                  "axpy into the mailbox");
            break;
        case 1:
            check(w, door_memcpy(DOOR(0), box + o->off, b + o->off2, o->len * fsz, cudaMemcpyDeviceToDevice, s), it,
                  index, "cudaMemcpyAsync into the mailbox");
            check(w, launch1d_door(DOOR(1), (const void *)k_add_step, g, 256, (void *[]){&box, &quarter, &step, &n}, s),
                  it, index,
                  "add_step on the mailbox");
            break;
        case 2:
            check(w, launch1d_door(DOOR(0), (const void *)k_axpy, g, 256, (void *[]){&f, &box, &b, &n}, s), it, index,
                  "axpy from the mailbox");
            break;
        default:
            check(w, door_memcpy(DOOR(0), b + o->off, box + o->off2, o->len * fsz, cudaMemcpyDeviceToDevice, s), it,
                  index, "cudaMemcpyAsync from the mailbox");
            break;
        }
        break;
    }
    case OP_BIG_ARG: {
        struct k_big_arg_table table;
        big_arg_table(&table, (unsigned)o->ival, o->off, o->every, it);
        float *y = buffers[t][o->b[0]];
        check(w, launch_op(o, it, (const void *)k_big_arg, grid, block, (void *[]){&y, &table, &n}, s), it, index,
              "big_arg");
        break;
    }
    case OP_ROTATE: {
        int j = (it + o->phase) % 3, step = o->ival + it;
        float *rot = buffers[t][o->b[j]], *fixed = o->b[3] >= 0 ? buffers[t][o->b[3]] : NULL, f = o->f;
        if (o->variant == 0)
            check(w, launch_op(o, it, (const void *)k_add_step, grid, block, (void *[]){&rot, &f, &step, &n}, s), it,
                  index, "add_step (rotate)");
        else if (o->variant == 1)
            check(w, launch_op(o, it, (const void *)k_axpy, grid, block, (void *[]){&f, &rot, &fixed, &n}, s), it,
                  index, "axpy (rotate)");
        else
            check(w, door_memcpy(DOOR(0), fixed + o->off, rot + o->off2, o->len * fsz, cudaMemcpyDeviceToDevice, s), it,
                  index, "cudaMemcpyAsync (rotate)");
        break;
    }
    case OP_HOST_STAGE: {
        struct stage *st = &w->stages[o->slot];
        if (o->variant)
            check(w, door_memcpy(DOOR(0), st->in, buffers[t][o->b[1]] + o->off2, o->len * fsz, cudaMemcpyDeviceToHost,
                                 s),
                  it, index, "cudaMemcpyAsync D2H (stage)");
        check(w, door_host_func(DOOR(1), s, stage_fn, st), it, index, "cudaLaunchHostFunc (stage)");
        check(w, door_memcpy(DOOR(2), buffers[t][o->b[0]] + o->off, st->out, o->len * fsz, cudaMemcpyHostToDevice, s),
              it, index, "cudaMemcpyAsync H2D (stage)");
        break;
    }
    case OP_MAPPED_SPIN: {
        int slot = t * MAX_SPINS + o->slot, value = it * MAX_SPINS + o->slot + 1;
        int *flag = spin_flags_device + slot;
        void *args[] = {&flag, &value};
        dim3 one = {1, 1, 1};
        cudaError_t e = door_launch(DOOR(0), (const void *)k_poke, one, one, args, 0, s, o->via);
        check(w, e, it, index, "k_poke (mapped spin)");
        time_t start = time(NULL);
        while (__atomic_load_n(&spin_flags[slot], __ATOMIC_ACQUIRE) != value) {
            sched_yield(); /* a polite spin: on a loaded machine the device (the stand-in's thread) gets the core */
            if (time(NULL) - start > SPIN_LIMIT_S) {
                printf("thread %d iteration %d op %d: the mapped flag is %d after %d s, expected %d: held-back work "
                       "never ran\n",
                       t, it, index, __atomic_load_n(&spin_flags[slot], __ATOMIC_ACQUIRE), SPIN_LIMIT_S, value);
                exit(3);
            }
        }
        break;
    }
    case OP_FAULT: {
        if (it < o->phase || (it - o->phase) % o->every != 0)
            break;
        float *y = buffers[t][o->b[0]], v = 2.0f;
        dim3 bad_grid, bad_block;
        fault_geometry(o->variant, &bad_grid, &bad_block);
        void *args[] = {&y, &v, &n};
        cudaError_t e = door_launch(DOOR(0), (const void *)k_fill, bad_grid, bad_block, args, 0, s, o->via);
        check(w, e, it, index, "fault launch");
        /* The thread's last error must be the launch's result, and cudaGetLastError must clear it (the driver
           door's launches: as fuzz_door.h keeps them). */
        if (o->ival == 1 && door_peek_last_error() != e)
            w->last_error_disagreed++;
        if (door_get_last_error() != e || door_peek_last_error() != cudaSuccess)
            w->last_error_disagreed++;
        break;
    }
    default: break;
    }
}

/* Launches one kernel operation; its arguments may change with the iteration. */
static cudaError_t run_kernel(int t, const struct op *o, int it, cudaStream_t s)
{
    float *b0 = o->b[0] >= 0 ? buffers[t][o->b[0]] : NULL, *b1 = o->b[1] >= 0 ? buffers[t][o->b[1]] : NULL;
    float *b2 = o->b[2] >= 0 ? buffers[t][o->b[2]] : NULL;
    /* A varying scalar alternates its sign or walks a short cycle: values must stay finite for 60 iterations. */
    float f = !o->vary ? o->f : o->k == K_FILL ? o->f + (float)(it % 4) * 0.5f : it % 2 ? -o->f : o->f;
    int n = P.n, step = o->vary ? o->ival + it : o->ival;
    unsigned grid = (unsigned)((P.n + o->block - 1) / o->block), block = (unsigned)o->block;
    switch (o->k) {
    case K_FILL: return launch_op(o, it, (const void *)k_fill, grid, block, (void *[]){&b0, &f, &n}, s);
    case K_AXPY: return launch_op(o, it, (const void *)k_axpy, grid, block, (void *[]){&f, &b0, &b1, &n}, s);
    case K_SCALE: return launch_op(o, it, (const void *)k_scale, grid, block, (void *[]){&b0, &f, &n}, s);
    case K_ADD_STEP: return launch_op(o, it, (const void *)k_add_step, grid, block, (void *[]){&b0, &f, &step, &n}, s);
    case K_COMBINE: return launch_op(o, it, (const void *)k_combine, grid, block, (void *[]){&b0, &b1, &b2, &n}, s);
    case K_REDUCE: return launch_op(o, it, (const void *)k_reduce_sum, 1, REDUCE_THREADS, (void *[]){&b0, &b1, &n}, s);
    case K_EMPTY: return launch_op(o, it, (const void *)k_empty, 1, 32, NULL, s);
    default: return launch_op(o, it, (const void *)k_apply_coef, grid, block, (void *[]){&b0, &n}, s);
    }
}

/* Consumer: waits on the host for channel c's iteration it, then makes the GPU wait for the producer. */
static void handoff_wait(struct worker *w, int c, int it, int index, cudaStream_t s)
{
    await(&ready[c], it);
    if (no_handoff_wait)
        return;
    struct door d = door_at(P.ch[c].handoff_door, it);
    switch (P.ch[c].handoff) {
    case HANDOFF_STREAM_WAIT: check(w, door_wait(d, s, produced[c]), it, index, "cudaStreamWaitEvent produced"); break;
    case HANDOFF_EVENT_SYNC: check(w, door_event_sync(d, produced[c]), it, index, "cudaEventSynchronize"); break;
    case HANDOFF_DEVICE_SYNC: check(w, door_device_sync(d), it, index, "cudaDeviceSynchronize"); break;
    case HANDOFF_STREAM_SYNC: {
        cudaStream_t producers = streams[P.ch[c].producer][P.ch[c].publish_stream];
        check(w, door_stream_sync(d, producers), it, index, "cudaStreamSynchronize producer's");
        break;
    }
    case HANDOFF_EVENT_POLL: {
        cudaError_t e;
        while ((e = door_event_query(d, produced[c])) == cudaErrorNotReady)
            sched_yield();
        check(w, e, it, index, "cudaEventQuery produced");
        break;
    }
    default:
        check(w, launch1d_door(d, (const void *)k_empty, 1, 32, NULL, cudaStreamLegacy), it, index, "legacy launch");
        break;
    }
}

/* Consumer: reads channel c's shared buffer into its buffer o->b[0]. */
static cudaError_t take(int t, int c, const struct op *o, int it, cudaStream_t s)
{
    float *shared = buffers[P.ch[c].producer][P.ch[c].buffer], *dst = buffers[t][o->b[0]];
    float f = o->f;
    int n = P.n;
    unsigned grid = (unsigned)((P.n + 255) / 256);
    switch (o->ival) {
    case 0:
        return door_memcpy(DOOR(0), dst + o->off, shared + o->off2, (size_t)o->len * sizeof(float),
                           cudaMemcpyDeviceToDevice, s);
    case 1: return launch1d_door(DOOR(0), (const void *)k_axpy, grid, 256, (void *[]){&f, &shared, &dst, &n}, s);
    default:
        return launch1d_door(DOOR(0), (const void *)k_reduce_sum, 1, REDUCE_THREADS, (void *[]){&shared, &dst, &n}, s);
    }
}

/* A relay's host hand-over in iteration it (none with --no-relay-order). */
static void relay_handover(enum op_kind kind, int it)
{
    if (no_relay_order)
        return;
    switch (kind) {
    case OP_RELAY_GIVE:
        if (!P.relay.training)
            await(&relay_back, it - 1); /* the receiver's last turn was issued: the box may be written again */
        break;
    case OP_RELAY_GO:
        publish(&relay_given, it);
        if (P.relay.training)
            await(&relay_back, it);
        break;
    case OP_RELAY_AFTER: publish(&relay_after, it); break;
    case OP_RELAY_WAIT: await(&relay_given, it); break;
    default:
        publish(&relay_back, it);
        if (P.relay.training)
            await(&relay_after, it); /* the giver's reads of the box were issued before the next write */
        break;
    }
}

/* Runs operation index of thread t's body in iteration it. */
static void run_op(struct worker *w, const struct op *o, int it, int index)
{
    static const unsigned char set_values[] = {0x00, 0x3c, 0x3e, 0x3f, 0x40, 0xbf};
    int t = w->t;
    cudaStream_t s = streams[t][o->s];
    size_t fsz = sizeof(float);
    switch (o->kind) {
    case OP_KERNEL: check(w, run_kernel(t, o, it, s), it, index, kernel_names[o->k]); break;
    case OP_D2D: {
        int doff = o->vary ? (o->off + it * 7) % (P.n - o->len + 1) : o->off;
        check(w, door_memcpy(DOOR(0), buffers[t][o->b[0]] + doff, buffers[t][o->b[1]] + o->off2, o->len * fsz,
                             cudaMemcpyDeviceToDevice, s),
              it, index, "cudaMemcpyAsync D2D");
        break;
    }
    case OP_MEMSET: {
        int v = set_values[(o->ival + (o->vary ? it : 0)) % 6];
        check(w, door_memset(DOOR(0), buffers[t][o->b[0]] + o->off, v, o->len * fsz, s), it, index, "cudaMemsetAsync");
        break;
    }
    case OP_H2D_PAGEABLE:
        check(w, door_memcpy(DOOR(0), buffers[t][o->b[0]] + o->off, w->pageable_src + o->off2, o->len * fsz,
                             cudaMemcpyHostToDevice, s),
              it, index, "cudaMemcpyAsync H2D pageable");
        for (int i = 0; i < o->len; i++) /* CUDA took the bytes: the program may change them at once */
            w->pageable_src[o->off2 + i] += 0.5f;
        break;
    case OP_D2H_PINNED:
        check(w, door_memcpy(DOOR(0), w->landing[o->s] + o->off, buffers[t][o->b[0]] + o->off2, o->len * fsz,
                             cudaMemcpyDeviceToHost, s),
              it, index, "cudaMemcpyAsync D2H pinned");
        break;
    case OP_HOST_FUNC:
        check(w, door_host_func(DOOR(0), s, host_function, &w->host_calls[o->s]), it, index, "cudaLaunchHostFunc");
        break;
    case OP_RECORD: check(w, door_record(DOOR(0), events[t][o->ev], s), it, index, "cudaEventRecord"); break;
    case OP_WAIT: check(w, door_wait(DOOR(0), s, events[t][o->ev]), it, index, "cudaStreamWaitEvent"); break;
    case OP_QUERY_STREAM: check(w, door_stream_query(DOOR(0), s), it, index, "cudaStreamQuery"); break;
    case OP_SYNC_STREAM: check(w, door_stream_sync(DOOR(0), s), it, index, "cudaStreamSynchronize"); break;
    case OP_SYNC_EVENT: check(w, door_event_sync(DOOR(0), events[t][o->ev]), it, index, "cudaEventSynchronize"); break;
    case OP_PUBLISH:
        check(w, door_record(DOOR(0), produced[o->channel], s), it, index, "cudaEventRecord produced");
        if (handoff_iteration(o->channel, it))
            publish(&ready[o->channel], it);
        break;
    case OP_HANDOFF_WAIT: handoff_wait(w, o->channel, it, index, s); break;
    case OP_TAKE: check(w, take(t, o->channel, o, it, s), it, index, "take"); break;
    case OP_TAKEN:
        check(w, door_record(DOOR(0), taken[o->channel], s), it, index, "cudaEventRecord taken");
        publish(&done[o->channel], it);
        break;
    case OP_LOCK:
    case OP_UNLOCK:
    case OP_MAILBOX:
    case OP_BIG_ARG:
    case OP_ROTATE:
    case OP_HOST_STAGE:
    case OP_FAULT:
    case OP_MAPPED_SPIN: run_stress_op(w, o, it, index, s); break;
    case OP_RELAY_GIVE:
    case OP_RELAY_GO:
    case OP_RELAY_AFTER:
    case OP_RELAY_WAIT:
    case OP_RELAY_BACK: relay_handover(o->kind, it); break;
    }
}

/* Producer: before iteration it writes channel c's buffer again, waits until the last handoff was taken. */
static void await_taken(struct worker *w, int c, int it)
{
    if (!handoff_iteration(c, it - 1))
        return;
    await(&done[c], it - 1);
    if (no_handoff_wait)
        return;
    struct door d = door_at(P.ch[c].done_door, it);
    switch (P.ch[c].done) {
    case DONE_STREAM_WAIT:
        check(w, door_wait(d, streams[w->t][P.t[w->t].home[P.ch[c].buffer]], taken[c]), it, -1,
              "cudaStreamWaitEvent taken");
        break;
    case DONE_EVENT_SYNC: check(w, door_event_sync(d, taken[c]), it, -1, "cudaEventSynchronize taken"); break;
    case DONE_STREAM_SYNC: {
        cudaStream_t consumers = streams[P.ch[c].consumer][P.ch[c].read_stream];
        check(w, door_stream_sync(d, consumers), it, -1, "cudaStreamSynchronize consumer's");
        break;
    }
    default:
        check(w, launch1d_door(d, (const void *)k_empty, 1, 32, NULL, cudaStreamLegacy), it, -1, "legacy launch taken");
        break;
    }
}

/* The relay's receiver, in a synchronised iteration: its box buffer lives on the relay stream, which it syncs too. */
static void sync_relay(struct worker *w, int it)
{
    if (P.has_relay && P.relay.receiver == w->t)
        check(w, door_stream_sync(door_at(P.t[w->t].end_door[2 * MAX_STREAMS], it), streams[w->t][RELAY_S]), it, -1,
              "cudaStreamSynchronize relay");
}

/* Ends iteration it with the thread's kind of synchronisation; true if all its work is done. */
static int end_iteration(struct worker *w, int it, int last)
{
    const struct thread_program *tp = &P.t[w->t];
    cudaStream_t *own = streams[w->t];
    const struct door *d = tp->end_door; /* [s] stream s's record or sync, [MAX_STREAMS + s] its wait, then the device */
    switch (tp->sync) {
    case SYNC_EVERY_FEW:
        if (!last && it % tp->sync_every != tp->sync_every - 1)
            return 0;
        /* fall through */
    case SYNC_STREAMS:
        for (int s = tp->nstreams; s-- > 0;)
            check(w, door_stream_sync(door_at(d[s], it), own[s]), it, -1, "cudaStreamSynchronize");
        sync_relay(w, it);
        return 1;
    case SYNC_DEVICE:
        check(w, door_device_sync(door_at(d[2 * MAX_STREAMS], it)), it, -1, "cudaDeviceSynchronize");
        return 1;
    default:
        for (int s = 1; s < tp->nstreams; s++) {
            check(w, door_record(door_at(d[s], it), join_events[w->t][s], own[s]), it, -1, "cudaEventRecord join");
            check(w, door_wait(door_at(d[MAX_STREAMS + s], it), own[0], join_events[w->t][s]), it, -1,
                  "cudaStreamWaitEvent join");
        }
        check(w, door_stream_sync(door_at(d[MAX_STREAMS], it), own[0]), it, -1, "cudaStreamSynchronize join");
        sync_relay(w, it);
        return 1;
    }
}

/* Folds every buffer of the thread into its hash (its work is done; consumers only read shared ones). */
static void fold(struct worker *w, int it)
{
    const struct thread_program *tp = &P.t[w->t];
    size_t bytes = (size_t)P.n * sizeof(float);
    /* First what its streams delivered to the host, before any new call: only its own syncs order them. */
    for (int s = 0; s < tp->nstreams; s++) {
        w->hash = (w->hash ^ hash_floats(w->landing[s], bytes)) * 1099511628211ull;
        w->hash = (w->hash ^ w->host_calls[s].sum ^ w->host_calls[s].calls) * 1099511628211ull;
    }
    for (int b = 0; b < tp->nbuffers; b++) {
        float *dst = w->pinned_fold + (size_t)b * P.n;
        if (tp->fold_stream < 0)
            check(w, door_memcpy_sync(door_at(tp->fold_door[0], it), dst, buffers[w->t][b], bytes,
                                      cudaMemcpyDeviceToHost),
                  it, -1, "cudaMemcpy fold");
        else
            check(w, door_memcpy(door_at(tp->fold_door[0], it), dst, buffers[w->t][b], bytes, cudaMemcpyDeviceToHost,
                                 streams[w->t][tp->fold_stream]),
                  it, -1, "cudaMemcpyAsync fold");
    }
    if (tp->fold_stream >= 0)
        check(w, door_stream_sync(door_at(tp->fold_door[1], it), streams[w->t][tp->fold_stream]), it, -1,
              "cudaStreamSynchronize fold");
    for (int b = 0; b < tp->nbuffers; b++)
        w->hash = (w->hash ^ hash_floats(w->pinned_fold + (size_t)b * P.n, bytes)) * 1099511628211ull;
}

/* One host thread: its body P.iters times, with the handshakes of its channels. */
static void *run_thread(void *arg)
{
    struct worker *w = arg;
    const struct thread_program *tp = &P.t[w->t];
    for (int it = 0; it < P.iters; it++) {
        fill_host(w->pageable_src, P.n, (unsigned)(it * 8 + w->t));
        for (int c = 0; c < P.nchannels; c++)
            if (P.ch[c].producer == w->t)
                await_taken(w, c, it);
        for (int i = 0; i < tp->count; i++) {
            const struct op *o = &tp->ops[i];
            /* A publish runs every iteration (it publishes only in handoff ones); a take's operations do not. */
            if (o->channel >= 0 && o->kind != OP_PUBLISH && !handoff_iteration(o->channel, it))
                continue;
            run_op(w, o, it, i);
        }
        if (end_iteration(w, it, it == P.iters - 1))
            fold(w, it);
    }
    return NULL;
}

/* Creates the streams, events and buffers (main thread; per-thread streams are named by their threads). */
static void create_resources(struct worker *w0)
{
    size_t bytes = (size_t)P.n * sizeof(float);
    static const float coef[4] = {0.5f, 0.75f, 1.25f, -0.5f};
    check(w0, cudaMemcpyToSymbol(k_coef_symbol(), coef, sizeof coef, 0, cudaMemcpyHostToDevice), -1, -1,
          "cudaMemcpyToSymbol");
    for (int c = 0; c < P.nchannels; c++) {
        check(w0, cudaEventCreateWithFlags(&produced[c], cudaEventDisableTiming), -1, c, "cudaEventCreate");
        check(w0, cudaEventCreateWithFlags(&taken[c], cudaEventDisableTiming), -1, c, "cudaEventCreate");
        ready[c] = done[c] = -1;
    }
    float *initial = malloc(bytes);
    cudaStream_t shared[MAX_PAIRS];
    for (int p = 0; p < P.npairs; p++) {
        check(w0, cudaStreamCreateWithFlags(&shared[p], P.pair[p].kind == STREAM_NON_BLOCKING ? cudaStreamNonBlocking
                                                                                                : cudaStreamDefault),
              -1, p, "cudaStreamCreateWithFlags shared");
        check(w0, cudaMalloc((void **)&mailboxes[p], bytes), -1, p, "cudaMalloc mailbox");
        fill_host(initial, P.n, 7000u + (unsigned)p);
        check(w0, cudaMemcpy(mailboxes[p], initial, bytes, cudaMemcpyHostToDevice), -1, p, "cudaMemcpy mailbox");
        segment_posted[p] = segment_done[p] = -1;
    }
    cudaStream_t relay_stream = NULL;
    if (P.has_relay) {
        check(w0, cudaStreamCreateWithFlags(&relay_stream, P.relay.kind == STREAM_NON_BLOCKING ? cudaStreamNonBlocking
                                                                                                : cudaStreamDefault),
              -1, 0, "cudaStreamCreateWithFlags relay");
        check(w0, cudaMalloc((void **)&mailboxes[RELAY_BOX], bytes), -1, 0, "cudaMalloc relay box");
        fill_host(initial, P.n, 7100u);
        check(w0, cudaMemcpy(mailboxes[RELAY_BOX], initial, bytes, cudaMemcpyHostToDevice), -1, 0, "cudaMemcpy relay box");
    }
    for (int t = 0; t < P.nthreads; t++) {
        const struct thread_program *tp = &P.t[t];
        struct worker *w = &workers[t];
        w->t = t;
        for (int s = 0; s < tp->nstreams; s++) {
            if (tp->kind[s] == STREAM_LEGACY)
                streams[t][s] = cudaStreamLegacy;
            else if (tp->kind[s] == STREAM_PER_THREAD)
                streams[t][s] = cudaStreamPerThread; /* each thread's own, whoever names it */
            else
                check(w0, cudaStreamCreateWithFlags(&streams[t][s], tp->kind[s] == STREAM_NON_BLOCKING
                                                                          ? cudaStreamNonBlocking
                                                                          : cudaStreamDefault),
                      -1, s, "cudaStreamCreateWithFlags");
            check(w0, cudaEventCreateWithFlags(&join_events[t][s], cudaEventDisableTiming), -1, s, "cudaEventCreate");
            check(w0, cudaMallocHost((void **)&w->landing[s], bytes), -1, s, "cudaMallocHost");
            memset(w->landing[s], 0, bytes);
            w->host_calls[s] = (struct host_calls){0, 0, w->landing[s]};
        }
        for (int e = 0; e < tp->nevents; e++)
            check(w0, cudaEventCreateWithFlags(&events[t][e], e % 2 ? cudaEventDisableTiming : cudaEventDefault), -1,
                  e, "cudaEventCreate");
        for (int b = 0; b < tp->nbuffers; b++) {
            check(w0, cudaMalloc((void **)&buffers[t][b], bytes), -1, b, "cudaMalloc");
            fill_host(initial, P.n, 1000u + (unsigned)(t * MAX_BUFFERS + b));
            check(w0, cudaMemcpy(buffers[t][b], initial, bytes, cudaMemcpyHostToDevice), -1, b, "cudaMemcpy");
        }
        w->pageable_src = malloc(bytes);
        for (int p = 0; p < P.npairs; p++)
            streams[t][SHARED_S(p)] = shared[p];
        streams[t][RELAY_S] = relay_stream;
        for (int i = 0; i < tp->count; i++)
            if (tp->ops[i].kind == OP_HOST_STAGE) {
                struct stage *st = &w->stages[tp->ops[i].slot];
                check(w0, cudaMallocHost((void **)&st->in, bytes), -1, i, "cudaMallocHost (stage)");
                check(w0, cudaMallocHost((void **)&st->out, bytes), -1, i, "cudaMallocHost (stage)");
                memset(st->in, 0, bytes);
                memset(st->out, 0, bytes);
                st->len = tp->ops[i].len, st->variant = tp->ops[i].variant;
            }
        check(w0, cudaMallocHost((void **)&w->pinned_fold, bytes * MAX_BUFFERS), -1, t, "cudaMallocHost");
    }
    int spins = 0;
    for (int t = 0; t < P.nthreads; t++)
        spins += P.t[t].nspins;
    if (spins) {
        size_t flag_bytes = MAX_THREADS * MAX_SPINS * sizeof(int);
        check(w0, cudaHostAlloc((void **)&spin_flags, flag_bytes, cudaHostAllocMapped), -1, 0, "cudaHostAlloc (mapped)");
        memset((void *)spin_flags, 0, flag_bytes);
        check(w0, cudaHostGetDevicePointer((void **)&spin_flags_device, (void *)spin_flags, 0), -1, 0,
              "cudaHostGetDevicePointer");
    }
    free(initial);
}

/* Prints every buffer's hash, then every thread's hash and errors, in a fixed order. */
static void print_results(void)
{
    size_t bytes = (size_t)P.n * sizeof(float);
    float *host = malloc(bytes);
    char label[64];
    for (int t = 0; t < P.nthreads; t++)
        for (int b = 0; b < P.t[t].nbuffers; b++) {
            cudaError_t e = cudaMemcpy(host, buffers[t][b], bytes, cudaMemcpyDeviceToHost);
            snprintf(label, sizeof label, "thread %d buffer %d%s", t, b, e ? " (copy failed)" : "");
            report_floats(label, host, bytes);
        }
    for (int p = 0; p < P.npairs; p++) {
        cudaError_t e = cudaMemcpy(host, mailboxes[p], bytes, cudaMemcpyDeviceToHost);
        snprintf(label, sizeof label, "pair %d mailbox%s", p, e ? " (copy failed)" : "");
        report_floats(label, host, bytes);
    }
    if (P.has_relay) {
        cudaError_t e = cudaMemcpy(host, mailboxes[RELAY_BOX], bytes, cudaMemcpyDeviceToHost);
        report_floats(e ? "relay box (copy failed)" : "relay box", host, bytes);
    }
    for (int t = 0; t < P.nthreads; t++) {
        const struct worker *w = &workers[t];
        printf("thread %d: hash %016llx, errors %lu%s%s\n", t, (unsigned long long)w->hash, w->errors,
               w->errors ? ", first: " : "", w->first_error);
        if (w->last_error_disagreed)
            printf("thread %d: after a fault, cudaGetLastError or cudaPeekAtLastError disagreed %lu times\n", t,
                   w->last_error_disagreed);
    }
    free(host);
}

int main(int argc, char **argv)
{
    int dump_only = 0, iters = 0, nkeep = 0, runtime_door_only = 0;
    /* Every kind of call may take the driver door.  The driver's syncs of the per-thread stream found a shim
       bug (a sync returning before this thread's held-back work that another thread moved to the legacy
       stream meanwhile, seed 910846 with --door-mask=0x840): fixed in engine_direct_call. */
    door_mask = ~0u;
    if (getenv("FUZZ_DOOR_MASK"))
        door_mask = (unsigned)strtoul(getenv("FUZZ_DOOR_MASK"), NULL, 0);
    const char *keep[MAX_THREADS * 4];
    const char *seed_arg = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--dump"))
            dump_only = 1;
        else if (!strcmp(argv[i], "--no-handoff-wait"))
            no_handoff_wait = 1;
        else if (!strcmp(argv[i], "--no-pair-order"))
            no_pair_order = 1;
        else if (!strcmp(argv[i], "--no-relay-order"))
            no_relay_order = 1;
        else if (!strcmp(argv[i], "--runtime-only"))
            runtime_door_only = 1;
        else if (!strncmp(argv[i], "--door-mask=", 12))
            door_mask = (unsigned)strtoul(argv[i] + 12, NULL, 0);
        else if (!strncmp(argv[i], "--iters=", 8))
            iters = atoi(argv[i] + 8);
        else if (!strncmp(argv[i], "--keep=", 7) && nkeep < (int)(sizeof keep / sizeof *keep))
            keep[nkeep++] = argv[i] + 7;
        else
            seed_arg = argv[i];
    }
    if (seed_arg == NULL) {
        fprintf(stderr, "usage: %s [--dump] [--no-handoff-wait] [--no-pair-order] [--no-relay-order] [--runtime-only] "
                        "[--iters=N] [--keep=T:I,...] SEED\n",
                argv[0]);
        return 2;
    }
    uint64_t seed = strtoull(seed_arg, NULL, 10);
    setvbuf(stdout, NULL, _IOLBF, 0);
    generate(seed);
    assign_doors(seed);
    if (iters > 0)
        P.iters = iters;
    for (int i = 0; i < nkeep; i++)
        keep_only(keep[i]);
    if (dump_only) {
        if (nkeep || iters)
            printf("(after --keep/--iters)\n");
        dump();
        return 0;
    }
    require_device();
    door_init();
    if (runtime_door_only)
        runtime_only();
    printf("seed %llu: %d threads, %d channels, %d iterations\n", (unsigned long long)seed, P.nthreads,
           P.nchannels, P.iters);
    print_stress_kinds();
    struct worker setup = {0};
    create_resources(&setup);
    check(&setup, cudaDeviceSynchronize(), -1, -1, "cudaDeviceSynchronize");
    pthread_t threads[MAX_THREADS];
    for (int t = 0; t < P.nthreads; t++)
        pthread_create(&threads[t], NULL, run_thread, &workers[t]);
    for (int t = 0; t < P.nthreads; t++)
        pthread_join(threads[t], NULL);
    check(&setup, cudaDeviceSynchronize(), P.iters, -1, "cudaDeviceSynchronize");
    print_results();
    printf("setup: errors %lu%s%s\n", setup.errors, setup.errors ? ", first: " : "", setup.first_error);
    return 0;
}
