/* SPDX-License-Identifier: MIT */
/*
 * event_pool: a JAX-like loop whose cross-stream events come from a pool
 * (issue 39, item 3).  Each iteration is the same work on two non-blocking
 * streams but for the events it names: streams b and a first wait for the
 * event b recorded at the end of the iteration before (recorded before the
 * region: wait nodes), a writes x and records pool[it % 8], b waits for it
 * (an edge), reads x and accumulates, then records pool[(it + 4) % 8].
 * Then, past a boundary, the program may look at a pooled event itself
 * (by the iteration: an event sync and a host read of x, a query loop and
 * a host read, a third stream's wait and a kernel reading x, a query after
 * a stream sync, an older event's sync, elapsed times), and syncs the device.
 * Each observation is ordered after the region's work only by the event,
 * so a record made late, early or on another event lets the stand-in's
 * scheduler read x before it is written, for some seed.
 *
 *   event_pool [untimed|timed|mixed|one [ITERS [observe|free|renew]]]
 *
 * untimed: the pool's events have no timing (as XLA creates them); timed:
 * they have (record nodes, whose event a replay changes); mixed: even ones
 * timed, odd ones untimed; one: a pool of one untimed event, named in
 * every place.  observe: the observations above; free: no boundary and no
 * sync between iterations, one at the end (a sync-free loop, whose cuts
 * the shim doubles); renew: every 5 iterations, after the sync, the pool's
 * events are destroyed (through the driver's cuEventDestroy, as the runtime's
 * cudaEventDestroy does; the stand-in's runtime does not) and new ones made,
 * and the kernels' arguments come back every 4 iterations (a graph makes
 * another instance of itself for a set that recurs, as it was built: with
 * the old events, which the stand-in refuses): a graph naming the old ones
 * must go first; else a boundary and a device sync.
 */
#include <stdint.h>

#include <cuda.h>

#include "scenario.h"

#define N 2048
#define POOL 8

static cudaStream_t sa, sb, sc, sr;
static cudaEvent_t pool[POOL], idle;
static int pool_size = POOL;
static int arg_period; /* nonzero: the kernels' arguments repeat every so many iterations (renew) */
static float *x, *y, *z, *acc, *d, *pinned;
static uint64_t host_sum = 1469598103934665603ull; /* FNV-1a of every host read */

/* The region: the same calls every iteration, but for the pool's events it names. */
static void region(int it)
{
    cudaEvent_t before = pool[(it + 3) % pool_size]; /* recorded by the iteration before (never at 0) */
    int phase = arg_period ? it % arg_period : it;
    CK(cudaStreamWaitEvent(sb, before, 0));
    CK(cudaStreamWaitEvent(sa, before, 0)); /* x is written after the last iteration read it */
    k_fill_on(x, 0.5f * (float)(phase % 7) + 1.0f, N, sa);
    k_add_step_on(x, 0.25f, phase, N, sa);
    CK(cudaEventRecord(pool[it % pool_size], sa));
    CK(cudaStreamWaitEvent(sb, pool[it % pool_size], 0));
    k_combine_on(x, y, z, N, sb);
    k_axpy_on(0.5f, z, acc, N, sb);
    CK(cudaEventRecord(pool[(it + 4) % pool_size], sb));
}

/* Makes the pool's events: timing as timing says (k: the event's place). */
static void make_pool(const char *timing)
{
    for (int k = 0; k < POOL; k++) {
        int timed = strcmp(timing, "timed") == 0 || (strcmp(timing, "mixed") == 0 && k % 2 == 0);
        CK(cudaEventCreateWithFlags(&pool[k], timed ? cudaEventDefault : cudaEventDisableTiming));
    }
}

/* Ends the region without touching a stream (an event never recorded is complete). */
static void boundary(void)
{
    CK(cudaEventQuery(idle));
}

/* Folds x into the host sum, copied on a stream of its own: only an event orders it after the region. */
static void host_read(void)
{
    CK(cudaMemcpyAsync(pinned, x, N * sizeof(float), cudaMemcpyDeviceToHost, sr));
    CK(cudaStreamSynchronize(sr));
    const unsigned char *p = (const unsigned char *)pinned;
    for (size_t i = 0; i < N * sizeof(float); i++)
        host_sum = (host_sum ^ p[i]) * 1099511628211ull;
}

/* One look at a pooled event the region just recorded (or an older one), chosen by the iteration. */
static void observe(int it)
{
    cudaEvent_t now = pool[it % pool_size], older = pool[(it + POOL - 3) % pool_size];
    float ms = 0;
    switch (it % 6) {
    case 0:
        CK(cudaEventSynchronize(now));
        host_read();
        break;
    case 1:
        while (cudaEventQuery(now) == cudaErrorNotReady)
            ;
        host_read();
        break;
    case 2:
        CK(cudaStreamWaitEvent(sc, now, 0));
        k_axpy_on(1.0f, x, d, N, sc);
        break;
    case 3:
        CK(cudaStreamSynchronize(sa));
        printf("query after sync: %s\n", cudaGetErrorName(cudaEventQuery(now)));
        break;
    case 4:
        CK(cudaEventSynchronize(older));
        printf("older event: %s\n", cudaGetErrorName(cudaEventQuery(older)));
        break;
    default: {
        CK(cudaEventSynchronize(pool[(it + 4) % pool_size]));
        cudaError_t e = cudaEventElapsedTime(&ms, now, pool[(it + 4) % pool_size]);
        printf("elapsed: %s%s\n", cudaGetErrorName(e), e == cudaSuccess && ms >= 0 ? ", not negative" : "");
        (void)cudaGetLastError();
        break;
    }
    }
}

/* Runs the loop; prints every buffer's hash and the host reads' sum. */
int main(int argc, char **argv)
{
    const char *timing = argc > 1 ? argv[1] : "untimed";
    int iters = argc > 2 ? atoi(argv[2]) : 60;
    const char *between = argc > 3 ? argv[3] : "quiet";
    int looks = strcmp(between, "observe") == 0, free_loop = strcmp(between, "free") == 0;
    int renew = strcmp(between, "renew") == 0;
    arg_period = renew ? 4 : 0;
    pool_size = strcmp(timing, "one") == 0 ? 1 : POOL;
    scenario_begin("event_pool");
    printf("%s pool, %d iterations, %s\n", timing, iters, between);
    cudaStream_t *streams[] = {&sa, &sb, &sc, &sr};
    for (size_t i = 0; i < sizeof streams / sizeof *streams; i++)
        CK(cudaStreamCreateWithFlags(streams[i], cudaStreamNonBlocking));
    make_pool(timing);
    CK(cudaEventCreateWithFlags(&idle, cudaEventDisableTiming));
    CK(cudaMallocHost((void **)&pinned, N * sizeof(float)));
    float **buffers[] = {&x, &y, &z, &acc, &d};
    for (size_t i = 0; i < sizeof buffers / sizeof *buffers; i++) {
        *buffers[i] = dev_floats(N);
        k_fill_on(*buffers[i], 0.25f * (float)(i + 1), N, cudaStreamLegacy);
    }
    CK(cudaDeviceSynchronize());
    for (int it = 0; it < iters; it++) {
        region(it);
        if (free_loop)
            continue;
        boundary();
        if (looks)
            observe(it);
        CK(cudaDeviceSynchronize()); /* the next region overwrites what the observation read */
        if (renew && it % 5 == 4) {
            for (int k = 0; k < POOL; k++)
                if (cuEventDestroy((CUevent)pool[k]) != CUDA_SUCCESS)
                    printf("cuEventDestroy failed\n");
            make_pool(timing);
        }
    }
    CK(cudaDeviceSynchronize());
    show("acc", acc, N);
    show("d", d, N);
    printf("host reads %016llx\n", (unsigned long long)host_sum);
    return scenario_end();
}
