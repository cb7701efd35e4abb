/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/random_program.c: a random CUDA program per seed, for the
 * differential test (tests/fuzz/differential.sh).
 *
 *     random_program [--dump] [--drop] [--no-final-sync] [--all-pdl] [--iters=N] [--keep=I,J,...] SEED
 *
 * From SEED (splitmix64, never rand()) it generates a *body*: 4..40
 * operations over 1..4 streams (non-blocking or blocking, in every third
 * seed the per-thread default stream, sometimes the legacy stream too): kernel launches of the test kernels (kernels/kernels.h;
 * cudaLaunchKernel or __cudaLaunchKernel, two block sizes, sometimes dynamic
 * shared memory), D2D copies, H2D copies from pinned and from pageable
 * memory, D2H copies into pinned memory (sometimes as cudaMemcpyDefault),
 * memsets, host functions, event records and waits, and now and then a
 * "disruption": a stream or event query, a stream or event synchronisation,
 * a cudaMalloc/cudaFree, a synchronous cudaMemcpy, a copy into pageable
 * memory, an invalid launch. It then runs the body 30..60 times; each
 * iteration changes scalar arguments, swaps pointer arguments, moves copy
 * offsets, refills host sources, in some seeds changes the body's shape (a
 * skipped or repeated call, or an extra query or sync, every k-th
 * iteration), and ends with a sync chosen by the seed (device, every stream,
 * a join into one stream, or only every few iterations). After each
 * synchronised iteration every buffer is folded into a "trajectory" hash; at
 * the end it prints a hash of every device buffer and pinned destination,
 * the host functions' checksums, the trajectory and every error.
 *
 * Stress kinds (issue 12): in a good share of seeds, operations that
 * disturb a region once it is graphed and replayed are placed at positions
 * of the body drawn from a second generator (fuzz_random.h: a seed drawing
 * none keeps its earlier program): a k_big_arg launch whose 4000-byte
 * by-value table changes one word every few iterations (big_arg); a kernel
 * or copy whose pointer argument rotates among three buffers (rotate); a
 * kernel whose block size, dynamic shared memory or grid changes every few
 * iterations (geometry, a flag on an ordinary kernel); a host function that
 * writes pinned memory which the next cudaMemcpyAsync on its stream reads,
 * after a D2H copy that brought what it reads (host_stage); an invalid
 * launch (2048 threads a block, or a zero dimension) in every few
 * iterations from the seventh on, its cudaErrorInvalidValue printed, and
 * cudaGetLastError or cudaPeekAtLastError printed right after it
 * (fault); the program's own stream capture (global, thread-local or
 * relaxed) of a few calls, instantiated or updated and launched with
 * cudaGraphLaunch every iteration or in its capture iterations
 * (own_graph); k_poke writing the iteration into cudaHostAllocMapped
 * memory, and the host spinning on it with no CUDA call (mapped_spin,
 * issue 12 case 1: held back, the poke would never run without the shim's
 * watchdog; the stand-in's device thread runs work once mapped memory
 * exists); an event pool (event_pool, issue 39: in a quarter of the seeds
 * with several events, by the seed alone, every event record, wait, query
 * and sync names the event its index says shifted by the iteration, as a
 * pool's program names another event each time, and no event has timing,
 * as XLA's have none). The header line "stress kinds:" counts them.
 *
 * The program is race-free by construction, so its output depends on the
 * seed only, not on the stand-in's scheduler (STANDIN_SEED) and not on
 * whether reprise holds calls back and replays them as graphs: each device
 * buffer is owned by one stream at a time, and a stream that needs a buffer
 * another stream owns first joins through an event (record + wait); at the
 * end of the body every buffer goes back to its home stream the same way, so
 * iterations chain without a sync too. A synchronous copy (legacy stream)
 * first orders the buffer's non-blocking owner (stream or event sync, or a
 * legacy-stream wait). Host functions fold only into their own stream's
 * checksum; pinned sources are refilled only after a sync covering every
 * copy that reads them; pageable sources change right after each copy from
 * them (CUDA takes their bytes at call time). Query results (cudaSuccess or
 * cudaErrorNotReady) are never printed: they depend on timing.
 *
 * --dump           prints the generated program (for minimising a seed)
 * --drop           drops one call (one whose effect differs every iteration)
 *                  in the middle iteration: a deliberately different
 *                  program, to check that the comparison can fail
 * --no-final-sync  hashes the buffers without the last synchronisation (a
 *                  deliberately racy program: the output must depend on
 *                  STANDIN_SEED for some seeds)
 * --runtime-only   every call through the runtime door (fuzz_door.h): the
 *                  output must not change
 * --all-pdl        every launch a programmatic dependent launch (fuzz_door.h),
 *                  whether its kernel waits for the one before it or not: a
 *                  deliberately racy program, as a shim making programmatic
 *                  edges where full ones belong would make it (the output
 *                  must change for some seeds)
 * --door-mask=BITS only these kinds of call may take the driver door
 *                  (fuzz_door.h: enum door_class), to minimise a seed
 * --iters=N        runs the body N times instead
 * --keep=I,J,...   keeps only these operations of the body (numbers as
 *                  --dump prints them), to minimise a failing seed
 */
#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "../../kernels/kernels.h"
#include "../report.h"
#include "fuzz_random.h"
#include "fuzz_door.h"
#include "fuzz_stress.h"

#define MAX_STREAMS 5
#define MAX_BUFFERS 8
#define MAX_EVENTS 6
#define MAX_OPS 1024

/* ------------------------------------------------------------ the program */

enum op_kind {
    OP_KERNEL,
    OP_D2D,
    OP_H2D_PINNED,
    OP_H2D_PAGEABLE,
    OP_D2H_PINNED,
    OP_MEMSET,
    OP_HOST_FUNC,
    OP_RECORD,
    OP_WAIT,
    /* disruptions: boundaries for the engine */
    OP_QUERY_STREAM,
    OP_QUERY_EVENT,
    OP_SYNC_STREAM,
    OP_SYNC_EVENT,
    OP_MALLOC_FREE,
    OP_SYNC_D2H,
    OP_SYNC_H2D,
    OP_D2H_PAGEABLE,
    OP_BAD_LAUNCH,
    /* stress kinds (issue 12), placed by gen_stress_at */
    OP_BIG_ARG,    /* k_big_arg: a 4000-byte table by value, one word changing every few iterations */
    OP_ROTATE,     /* a kernel or copy whose pointer argument rotates among three buffers */
    OP_HOST_STAGE, /* [D2H into pinned,] a host function writing pinned memory, the H2D copy reading it */
    OP_FAULT,      /* an invalid launch in some iterations, and the last error right after it */
    OP_OWN_GRAPH,  /* the program's own capture (some iterations) and cudaGraphLaunch of it */
    OP_MAPPED_SPIN, /* k_poke writes the iteration into mapped memory; the host spins on it, no CUDA call */
};

static const char *const op_names[] = {
    "kernel", "d2d", "h2d_pinned", "h2d_pageable", "d2h_pinned", "memset", "host_func", "record", "wait",
    "query_stream", "query_event", "sync_stream", "sync_event", "malloc_free", "sync_d2h", "sync_h2d",
    "d2h_pageable", "bad_launch", "big_arg", "rotate", "host_stage", "fault", "own_graph", "mapped_spin",
};

enum kernel_id { K_FILL, K_AXPY, K_SCALE, K_ADD_STEP, K_COMBINE, K_REDUCE, K_EMPTY, K_APPLY_COEF, K_COUNT };
static const char *const kernel_names[] = {"fill", "axpy", "scale", "add_step", "combine", "reduce_sum",
                                           "empty", "apply_coef"};

struct op {
    enum op_kind kind;
    int s;          /* stream index */
    int k;          /* kernel */
    int b[4];       /* buffers (OP_ROTATE: three rotating, then a fixed one) */
    int swap;       /* pointer arguments alternate with the iteration's parity */
    int vary;       /* scalar arguments change with the iteration */
    int via_launch; /* kernel launched through __cudaLaunchKernel */
    int block;      /* threads per block of a kernel (the grid covers n) */
    int shared;     /* dynamic shared memory of a kernel (unused by it) */
    int default_kind; /* a copy passes cudaMemcpyDefault */
    int n_vary;     /* the element count argument changes (not the grid) */
    float f;        /* scalar */
    int ival;       /* step, memset byte, host function variant */
    int off, off2, len; /* in floats: destination offset, source offset, length */
    int ev;
    int which;      /* pinned/pageable source, host data */
    int geo;        /* kernel: its geometry changes every `every` iterations (enum geometry, fuzz_stress.h) */
    int every, phase; /* the period of a change (geometry, big_arg's word, fault, own_graph's capture) */
    int variant;    /* what a stress kind does (see its gen_ function) */
    int slot;       /* OP_HOST_STAGE, OP_OWN_GRAPH, OP_MAPPED_SPIN: its private resources */
    struct door d[4]; /* the doors of its calls (fuzz_door.h; door_slots says how many it uses) */
};

/* The stress kinds, in the order their presence is drawn. */
enum stress { ST_BIG_ARG, ST_ROTATE, ST_GEOMETRY, ST_HOST_STAGE, ST_FAULT, ST_OWN_GRAPH, ST_MAPPED_SPIN,
              ST_EVENT_POOL, ST_DRIVER_DOOR, ST_DRIVER_ONLY, ST_COUNT };
static const char *const stress_names[] = {"big_arg", "rotate", "geometry", "host_stage", "fault", "own_graph",
                                           "mapped_spin", "event_pool", "driver_door", "driver_only"};
/* Percentage of seeds with each kind (1 or 2 of it). */
static const unsigned stress_percent[ST_COUNT] = {
    [ST_BIG_ARG] = 35, [ST_ROTATE] = 35, [ST_GEOMETRY] = 35, [ST_HOST_STAGE] = 30, [ST_FAULT] = 35,
    [ST_OWN_GRAPH] = 30,
    /* Fewer: once a program has mapped memory, the stand-in's device thread runs all its work on its own
       (the scheduler's order then depends on timing, not only on STANDIN_SEED), and under the shim each
       spin on held-back work costs the watchdog's bound before the region is refused. */
    [ST_MAPPED_SPIN] = 20,
    /* Not drawn: by the seed (generate), so that other seeds keep their programs. */
    [ST_EVENT_POOL] = 25,
    /* Not drawn by draw_stress but by the door generator (fuzz_door.h: door_seed): operations made through
       the driver (80% of seeds), and seeds where every operation that can goes through it (20%). */
    [ST_DRIVER_DOOR] = 80, [ST_DRIVER_ONLY] = 20,
};

#define MAX_STAGES 4    /* OP_HOST_STAGE operations */
#define MAX_OWN_GRAPHS 2
#define MAX_SPINS 2      /* OP_MAPPED_SPIN operations */
#define SPIN_LIMIT_S 30  /* a spin that waits longer is a hang: the program says so and exits 3 */

struct program {
    int nstreams;
    int kind[MAX_STREAMS]; /* 0 legacy, 1 blocking, 2 non-blocking, 3 per-thread default (blocking) */
    int nbuffers, n, nevents, event_flags[MAX_EVENTS];
    int event_shift; /* event_pool: an event operation of iteration it names event (ev + it * event_shift) % nevents */
    int iters;
    int sync_mode, sync_every;  /* 0 device, 1 each stream, 2 device every sync_every, 3 join into stream 0 */
    int shape_k, shape_r, shape_action, shape_pos;
    int home[MAX_BUFFERS];
    struct op ops[MAX_OPS];
    int count;
    int nstages, nown_graphs, nspins;
    int stress[ST_COUNT]; /* how many of each stress kind the body has */
    unsigned door_share;  /* percent of operations through the driver (fuzz_door.h) */
    struct door end_door[2 * MAX_STREAMS + 1], shape_door; /* the iteration's end, the shape's query or sync */
};

static struct program P;
static int owner[MAX_BUFFERS];

static struct op *emit(enum op_kind kind, int s)
{
    if (P.count == MAX_OPS) {
        fprintf(stderr, "random_program: too many operations\n");
        exit(2);
    }
    struct op *o = &P.ops[P.count++];
    memset(o, 0, sizeof *o);
    o->kind = kind;
    o->s = s;
    return o;
}

/* Stream s is about to touch buffer b: if another stream owns it, join through an event. */
static void need(int s, int b)
{
    if (owner[b] == s)
        return;
    int ev = (int)below((unsigned)P.nevents);
    emit(OP_RECORD, owner[b])->ev = ev;
    emit(OP_WAIT, s)->ev = ev;
    owner[b] = s;
}

/* A random buffer other than the ones given (-1: none). */
static int other_buffer(int not1, int not2)
{
    int b;
    do
        b = (int)below((unsigned)P.nbuffers);
    while (b == not1 || b == not2);
    return b;
}

/* Before a synchronous copy on the legacy stream touches b: order its owner's work first. */
static void order_for_legacy(int b)
{
    int o = owner[b];
    if (P.kind[o] != 2)
        return; /* the legacy stream and blocking streams are ordered with the copy */
    switch (below(3)) {
    case 0: emit(OP_SYNC_STREAM, o); break;
    case 1: {
        int ev = (int)below((unsigned)P.nevents);
        emit(OP_RECORD, o)->ev = ev;
        emit(OP_SYNC_EVENT, o)->ev = ev;
        break;
    }
    default: {
        int legacy = -1;
        for (int i = 0; i < P.nstreams; i++)
            if (P.kind[i] == 0)
                legacy = i;
        int ev = (int)below((unsigned)P.nevents);
        emit(OP_RECORD, o)->ev = ev;
        if (legacy >= 0)
            emit(OP_WAIT, legacy)->ev = ev;
        else
            emit(OP_SYNC_EVENT, o)->ev = ev;
        break;
    }
    }
}

/* One kernel launch on stream s. */
static void gen_kernel(int s)
{
    int k = (int)below(K_COUNT), b0 = other_buffer(-1, -1), b1 = other_buffer(b0, -1), b2 = other_buffer(b0, b1);
    static const float fills[] = {0.5f, -1.0f, 1.5f, 0.25f};
    static const float scales[] = {0.5f, 0.75f, -0.5f, 0.25f};
    static const float alphas[] = {0.5f, -0.25f, 0.125f, 1.0f};
    switch (k) {
    case K_AXPY:
    case K_REDUCE: need(s, b0), need(s, b1); break;
    case K_COMBINE: {
        int same = chance(20);
        need(s, b0);
        if (!same)
            need(s, b1);
        need(s, b2);
        if (same)
            b1 = b0;
        break;
    }
    case K_EMPTY: break;
    default: need(s, b0); break;
    }
    struct op *o = emit(OP_KERNEL, s);
    o->k = k;
    o->b[0] = b0, o->b[1] = b1, o->b[2] = b2;
    o->vary = chance(50);
    o->swap = (k == K_AXPY || k == K_COMBINE || k == K_REDUCE) && chance(30);
    o->via_launch = chance(30);
    o->block = chance(25) ? 128 : 256;
    o->shared = chance(15) ? 1024 : 0;
    o->n_vary = k != K_REDUCE && k != K_EMPTY && chance(15);
    switch (k) {
    case K_FILL: o->f = fills[below(4)]; break;
    case K_AXPY: o->f = alphas[below(4)]; break;
    case K_SCALE: o->f = scales[below(4)]; break;
    case K_ADD_STEP: o->f = scales[below(4)], o->ival = (int)below(10); break;
    default: break;
    }
}

/* ------------------------------------------------------------ stress kinds (issue 12) */

/* A k_big_arg launch on stream s: its 4000-byte table argument changes one word (one k_big_arg reads) every few iterations. */
static void gen_big_arg(int s)
{
    int b = other_buffer(-1, -1);
    need(s, b);
    struct op *o = emit(OP_BIG_ARG, s);
    o->b[0] = b;
    o->ival = (int)below2(1u << 16); /* the table's key */
    switch (below2(3)) {             /* the word that changes: the first, the last one read, any read */
    case 0: o->off = 0; break;
    case 1: o->off = P.n - 1; break;
    default: o->off = (int)below2((unsigned)P.n); break;
    }
    o->every = 1 + (int)below2(3);
    o->via_launch = chance2(40);
    o->block = chance2(50) ? 128 : 256;
    o->n_vary = chance2(15);
}

/* A kernel or copy on stream s whose pointer argument rotates among three buffers, one each iteration. */
static void gen_rotate(int s)
{
    int r0 = other_buffer(-1, -1), r1 = other_buffer(r0, -1), r2 = other_buffer(r0, r1), fixed = -1;
    /* 0: k_add_step writes the rotating buffer; 1: k_axpy reads it into a fixed one; 2: a D2D copy from it
       into a fixed one; 3: k_combine reads it and the fixed one, writes the next rotating buffer */
    int variant = (int)below2(4);
    if (variant > 0 && P.nbuffers < 4)
        variant = 0;
    if (variant > 0) {
        do
            fixed = other_buffer(r0, r1);
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
    o->via_launch = chance2(30);
    random_range(P.n, &o->off, &o->len);
    o->off2 = (int)below2((unsigned)(P.n - o->len + 1));
}

/* An ordinary kernel launch on stream s whose block size, dynamic shared memory or grid changes every few iterations. */
static void gen_geometry(int s)
{
    gen_kernel(s);
    struct op *o = &P.ops[P.count - 1];
    o->geo = GEO_BLOCK + (int)below2(3);
    o->every = 3 + (int)below2(5);
}

/* On stream s: [a D2H copy into pinned memory,] a host function writing pinned memory, an H2D copy reading it. */
static void gen_host_stage(int s)
{
    if (P.nstages == MAX_STAGES)
        return;
    int dst = other_buffer(-1, -1), src = -1;
    need(s, dst);
    /* 0: the host function writes a pattern of its call count; 1: it transforms what the D2H copy before it brought */
    int variant = (int)below2(2);
    if (variant) {
        src = chance2(30) ? dst : other_buffer(dst, -1);
        need(s, src);
    }
    struct op *o = emit(OP_HOST_STAGE, s);
    o->b[0] = dst, o->b[1] = src;
    o->variant = variant;
    o->slot = P.nstages++;
    random_range(P.n, &o->off, &o->len);
    o->off2 = (int)below2((unsigned)(P.n - o->len + 1));
    o->default_kind = chance2(25);
}

/* An invalid launch on stream s in every few iterations from the seventh on (once graphs replay), and what follows it. */
static void gen_fault(int s)
{
    struct op *o = emit(OP_FAULT, s);
    o->variant = (int)below2(4); /* block 2048 x 1 x 1, block 32 x 32 x 2, grid.x 0, grid.y 0 */
    o->ival = (int)below2(3);    /* then: cudaGetLastError, cudaPeekAtLastError, nothing (the iteration's end reads it) */
    o->every = 3 + (int)below2(8);
    o->phase = 6 + (int)below2((unsigned)o->every);
    o->via_launch = chance2(40);
    o->b[0] = other_buffer(-1, -1); /* an argument only: the launch never runs */
}

/* The program's own graph on a created stream: captured in some iterations, launched every iteration or in those. */
static void gen_own_graph(void)
{
    int candidates[MAX_STREAMS], n = 0;
    for (int i = 0; i < P.nstreams; i++)
        if (P.kind[i] == 1 || P.kind[i] == 2) /* the legacy and per-thread default streams are not captured */
            candidates[n++] = i;
    if (n == 0 || P.nown_graphs == MAX_OWN_GRAPHS)
        return;
    int s = candidates[below2((unsigned)n)];
    int b0 = other_buffer(-1, -1), b1 = other_buffer(b0, -1);
    need(s, b0), need(s, b1);
    struct op *o = emit(OP_OWN_GRAPH, s);
    o->b[0] = b0, o->b[1] = b1;
    o->variant = (int)below2(3);    /* capture mode: global, thread-local, relaxed */
    o->every = 1 + (int)below2(5);  /* captured in iterations it % every == 0 */
    o->ival = (int)below2(2);       /* a new capture: 0 cudaGraphExecUpdate, 1 instantiated again */
    o->swap = chance2(50);          /* launched only in its capture iterations (else every iteration) */
    o->vary = chance2(50);          /* its memset's value changes with the capture */
    o->slot = P.nown_graphs++;
    o->f = chance2(50) ? 0.5f : -0.25f;
    random_range(P.n, &o->off, &o->len);
    o->off2 = (int)below2((unsigned)(P.n - o->len + 1));
}

/* On stream s: k_poke writes the iteration into mapped memory, and the host spins on it before going on. */
static void gen_mapped_spin(int s)
{
    if (P.nspins == MAX_SPINS)
        return;
    struct op *o = emit(OP_MAPPED_SPIN, s);
    o->slot = P.nspins++;
    o->via_launch = chance2(40);
}

static int stress_at[ST_COUNT][2]; /* body positions of each stress kind's operations, -1: none (draw_stress) */

/* Emits the stress operations placed at body position i (stress_at, drawn from the second generator). */
static void gen_stress_at(int i)
{
    for (int k = 0; k < ST_COUNT; k++)
        for (int j = 0; j < 2; j++) {
            if (stress_at[k][j] != i)
                continue;
            int s = (int)below2((unsigned)P.nstreams), before = P.count;
            switch ((enum stress)k) {
            case ST_BIG_ARG: gen_big_arg(s); break;
            case ST_ROTATE: gen_rotate(s); break;
            case ST_GEOMETRY: gen_geometry(s); break;
            case ST_HOST_STAGE: gen_host_stage(s); break;
            case ST_FAULT: gen_fault(s); break;
            case ST_OWN_GRAPH: gen_own_graph(); break;
            case ST_MAPPED_SPIN: gen_mapped_spin(s); break;
            case ST_EVENT_POOL:
            case ST_DRIVER_DOOR:
            case ST_DRIVER_ONLY:
            case ST_COUNT: break;
            }
            P.stress[k] += P.count > before;
        }
}

/* Draws which stress kinds the body has and where (1 or 2 of each, at positions 0..length). */
static void draw_stress(int length)
{
    for (int k = 0; k < ST_COUNT; k++) {
        stress_at[k][0] = stress_at[k][1] = -1;
        if (k == ST_EVENT_POOL || k == ST_DRIVER_DOOR || k == ST_DRIVER_ONLY || !chance2(stress_percent[k]))
            continue;
        stress_at[k][0] = (int)below2((unsigned)length + 1);
        if (chance2(30))
            stress_at[k][1] = (int)below2((unsigned)length + 1);
    }
}

/* Generates the program of a seed. */
static void generate(uint64_t seed)
{
    rng = seed * 0x2545f4914f6cdd1dull + 1;
    rng2 = (seed ^ 0x5851f42d4c957f2dull) * 0xd1342543de82ef95ull;
    int created = 1 + (int)below(4);
    P.nstreams = created;
    for (int i = 0; i < created; i++)
        P.kind[i] = chance(60) ? 2 : 1;
    /* Every third seed's first blocking stream is the per-thread default one (no draw: other seeds stay as they were). */
    if (seed % 3 == 0 && P.kind[0] == 1)
        P.kind[0] = 3;
    if (chance(20))
        P.kind[P.nstreams++] = 0;
    P.nbuffers = 3 + (int)below(MAX_BUFFERS - 2);
    static const int sizes[] = {256, 300, 512, 768};
    P.n = sizes[below(4)];
    P.nevents = 1 + (int)below(MAX_EVENTS);
    for (int i = 0; i < P.nevents; i++)
        P.event_flags[i] = chance(50) ? cudaEventDisableTiming : cudaEventDefault;
    /* An event pool: no draw, so that every other seed keeps its program. */
    P.event_shift = seed % 4 == 1 && P.nevents > 1 ? 1 + (int)(seed / 4 % (uint64_t)(P.nevents - 1)) : 0;
    for (int i = 0; P.event_shift && i < P.nevents; i++)
        P.event_flags[i] = cudaEventDisableTiming;
    P.iters = 30 + (int)below(31);
    P.sync_mode = (int)below(4);
    P.sync_every = 2 + (int)below(7);
    static const unsigned disruption_pct[] = {0, 0, 0, 2, 5, 10};
    unsigned dis = disruption_pct[below(6)];
    int length = 4 + (int)below(37);

    for (int b = 0; b < P.nbuffers; b++)
        owner[b] = P.home[b] = (int)below((unsigned)P.nstreams);
    draw_stress(length);
    for (int i = 0; i < length; i++) {
        gen_stress_at(i);
        int s = (int)below((unsigned)P.nstreams);
        if (dis && chance(dis)) {
            struct op *o;
            int b = other_buffer(-1, -1);
            switch (below(9)) {
            case 0: emit(OP_QUERY_STREAM, s); break;
            case 1: emit(OP_QUERY_EVENT, s)->ev = (int)below((unsigned)P.nevents); break;
            case 2: emit(OP_SYNC_STREAM, s); break;
            case 3: emit(OP_SYNC_EVENT, s)->ev = (int)below((unsigned)P.nevents); break;
            case 4:
                need(s, b);
                o = emit(OP_MALLOC_FREE, s);
                o->b[0] = b;
                o->ival = (int)below(5);
                break;
            case 5:
                order_for_legacy(b);
                o = emit(OP_SYNC_D2H, s);
                o->b[0] = b;
                random_range(P.n, &o->off2, &o->len);
                break;
            case 6:
                order_for_legacy(b);
                o = emit(OP_SYNC_H2D, s);
                o->b[0] = b;
                random_range(P.n, &o->off, &o->len);
                o->off2 = (int)below((unsigned)(P.n - o->len + 1));
                break;
            case 7:
                need(s, b);
                o = emit(OP_D2H_PAGEABLE, s);
                o->b[0] = b;
                random_range(P.n, &o->off2, &o->len);
                break;
            default: emit(OP_BAD_LAUNCH, s); break;
            }
            continue;
        }
        unsigned r = below(100);
        struct op *o;
        if (r < 40) {
            gen_kernel(s);
        } else if (r < 48) {
            int src = other_buffer(-1, -1), dst = other_buffer(src, -1);
            need(s, src), need(s, dst);
            o = emit(OP_D2D, s);
            o->default_kind = chance(25);
            o->b[0] = dst, o->b[1] = src;
            random_range(P.n, &o->off, &o->len);
            o->off2 = (int)below((unsigned)(P.n - o->len + 1));
            o->swap = chance(30);
            o->vary = chance(30);
        } else if (r < 55) {
            int b = other_buffer(-1, -1);
            need(s, b);
            o = emit(OP_H2D_PINNED, s);
            o->default_kind = chance(25);
            o->b[0] = b;
            random_range(P.n, &o->off, &o->len);
            o->off2 = (int)below((unsigned)(P.n - o->len + 1));
            o->swap = chance(40); /* alternate between the two pinned sources */
            o->which = (int)below(2);
        } else if (r < 62) {
            int b = other_buffer(-1, -1);
            need(s, b);
            o = emit(OP_H2D_PAGEABLE, s);
            o->default_kind = chance(25);
            o->b[0] = b;
            random_range(P.n, &o->off, &o->len);
            o->off2 = (int)below((unsigned)(P.n - o->len + 1));
            o->which = (int)below(2);
        } else if (r < 69) {
            int b = other_buffer(-1, -1);
            need(s, b);
            o = emit(OP_D2H_PINNED, s);
            o->default_kind = chance(25);
            o->b[0] = b;
            random_range(P.n, &o->off, &o->len);
            o->off2 = (int)below((unsigned)(P.n - o->len + 1));
            o->vary = chance(30);
        } else if (r < 76) {
            int b = other_buffer(-1, -1);
            need(s, b);
            o = emit(OP_MEMSET, s);
            o->b[0] = b;
            random_range(P.n, &o->off, &o->len);
            o->ival = (int)below(6);
            o->vary = chance(40);
        } else if (r < 86) {
            o = emit(OP_HOST_FUNC, s);
            o->ival = (int)below(2);
            o->which = (int)below(2);
            o->swap = chance(20);
        } else if (r < 92) {
            emit(OP_RECORD, s)->ev = (int)below((unsigned)P.nevents);
        } else {
            emit(OP_WAIT, s)->ev = (int)below((unsigned)P.nevents); /* only adds order */
        }
    }
    gen_stress_at(length);
    /* Every buffer back to its home stream, so that iterations chain without a sync. */
    for (int b = 0; b < P.nbuffers; b++)
        need(P.home[b], b);
    for (int i = 0; P.event_shift && i < P.count; i++) {
        enum op_kind kind = P.ops[i].kind;
        P.stress[ST_EVENT_POOL] += kind == OP_RECORD || kind == OP_WAIT || kind == OP_QUERY_EVENT || kind == OP_SYNC_EVENT;
    }

    P.shape_k = 0;
    if (chance(30)) {
        P.shape_k = 2 + (int)below(6);
        P.shape_r = (int)below((unsigned)P.shape_k);
        P.shape_action = (int)below(5); /* skip, repeat, query before, stream sync before, allocation before */
        P.shape_pos = (int)below((unsigned)P.count);
    }
}

/* The kinds of an operation's calls that can go through the driver, one letter each (door_pick's kinds:
 * 'l' launch, 'c' copy, 'm' memset, 'r' event record, 'o' another). */
static const char *door_slots(const struct op *o)
{
    switch (o->kind) {
    case OP_KERNEL:
    case OP_BIG_ARG:
    case OP_MAPPED_SPIN:
    case OP_BAD_LAUNCH:
    case OP_FAULT: return "l";
    case OP_ROTATE: return o->variant == 2 ? "c" : "l";
    case OP_D2D:
    case OP_H2D_PINNED:
    case OP_H2D_PAGEABLE:
    case OP_D2H_PINNED:
    case OP_D2H_PAGEABLE:
    case OP_SYNC_D2H:
    case OP_SYNC_H2D: return "c";
    case OP_MEMSET: return "m";
    case OP_RECORD: return "r";
    case OP_HOST_FUNC:
    case OP_WAIT:
    case OP_QUERY_STREAM:
    case OP_QUERY_EVENT:
    case OP_SYNC_STREAM:
    case OP_SYNC_EVENT: return "o";
    case OP_MALLOC_FREE: return "ml";             /* its memset and launch (not the allocation) */
    case OP_HOST_STAGE: return o->variant ? "coc" : "-oc"; /* [D2H,] host function, H2D */
    case OP_OWN_GRAPH: return "llmc";            /* the captured calls (not the capture, not cudaGraphLaunch) */
    }
    return "";
}

/* Draws every call's door from the door generator (the program's shape stays the seed's) and counts them. */
static void assign_doors(uint64_t seed)
{
    P.door_share = door_seed(seed);
    int driver_ops = 0;
    for (int i = 0; i < P.count; i++) {
        struct op *o = &P.ops[i];
        const char *slots = door_slots(o);
        int slot_count = (int)strlen(slots), driver = 0;
        for (int j = 0; j < 4; j++) {
            o->d[j] = door_pick(P.door_share, j < slot_count ? slots[j] : 'o'); /* never past the string's end */
            if (j < slot_count && slots[j] != '-')
                driver |= door_ever_driver(o->d[j]);
        }
        driver_ops += driver;
    }
    for (int i = 0; i < 2 * MAX_STREAMS + 1; i++)
        P.end_door[i] = door_pick(P.door_share, i < MAX_STREAMS ? 'r' : 'o');
    P.shape_door = door_pick(P.door_share, 'o');
    P.stress[ST_DRIVER_DOOR] = driver_ops;
    P.stress[ST_DRIVER_ONLY] = P.door_share == 100 && driver_ops > 0;
}

/* --runtime-only: every call through the runtime (the output must not change). */
static void runtime_only(void)
{
    for (int i = 0; i < P.count; i++)
        for (int j = 0; j < 4; j++)
            P.ops[i].d[j].driver = 0, P.ops[i].d[j].flip = 0;
    for (int i = 0; i < 2 * MAX_STREAMS + 1; i++)
        P.end_door[i].driver = 0, P.end_door[i].flip = 0;
    P.shape_door.driver = 0, P.shape_door.flip = 0;
}

/* Prints an operation's doors (--dump): R runtime, D driver, F changing, per call; then the driver's forms. */
static void dump_doors(const struct op *o)
{
    const char *slots = door_slots(o);
    if (!*slots)
        return;
    printf("  [");
    for (int j = 0; slots[j]; j++)
        if (slots[j] != '-')
            door_dump(&o->d[j], slots[j], j ? " " : "");
    printf("]");
}

/* Prints a stress operation's fields (--dump). */
static void dump_stress_op(const struct op *o)
{
    static const char *const rotations[] = {"add_step writes it", "axpy reads it into b3", "d2d from it into b3",
                                            "combine reads it and b3, writes the next"};
    static const char *const faults[] = {"block 2048x1x1", "block 32x32x2", "grid.x 0", "grid.y 0"};
    static const char *const after_fault[] = {"then cudaGetLastError", "then cudaPeekAtLastError", "then nothing"};
    static const char *const modes[] = {"global", "thread-local", "relaxed"};
    switch (o->kind) {
    case OP_BIG_ARG:
        printf(" b%d key=%d word %d changes every %d, block=%d%s%s", o->b[0], o->ival, o->off, o->every, o->block,
               o->n_vary ? " n_vary" : "", o->via_launch ? " __cudaLaunchKernel" : "");
        break;
    case OP_ROTATE:
        printf(" b%d b%d b%d from %d (%s) b3=b%d f=%g i=%d block=%d off=%d src_off=%d len=%d%s", o->b[0], o->b[1],
               o->b[2], o->phase, rotations[o->variant], o->b[3], o->f, o->ival, o->block, o->off, o->off2, o->len,
               o->via_launch ? " __cudaLaunchKernel" : "");
        break;
    case OP_HOST_STAGE:
        printf(" slot %d: %s, host function, h2d into b%d off=%d len=%d%s", o->slot,
               o->variant ? "d2h from b1 first" : "no d2h", o->b[0], o->off, o->len,
               o->default_kind ? " cudaMemcpyDefault" : "");
        if (o->variant)
            printf(" b1=b%d src_off=%d", o->b[1], o->off2);
        break;
    case OP_FAULT:
        printf(" %s every %d from %d, %s%s", faults[o->variant], o->every, o->phase, after_fault[o->ival],
               o->via_launch ? " __cudaLaunchKernel" : "");
        break;
    case OP_OWN_GRAPH:
        printf(" slot %d: b%d b%d f=%g, %s capture every %d (%s), launched %s; memset off=%d len=%d%s, d2d src_off=%d",
               o->slot, o->b[0], o->b[1], o->f, modes[o->variant], o->every,
               o->ival ? "instantiated again" : "cudaGraphExecUpdate", o->swap ? "after each capture" : "every iteration",
               o->off, o->len, o->vary ? " vary" : "", o->off2);
        break;
    case OP_MAPPED_SPIN:
        printf(" slot %d: k_poke into mapped memory%s, then the host spins on it", o->slot,
               o->via_launch ? " (__cudaLaunchKernel)" : "");
        break;
    default: break;
    }
}

/* Prints the stress kinds the body has (a header line of the output and of --dump). */
static void print_stress_kinds(void)
{
    printf("stress kinds:");
    for (int k = 0; k < ST_COUNT; k++)
        if (stress_percent[k])
            printf(" %s %d", stress_names[k], P.stress[k]);
    printf("\n");
}

/* Prints the program (--dump). */
static void dump(void)
{
    static const char *const kinds[] = {"legacy", "blocking", "non-blocking", "per-thread"};
    printf("streams:");
    for (int i = 0; i < P.nstreams; i++)
        printf(" s%d=%s", i, kinds[P.kind[i]]);
    printf("\nbuffers %d of %d floats, homes:", P.nbuffers, P.n);
    for (int b = 0; b < P.nbuffers; b++)
        printf(" b%d@s%d", b, P.home[b]);
    printf("\nevents %d (shifted by %d each iteration), iterations %d, sync mode %d (every %d), shape k=%d r=%d "
           "action=%d pos=%d\n",
           P.nevents, P.event_shift, P.iters, P.sync_mode, P.sync_every, P.shape_k, P.shape_r, P.shape_action,
           P.shape_pos);
    printf("driver door: %u%% of the calls that can\n", P.door_share);
    print_stress_kinds();
    for (int i = 0; i < P.count; i++) {
        const struct op *o = &P.ops[i];
        printf("%3d s%d %-12s", i, o->s, op_names[o->kind]);
        if (o->kind == OP_KERNEL) {
            printf(" %s b%d b%d b%d f=%g i=%d block=%d shared=%d%s%s%s%s", kernel_names[o->k], o->b[0], o->b[1],
                   o->b[2], o->f, o->ival, o->block, o->shared, o->vary ? " vary" : "", o->swap ? " swap" : "",
                   o->n_vary ? " n_vary" : "", o->via_launch ? " __cudaLaunchKernel" : "");
            if (o->geo)
                printf(" geometry=%s every %d", geometry_names[o->geo], o->every);
        } else if (o->kind >= OP_BIG_ARG)
            dump_stress_op(o);
        else if (o->kind == OP_RECORD || o->kind == OP_WAIT || o->kind == OP_QUERY_EVENT || o->kind == OP_SYNC_EVENT)
            printf(" e%d", o->ev);
        else if (o->kind == OP_HOST_FUNC)
            printf(" fn%d data%d%s", o->ival, o->which, o->swap ? " swap" : "");
        else if (o->kind != OP_QUERY_STREAM && o->kind != OP_SYNC_STREAM && o->kind != OP_BAD_LAUNCH)
            printf(" b%d b%d off=%d src_off=%d len=%d which=%d val=%d%s%s%s", o->b[0], o->b[1], o->off, o->off2,
                   o->len, o->which, o->ival, o->vary ? " vary" : "", o->swap ? " swap" : "",
                   o->default_kind ? " cudaMemcpyDefault" : "");
        dump_doors(o);
        printf("\n");
    }
}

/* --keep=I,J,..: keeps only these operations of the body (to minimise a failing seed by hand). */
static void keep_only(const char *list)
{
    static char wanted[MAX_OPS];
    for (const char *p = list; *p;) {
        char *end;
        long i = strtol(p, &end, 10);
        if (end == p)
            break;
        if (i >= 0 && i < P.count)
            wanted[i] = 1;
        p = *end ? end + 1 : end;
    }
    int n = 0;
    for (int i = 0; i < P.count; i++)
        if (wanted[i])
            P.ops[n++] = P.ops[i];
    if (P.shape_k) {
        int pos = 0;
        for (int i = 0; i < P.shape_pos; i++)
            pos += wanted[i];
        P.shape_pos = pos < n ? pos : 0;
    }
    P.count = n > 0 ? n : 1;
}

/* ------------------------------------------------------------ running it */

static cudaStream_t streams[MAX_STREAMS];
static cudaEvent_t events[MAX_EVENTS], join_events[MAX_STREAMS];

/* The event operation o of iteration it names: its own, or in an event pool's seed the one it iterations on. */
static cudaEvent_t event_of(const struct op *o, int it)
{
    return events[(o->ev + it * P.event_shift) % P.nevents];
}
static float *buffers[MAX_BUFFERS];
static float *pinned_src[2], *pinned_dst[MAX_STREAMS], *pinned_sync;
static float *pageable_src[2], *host_scratch;
static uint64_t sync_sum; /* what synchronous copies and copies into pageable memory brought back */
static unsigned long error_count;

/* A host function's state: one per stream and variant, touched only by that stream. */
struct host_data {
    uint64_t sum;
    unsigned calls;
    unsigned tag;
    const float *pinned; /* the stream's pinned destination */
};
static struct host_data host_data[MAX_STREAMS][2];

static void CUDART_CB host_fn0(void *arg)
{
    struct host_data *h = arg;
    h->sum = (h->sum ^ (h->tag + h->calls * 0x9e37u)) * 1099511628211ull;
    h->sum ^= hash_floats(h->pinned, (size_t)P.n * sizeof(float));
    h->calls++;
}

static void CUDART_CB host_fn1(void *arg)
{
    struct host_data *h = arg;
    h->sum = h->sum * 31 + h->calls * 7 + h->tag;
    h->calls++;
}

/* Prints a failed call (queries may answer cudaErrorNotReady: that depends on timing). */
static void check(cudaError_t e, int it, int op, const char *what, int query)
{
    if (e == cudaSuccess || (query && e == cudaErrorNotReady))
        return;
    error_count++;
    printf("iteration %d op %d %s: %s\n", it, op, what, cudaGetErrorName(e));
}

/* Call j of operation o in iteration it goes through this door. */
#define DOOR(j) door_at(o->d[j], it)

/* A launch of operation o through its first door (the runtime's: through __cudaLaunchKernel if via). */
static cudaError_t launch_door(struct door d, const void *k, dim3 grid, dim3 block, void **args, size_t shared,
                               cudaStream_t s, int via)
{
    return door_launch(d, k, grid, block, args, shared, s, via);
}

/* The copy kind to pass: the real one, or cudaMemcpyDefault. */
static enum cudaMemcpyKind kind_of(const struct op *o, enum cudaMemcpyKind kind)
{
    return o->default_kind ? cudaMemcpyDefault : kind;
}

static struct stage stages[MAX_STAGES];
static cudaGraphExec_t own_exec[MAX_OWN_GRAPHS];
static volatile int *spin_flags; /* OP_MAPPED_SPIN: cudaHostAllocMapped, one int a slot */
static int *spin_flags_device;

/* OP_MAPPED_SPIN: k_poke writes a value unique to this iteration and slot; the host waits for it with no CUDA call. */
static void mapped_spin(const struct op *o, int it, int index, cudaStream_t s)
{
    int *flag = spin_flags_device + o->slot, value = it * MAX_SPINS + o->slot + 1;
    dim3 one = {1, 1, 1};
    check(launch_door(DOOR(0), (const void *)k_poke, one, one, (void *[]){&flag, &value}, 0, s, o->via_launch), it, index,
          "k_poke (mapped spin)", 0);
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (unsigned long spins = 0; __atomic_load_n(&spin_flags[o->slot], __ATOMIC_ACQUIRE) != value; spins++) {
        sched_yield(); /* a polite spin: on a loaded machine the device (the stand-in's thread) gets the core */
        if (spins % 256 != 0)
            continue;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec - start.tv_sec > SPIN_LIMIT_S) {
            printf("iteration %d op %d: the mapped flag is %d after %d s, expected %d: held-back work never ran\n", it,
                   index, __atomic_load_n(&spin_flags[o->slot], __ATOMIC_ACQUIRE), SPIN_LIMIT_S, value);
            exit(3);
        }
    }
}
static const unsigned char set_values[] = {0x00, 0x3c, 0x3e, 0x3f, 0x40, 0xbf};

/* OP_OWN_GRAPH in a capture iteration: captures its calls, then updates its executable graph or makes a new one. */
static void own_capture(const struct op *o, int it, int index, cudaStream_t s)
{
    static const enum cudaStreamCaptureMode modes[] = {cudaStreamCaptureModeGlobal, cudaStreamCaptureModeThreadLocal,
                                                       cudaStreamCaptureModeRelaxed};
    float *b0 = buffers[o->b[0]], *b1 = buffers[o->b[1]], f = o->f, half = 0.5f;
    int n = P.n, step = it % 10;
    size_t fsz = sizeof(float);
    dim3 grid = {(unsigned)((P.n + 255) / 256), 1, 1}, block = {256, 1, 1};
    cudaGraph_t g = NULL;
    check(cudaStreamBeginCapture(s, modes[o->variant]), it, index, "cudaStreamBeginCapture (own)", 0);
    enum cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    check(cudaStreamIsCapturing(s, &status), it, index, "cudaStreamIsCapturing (own)", 0);
    if (status != cudaStreamCaptureStatusActive)
        printf("iteration %d op %d own capture: status %d\n", it, index, (int)status);
    check(door_launch(DOOR(0), (const void *)k_add_step, grid, block, (void *[]){&b0, &f, &step, &n}, 0, s, 0), it,
          index, "add_step (own capture)", 0);
    check(door_launch(DOOR(1), (const void *)k_axpy, grid, block, (void *[]){&half, &b0, &b1, &n}, 0, s, 0), it, index,
          "axpy (own capture)", 0);
    check(door_memset(DOOR(2), b1 + o->off, set_values[(o->vary ? it / o->every : 0) % 6], o->len * fsz, s), it,
          index, "cudaMemsetAsync (own capture)", 0);
    struct door copy = DOOR(3);
    copy.form = 0; /* never a batch copy (fuzz_door.h): CUDA refuses one in a capture */
    check(door_memcpy(copy, b0 + o->off2, b1 + o->off, o->len * fsz, cudaMemcpyDeviceToDevice, s), it, index,
          "cudaMemcpyAsync (own capture)", 0);
    check(cudaStreamEndCapture(s, &g), it, index, "cudaStreamEndCapture (own)", 0);
    if (g == NULL)
        return;
    cudaGraphExec_t *exec = &own_exec[o->slot];
    if (*exec && o->ival == 0) {
        cudaGraphExecUpdateResultInfo info;
        cudaError_t e = cudaGraphExecUpdate(*exec, g, &info);
        check(e, it, index, "cudaGraphExecUpdate (own)", 0);
        if (e != cudaSuccess) {
            check(cudaGraphExecDestroy(*exec), it, index, "cudaGraphExecDestroy (own)", 0);
            *exec = NULL;
        }
    } else if (*exec) {
        check(cudaGraphExecDestroy(*exec), it, index, "cudaGraphExecDestroy (own)", 0); /* queued launches still run */
        *exec = NULL;
    }
    if (*exec == NULL)
        check(cudaGraphInstantiate(exec, g, 0), it, index, "cudaGraphInstantiate (own)", 0);
    check(cudaGraphDestroy(g), it, index, "cudaGraphDestroy (own)", 0);
}

/* Runs a stress operation (OP_BIG_ARG and after) in iteration it. */
static void run_stress_op(const struct op *o, int it, int index)
{
    cudaStream_t s = streams[o->s];
    size_t fsz = sizeof(float);
    int n = P.n;
    dim3 grid = {(unsigned)((P.n + o->block - 1) / (o->block ? o->block : 1)), 1, 1}, block = {(unsigned)o->block, 1, 1};
    switch (o->kind) {
    case OP_BIG_ARG: {
        struct k_big_arg_table table;
        big_arg_table(&table, (unsigned)o->ival, o->off, o->every, it);
        float *y = buffers[o->b[0]];
        if (o->n_vary)
            n = P.n - (it % 3) * 5;
        check(launch_door(DOOR(0), (const void *)k_big_arg, grid, block, (void *[]){&y, &table, &n}, 0, s, o->via_launch), it, index,
              "big_arg", 0);
        break;
    }
    case OP_ROTATE: {
        int j = (it + o->phase) % 3;
        float *rot = buffers[o->b[j]], *next = buffers[o->b[(j + 1) % 3]];
        float *fixed = o->b[3] >= 0 ? buffers[o->b[3]] : NULL, f = o->f;
        int step = o->ival + it;
        switch (o->variant) {
        case 0:
            check(launch_door(DOOR(0), (const void *)k_add_step, grid, block, (void *[]){&rot, &f, &step, &n}, 0, s, o->via_launch),
                  it, index, "add_step (rotate)", 0);
            break;
        case 1:
            check(launch_door(DOOR(0), (const void *)k_axpy, grid, block, (void *[]){&f, &rot, &fixed, &n}, 0, s, o->via_launch), it,
                  index, "axpy (rotate)", 0);
            break;
        case 2:
            check(door_memcpy(DOOR(0), fixed + o->off, rot + o->off2, o->len * fsz, cudaMemcpyDeviceToDevice, s), it,
                  index, "cudaMemcpyAsync (rotate)", 0);
            break;
        default:
            check(launch_door(DOOR(0), (const void *)k_combine, grid, block, (void *[]){&rot, &fixed, &next, &n}, 0, s,
                         o->via_launch),
                  it, index, "combine (rotate)", 0);
            break;
        }
        break;
    }
    case OP_HOST_STAGE: {
        struct stage *st = &stages[o->slot];
        if (o->variant)
            check(door_memcpy(DOOR(0), st->in, buffers[o->b[1]] + o->off2, o->len * fsz,
                              kind_of(o, cudaMemcpyDeviceToHost), s),
                  it, index, "cudaMemcpyAsync D2H (stage)", 0);
        check(door_host_func(DOOR(1), s, stage_fn, st), it, index, "cudaLaunchHostFunc (stage)", 0);
        check(door_memcpy(DOOR(2), buffers[o->b[0]] + o->off, st->out, o->len * fsz, kind_of(o, cudaMemcpyHostToDevice),
                          s),
              it, index, "cudaMemcpyAsync H2D (stage)", 0);
        break;
    }
    case OP_FAULT: {
        if (it < o->phase || (it - o->phase) % o->every != 0)
            break;
        float *y = buffers[o->b[0]], v = 2.0f;
        dim3 bad_grid, bad_block;
        fault_geometry(o->variant, &bad_grid, &bad_block);
        check(launch_door(DOOR(0), (const void *)k_fill, bad_grid, bad_block, (void *[]){&y, &v, &n}, 0, s, o->via_launch), it,
              index, "fault launch", 0);
        if (o->ival == 0)
            printf("iteration %d op %d cudaGetLastError after the fault: %s\n", it, index,
                   cudaGetErrorName(door_get_last_error()));
        else if (o->ival == 1)
            printf("iteration %d op %d cudaPeekAtLastError after the fault: %s\n", it, index,
                   cudaGetErrorName(door_peek_last_error()));
        break;
    }
    case OP_OWN_GRAPH: {
        int captured = it % o->every == 0;
        if (captured)
            own_capture(o, it, index, s);
        if (captured || !o->swap)
            check(cudaGraphLaunch(own_exec[o->slot], s), it, index, "cudaGraphLaunch (own)", 0);
        break;
    }
    case OP_MAPPED_SPIN: mapped_spin(o, it, index, s); break;
    default: break;
    }
}

/* Runs one operation in iteration it. */
static void run_op(const struct op *o, int it, int index)
{
    cudaStream_t s = streams[o->s];
    int odd = it & 1;
    size_t fsz = sizeof(float);
    switch (o->kind) {
    case OP_KERNEL: {
        float *b0 = buffers[o->b[0]], *b1 = buffers[o->b[1]], *b2 = buffers[o->b[2]];
        int n = o->n_vary ? P.n - (it % 3) * 5 : P.n;
        float f = o->f;
        int step = o->ival;
        dim3 grid = {(unsigned)((P.n + o->block - 1) / o->block), 1, 1}, block = {(unsigned)o->block, 1, 1};
        void *args[4];
        const void *fn = NULL;
        if (o->swap && odd) {
            /* The pointer arguments alternate: the buffer written becomes one read. */
            float *t = b0;
            if (o->k == K_COMBINE)
                b0 = b2, b2 = t;
            else
                b0 = b1, b1 = t;
        }
        if (o->vary) {
            switch (o->k) {
            case K_FILL: f += (float)(it % 4) * 0.5f; break;
            case K_AXPY: f = odd ? -f : f; break;
            case K_SCALE: f = odd ? f : 0.625f; break;
            case K_ADD_STEP: step += it; break;
            default: break;
            }
        }
        switch (o->k) {
        case K_FILL: fn = (const void *)k_fill, args[0] = &b0, args[1] = &f, args[2] = &n; break;
        case K_AXPY: fn = (const void *)k_axpy, args[0] = &f, args[1] = &b0, args[2] = &b1, args[3] = &n; break;
        case K_SCALE: fn = (const void *)k_scale, args[0] = &b0, args[1] = &f, args[2] = &n; break;
        case K_ADD_STEP:
            fn = (const void *)k_add_step, args[0] = &b0, args[1] = &f, args[2] = &step, args[3] = &n;
            break;
        case K_COMBINE: fn = (const void *)k_combine, args[0] = &b0, args[1] = &b1, args[2] = &b2, args[3] = &n; break;
        case K_REDUCE:
            fn = (const void *)k_reduce_sum, args[0] = &b0, args[1] = &b1, args[2] = &n;
            grid.x = 1, block.x = REDUCE_THREADS;
            break;
        case K_EMPTY: fn = (const void *)k_empty, block.x = 32, grid.x = 1; break;
        default: fn = (const void *)k_apply_coef, args[0] = &b0, args[1] = &n; break;
        }
        size_t shared = (size_t)o->shared;
        if (o->geo) /* K_REDUCE and K_EMPTY launch one block */
            change_geometry(o->geo, o->every, it, P.n, o->k != K_REDUCE && o->k != K_EMPTY, &grid, &block, &shared);
        check(launch_door(DOOR(0), fn, grid, block, o->k == K_EMPTY ? NULL : args, shared, s, o->via_launch), it, index,
              kernel_names[o->k], 0);
        break;
    }
    case OP_D2D: {
        float *dst = buffers[o->b[0]], *src = buffers[o->b[1]];
        if (o->swap && odd) {
            float *t = dst;
            dst = src, src = t;
        }
        int doff = o->off, soff = o->off2;
        if (o->vary) {
            doff = (doff + it * 7) % (P.n - o->len + 1);
            soff = (soff + it * 3) % (P.n - o->len + 1);
        }
        check(door_memcpy(DOOR(0), dst + doff, src + soff, o->len * fsz, kind_of(o, cudaMemcpyDeviceToDevice), s), it,
              index, "cudaMemcpyAsync D2D", 0);
        break;
    }
    case OP_H2D_PINNED: {
        const float *src = pinned_src[o->swap ? (o->which ^ odd) : o->which];
        check(door_memcpy(DOOR(0), buffers[o->b[0]] + o->off, src + o->off2, o->len * fsz,
                          kind_of(o, cudaMemcpyHostToDevice), s),
              it, index, "cudaMemcpyAsync H2D pinned", 0);
        break;
    }
    case OP_H2D_PAGEABLE: {
        float *src = pageable_src[o->which];
        check(door_memcpy(DOOR(0), buffers[o->b[0]] + o->off, src + o->off2, o->len * fsz,
                          kind_of(o, cudaMemcpyHostToDevice), s),
              it, index, "cudaMemcpyAsync H2D pageable", 0);
        /* CUDA took the bytes: the program may change them at once. */
        for (int i = 0; i < o->len; i++)
            src[o->off2 + i] += 0.5f;
        break;
    }
    case OP_D2H_PINNED: {
        int doff = o->vary ? (o->off + it * 5) % (P.n - o->len + 1) : o->off;
        check(door_memcpy(DOOR(0), pinned_dst[o->s] + doff, buffers[o->b[0]] + o->off2, o->len * fsz,
                          kind_of(o, cudaMemcpyDeviceToHost), s),
              it, index, "cudaMemcpyAsync D2H pinned", 0);
        break;
    }
    case OP_MEMSET: {
        int v = set_values[(o->ival + (o->vary ? it : 0)) % 6];
        check(door_memset(DOOR(0), buffers[o->b[0]] + o->off, v, o->len * fsz, s), it, index, "cudaMemsetAsync", 0);
        break;
    }
    case OP_HOST_FUNC: {
        struct host_data *h = &host_data[o->s][o->swap ? (o->which ^ odd) : o->which];
        check(door_host_func(DOOR(0), s, o->ival ? host_fn1 : host_fn0, h), it, index, "cudaLaunchHostFunc", 0);
        break;
    }
    case OP_RECORD: check(door_record(DOOR(0), event_of(o, it), s), it, index, "cudaEventRecord", 0); break;
    case OP_WAIT: check(door_wait(DOOR(0), s, event_of(o, it)), it, index, "cudaStreamWaitEvent", 0); break;
    case OP_QUERY_STREAM: check(door_stream_query(DOOR(0), s), it, index, "cudaStreamQuery", 1); break;
    case OP_QUERY_EVENT: check(door_event_query(DOOR(0), event_of(o, it)), it, index, "cudaEventQuery", 1); break;
    case OP_SYNC_STREAM: check(door_stream_sync(DOOR(0), s), it, index, "cudaStreamSynchronize", 0); break;
    case OP_SYNC_EVENT: check(door_event_sync(DOOR(0), event_of(o, it)), it, index, "cudaEventSynchronize", 0); break;
    case OP_MALLOC_FREE: {
        float *tmp = NULL, *y = buffers[o->b[0]], a = 0.5f;
        int n = P.n;
        check(cudaMalloc((void **)&tmp, (size_t)P.n * fsz), it, index, "cudaMalloc", 0);
        check(door_memset(DOOR(0), tmp, set_values[o->ival], (size_t)P.n * fsz, s), it, index, "cudaMemsetAsync tmp", 0);
        void *args[] = {&a, &tmp, &y, &n};
        dim3 grid = {(unsigned)((P.n + 255) / 256), 1, 1}, block = {256, 1, 1};
        check(door_launch(DOOR(1), (const void *)k_axpy, grid, block, args, 0, s, 0), it, index, "axpy tmp", 0);
        check(cudaFree(tmp), it, index, "cudaFree", 0);
        break;
    }
    case OP_SYNC_D2H:
        check(door_memcpy_sync(DOOR(0), host_scratch, buffers[o->b[0]] + o->off2, o->len * fsz, cudaMemcpyDeviceToHost), it,
              index, "cudaMemcpy D2H", 0);
        sync_sum = sync_sum * 1099511628211ull ^ hash_floats(host_scratch, o->len * fsz);
        break;
    case OP_SYNC_H2D:
        fill_host(pinned_sync, P.n, (unsigned)(it * 131 + index));
        check(door_memcpy_sync(DOOR(0), buffers[o->b[0]] + o->off, pinned_sync + o->off2, o->len * fsz, cudaMemcpyHostToDevice),
              it, index, "cudaMemcpy H2D", 0);
        fill_host(pinned_sync, P.n, 0); /* done: the copy returned */
        break;
    case OP_D2H_PAGEABLE:
        check(door_memcpy(DOOR(0), host_scratch, buffers[o->b[0]] + o->off2, o->len * fsz, cudaMemcpyDeviceToHost, s),
              it, index, "cudaMemcpyAsync D2H pageable", 0);
        sync_sum = sync_sum * 1099511628211ull ^ hash_floats(host_scratch, o->len * fsz);
        break;
    case OP_BAD_LAUNCH: {
        float *y = buffers[0], v = 1.0f;
        int n = P.n;
        void *args[] = {&y, &v, &n};
        dim3 grid = {1, 1, 1}, block = {2048, 1, 1};
        check(door_launch(DOOR(0), (const void *)k_fill, grid, block, args, 0, s, 0), it, index, "bad launch", 0);
        break;
    }
    case OP_BIG_ARG:
    case OP_ROTATE:
    case OP_HOST_STAGE:
    case OP_FAULT:
    case OP_OWN_GRAPH:
    case OP_MAPPED_SPIN: run_stress_op(o, it, index); break;
    }
}

/* Whether an operation is stream work that can be left out or repeated without a race. */
static int movable(const struct op *o)
{
    if (o->kind == OP_BIG_ARG || o->kind == OP_ROTATE || o->kind == OP_HOST_STAGE)
        return 1;
    return o->kind != OP_RECORD && o->kind != OP_WAIT && o->kind < OP_QUERY_STREAM;
}

/* Whether leaving the operation out once surely changes something. */
static int changes_state(const struct op *o)
{
    if (o->kind == OP_KERNEL)
        return o->k != K_FILL && o->k != K_EMPTY && o->k != K_REDUCE;
    if (o->kind == OP_ROTATE)
        return o->variant != 2;
    /* Not OP_BIG_ARG: y * 0.5 + w forgets an iteration left out within a few of them. */
    return o->kind == OP_HOST_FUNC || o->kind == OP_H2D_PAGEABLE || o->kind == OP_HOST_STAGE;
}

/* Ends iteration it with the seed's kind of synchronisation; true if everything is synchronised. */
static int end_iteration(int it, int last, int no_final_sync)
{
    if (last && no_final_sync)
        return 0;
    const struct door *d = P.end_door; /* [i] stream i's record or sync, [MAX_STREAMS + i] its wait, then the device */
    switch (P.sync_mode) {
    case 0: check(door_device_sync(door_at(d[2 * MAX_STREAMS], it)), it, -1, "cudaDeviceSynchronize", 0); return 1;
    case 1:
        for (int i = P.nstreams; i-- > 0;)
            check(door_stream_sync(door_at(d[i], it), streams[i]), it, -1, "cudaStreamSynchronize", 0);
        return 1;
    case 2:
        if (!last && it % P.sync_every != P.sync_every - 1)
            return 0;
        check(door_device_sync(door_at(d[2 * MAX_STREAMS], it)), it, -1, "cudaDeviceSynchronize", 0);
        return 1;
    default:
        for (int i = 1; i < P.nstreams; i++) {
            check(door_record(door_at(d[i], it), join_events[i], streams[i]), it, -1, "cudaEventRecord join", 0);
            check(door_wait(door_at(d[MAX_STREAMS + i], it), streams[0], join_events[i]), it, -1,
                  "cudaStreamWaitEvent join", 0);
        }
        check(door_stream_sync(door_at(d[MAX_STREAMS], it), streams[0]), it, -1, "cudaStreamSynchronize join", 0);
        return 1;
    }
}

int main(int argc, char **argv)
{
    int dump_only = 0, drop = 0, no_final_sync = 0, iters = 0, runtime_door_only = 0;
    const char *keep = NULL;
    const char *seed_arg = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--dump"))
            dump_only = 1;
        else if (!strcmp(argv[i], "--drop"))
            drop = 1;
        else if (!strcmp(argv[i], "--no-final-sync"))
            no_final_sync = 1;
        else if (!strcmp(argv[i], "--runtime-only"))
            runtime_door_only = 1;
        else if (!strcmp(argv[i], "--all-pdl"))
            door_all_pdl = 1;
        else if (!strncmp(argv[i], "--door-mask=", 12))
            door_mask = (unsigned)strtoul(argv[i] + 12, NULL, 0);
        else if (!strncmp(argv[i], "--iters=", 8))
            iters = atoi(argv[i] + 8);
        else if (!strncmp(argv[i], "--keep=", 7))
            keep = argv[i] + 7;
        else
            seed_arg = argv[i];
    }
    if (seed_arg == NULL) {
        fprintf(stderr, "usage: %s [--dump] [--drop] [--no-final-sync] [--runtime-only] [--all-pdl] [--iters=N] "
                        "[--keep=I,...] SEED\n",
                argv[0]);
        return 2;
    }
    uint64_t seed = strtoull(seed_arg, NULL, 10);
    setvbuf(stdout, NULL, _IOLBF, 0);
    generate(seed);
    assign_doors(seed);
    if (iters > 0)
        P.iters = iters;
    if (keep)
        keep_only(keep);
    if (dump_only) {
        if (keep || iters)
            printf("(after --keep/--iters)\n");
        dump();
        return 0;
    }
    require_device();
    door_init();
    if (runtime_door_only)
        runtime_only();
    printf("seed %llu: %d streams, %d buffers, %d calls in the body, %d iterations\n", (unsigned long long)seed,
           P.nstreams, P.nbuffers, P.count, P.iters);
    print_stress_kinds();

    size_t bytes = (size_t)P.n * sizeof(float);
    for (int i = 0; i < P.nstreams; i++) {
        if (P.kind[i] == 0)
            streams[i] = 0;
        else if (P.kind[i] == 3)
            streams[i] = cudaStreamPerThread;
        else
            check(cudaStreamCreateWithFlags(&streams[i], P.kind[i] == 2 ? cudaStreamNonBlocking : cudaStreamDefault),
                  -1, i, "cudaStreamCreateWithFlags", 0);
        check(cudaEventCreateWithFlags(&join_events[i], cudaEventDisableTiming), -1, i, "cudaEventCreate", 0);
    }
    for (int i = 0; i < P.nevents; i++)
        check(cudaEventCreateWithFlags(&events[i], (unsigned)P.event_flags[i]), -1, i, "cudaEventCreate", 0);
    for (int i = 0; i < 2; i++) {
        check(cudaMallocHost((void **)&pinned_src[i], bytes), -1, i, "cudaMallocHost", 0);
        pageable_src[i] = malloc(bytes);
    }
    check(cudaMallocHost((void **)&pinned_sync, bytes), -1, 0, "cudaMallocHost", 0);
    for (int i = 0; i < P.count; i++)
        if (P.ops[i].kind == OP_HOST_STAGE) {
            struct stage *st = &stages[P.ops[i].slot];
            check(cudaMallocHost((void **)&st->in, bytes), -1, i, "cudaMallocHost (stage)", 0);
            check(cudaMallocHost((void **)&st->out, bytes), -1, i, "cudaMallocHost (stage)", 0);
            memset(st->in, 0, bytes);
            memset(st->out, 0, bytes);
            st->len = P.ops[i].len, st->variant = P.ops[i].variant;
        }
    if (P.nspins) {
        check(cudaHostAlloc((void **)&spin_flags, MAX_SPINS * sizeof(int), cudaHostAllocMapped), -1, 0,
              "cudaHostAlloc (mapped)", 0);
        memset((void *)spin_flags, 0, MAX_SPINS * sizeof(int));
        check(cudaHostGetDevicePointer((void **)&spin_flags_device, (void *)spin_flags, 0), -1, 0,
              "cudaHostGetDevicePointer", 0);
    }
    host_scratch = malloc(bytes);
    for (int i = 0; i < P.nstreams; i++) {
        check(cudaMallocHost((void **)&pinned_dst[i], bytes), -1, i, "cudaMallocHost", 0);
        memset(pinned_dst[i], 0, bytes);
        for (int v = 0; v < 2; v++)
            host_data[i][v] = (struct host_data){0, 0, (unsigned)(i * 2 + v + 1), pinned_dst[i]};
    }
    static const float coef[4] = {0.5f, 0.75f, 1.25f, -0.5f};
    check(cudaMemcpyToSymbol(k_coef_symbol(), coef, sizeof coef, 0, cudaMemcpyHostToDevice), -1, 0,
          "cudaMemcpyToSymbol", 0);
    for (int b = 0; b < P.nbuffers; b++) {
        check(cudaMalloc((void **)&buffers[b], bytes), -1, b, "cudaMalloc", 0);
        fill_host(host_scratch, P.n, 1000u + (unsigned)b);
        check(cudaMemcpy(buffers[b], host_scratch, bytes, cudaMemcpyHostToDevice), -1, b, "cudaMemcpy", 0);
    }

    int synced = 1;
    uint64_t trajectory = 0;
    /* --drop: from a seeded position on, the first call whose effect differs every iteration (dropping
     * a memset or fill that writes what is already there changes nothing; an event call would race). */
    int drop_it = P.iters / 2, drop_op = (int)(seed % (uint64_t)P.count);
    for (int tries = 0; tries < P.count && !changes_state(&P.ops[drop_op]); tries++)
        drop_op = (drop_op + 1) % P.count;
    for (int it = 0; it < P.iters; it++) {
        if (synced) /* no copy can be reading them now */
            for (int i = 0; i < 2; i++)
                fill_host(pinned_src[i], P.n, (unsigned)(it * 4 + i) ^ (unsigned)seed);
        for (int i = 0; i < 2; i++)
            fill_host(pageable_src[i], P.n, (unsigned)(it * 4 + 2 + i) ^ (unsigned)seed);
        int shaped = P.shape_k && it % P.shape_k == P.shape_r;
        for (int i = 0; i < P.count; i++) {
            const struct op *o = &P.ops[i];
            if (drop && it == drop_it && i == drop_op)
                continue;
            if (shaped && i == P.shape_pos) {
                if (P.shape_action == 0 && movable(o))
                    continue;
                if (P.shape_action == 2)
                    check(door_stream_query(door_at(P.shape_door, it), streams[o->s]), it, i, "cudaStreamQuery (shape)", 1);
                if (P.shape_action == 3)
                    check(door_stream_sync(door_at(P.shape_door, it), streams[o->s]), it, i, "cudaStreamSynchronize (shape)", 0);
                if (P.shape_action == 4) {
                    void *scratch = NULL;
                    check(cudaMalloc(&scratch, 256), it, i, "cudaMalloc (shape)", 0);
                    check(cudaFree(scratch), it, i, "cudaFree (shape)", 0);
                }
            }
            run_op(o, it, i);
            if (shaped && i == P.shape_pos && P.shape_action == 1 && movable(o) && o->kind != OP_H2D_PAGEABLE)
                run_op(o, it, i);
        }
        synced = end_iteration(it, it == P.iters - 1, no_final_sync);
        if (synced) {
            /* Everything is done: fold every buffer into the trajectory, so that a difference in any
             * iteration shows even when later work overwrites it. */
            for (int b = 0; b < P.nbuffers; b++) {
                check(cudaMemcpy(host_scratch, buffers[b], bytes, cudaMemcpyDeviceToHost), it, -1,
                      "cudaMemcpy trajectory", 0);
                trajectory = (trajectory ^ hash_floats(host_scratch, bytes)) * 1099511628211ull;
            }
            for (int i = 0; i < P.nstreams; i++)
                trajectory = (trajectory ^ hash_floats(pinned_dst[i], bytes)) * 1099511628211ull;
        }
        cudaError_t e = door_get_last_error();
        if (e != cudaSuccess)
            printf("iteration %d: cudaGetLastError: %s\n", it, cudaGetErrorName(e));
    }

    if (!no_final_sync)
        check(cudaDeviceSynchronize(), P.iters, -1, "cudaDeviceSynchronize", 0);
    char label[32];
    (void)label;
    for (int b = 0; b < P.nbuffers; b++) {
        /* The hash, and how many values are not finite (too many would make the hash insensitive). */
        cudaError_t e = cudaMemcpy(host_scratch, buffers[b], bytes, cudaMemcpyDeviceToHost);
        int odd_values = 0;
        for (int i = 0; i < P.n; i++)
            odd_values += !isfinite(host_scratch[i]) || fabsf(host_scratch[i]) > 1e30f;
        printf("buffer %d: h=%016llx, %d huge or not finite%s%s\n", b,
               (unsigned long long)hash_floats(host_scratch, bytes), odd_values, e ? ", " : "",
               e ? cudaGetErrorName(e) : "");
    }
    for (int i = 0; i < P.nstreams; i++) {
        snprintf(label, sizeof label, "pinned %d", i);
        report_floats(label, pinned_dst[i], bytes);
        for (int v = 0; v < 2; v++)
            printf("host data %d.%d: calls %u sum %016llx\n", i, v, host_data[i][v].calls,
                   (unsigned long long)host_data[i][v].sum);
    }
    printf("synchronous copies: %016llx\n", (unsigned long long)sync_sum);
    printf("trajectory (every buffer after every synchronised iteration): %016llx\n",
           (unsigned long long)trajectory);
    printf("errors %lu, last error %s\n", error_count, cudaGetErrorName(door_get_last_error()));
    return 0;
}
