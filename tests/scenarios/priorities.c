/* SPDX-License-Identifier: MIT */
/*
 * priorities: kernels launched at several priorities, on two streams, in a
 * loop a shim replays as a graph.  Each of 30 iterations: on a stream
 * created with priority -3 (cudaStreamCreateWithPriority), a plain launch
 * (the stream's priority); the other stream (priority 0) joins it by an
 * event; there, cudaLaunchKernelExC with cudaLaunchAttributePriority -2,
 * cuLaunchKernelEx with CU_LAUNCH_ATTRIBUTE_PRIORITY -4 and a plain
 * launch (0); on the first stream, cudaLaunchKernelExC with a priority of
 * -1 (the attribute before the stream's), then, once it has joined the
 * second stream's work by an event, a plain launch (-3); a sync.
 *
 * Stand-in only (the driver launch names a twin as its CUfunction): run
 * with STANDIN_PRIORITY_LOG=1, the stand-in says for each kernel it runs
 * the priority it ran at, and tests/standin/priorities.sh checks that a
 * shim's graphs run every kernel at the priority it runs at without one.
 * The buffers' hashes are printed at the end.
 */
#include <string.h>

#include <cuda.h>

#include "scenario.h"

#define N 4096

/* Checks one driver call, counted like the runtime's. */
#define CKD(call) scenario_check((call) == 0 ? cudaSuccess : cudaErrorUnknown, #call, __LINE__)

/* cudaLaunchKernelExC of kernel k (arguments a) at priority on s. */
static void launch_at(const void *k, void **a, int n, int priority, cudaStream_t s)
{
    cudaLaunchAttribute attr;
    memset(&attr, 0, sizeof attr);
    attr.id = cudaLaunchAttributePriority;
    attr.val.priority = priority;
    cudaLaunchConfig_t config = {grid_for(n), block256, 0, s, &attr, 1};
    CK(cudaLaunchKernelExC(&config, k, a));
}

/* cuLaunchKernelEx of c = a + b at priority on s (the twin's address is its CUfunction on the stand-in). */
static void combine_at(const float *a, const float *b, float *c, int n, int priority, cudaStream_t s)
{
    CUlaunchAttribute attr;
    memset(&attr, 0, sizeof attr);
    attr.id = CU_LAUNCH_ATTRIBUTE_PRIORITY;
    attr.value.priority = priority;
    CUlaunchConfig config = {.gridDimX = grid_for(n).x, .gridDimY = 1, .gridDimZ = 1, .blockDimX = 256,
                             .blockDimY = 1, .blockDimZ = 1, .hStream = (CUstream)s, .attrs = &attr, .numAttrs = 1};
    void *args[] = {&a, &b, &c, &n};
    CKD(cuLaunchKernelEx(&config, (CUfunction)(void *)k_combine, args, NULL));
}

/* Runs 30 iterations on the two streams, synchronised; prints the buffers. */
int main(void)
{
    scenario_begin("priorities");
    cudaStream_t high, low;
    CK(cudaStreamCreateWithPriority(&high, cudaStreamNonBlocking, -3));
    CK(cudaStreamCreateWithFlags(&low, cudaStreamNonBlocking));
    cudaEvent_t forked, joined;
    CK(cudaEventCreateWithFlags(&forked, cudaEventDisableTiming));
    CK(cudaEventCreateWithFlags(&joined, cudaEventDisableTiming));
    float *x = dev_floats(N), *y = dev_floats(N), *z = dev_floats(N), *w = dev_floats(N);
    k_fill_on(w, 2.0f, N, high);
    k_fill_on(x, 1.0f, N, high);
    k_fill_on(y, 0.5f, N, high);
    k_fill_on(z, 0.0f, N, high);
    CK(cudaStreamSynchronize(high));
    for (int it = 0; it < 30; it++) {
        int n = N;
        float f = 0.875f, one = 1.0f;
        k_add_step_on(x, 0.125f, it, N, high);
        CK(cudaEventRecord(forked, high));
        CK(cudaStreamWaitEvent(low, forked, 0));
        void *scale[] = {&y, &f, &n};
        launch_at((const void *)k_scale, scale, N, -2, low);
        combine_at(x, y, z, N, -4, low);
        k_scale_on(z, 0.5f, N, low);
        CK(cudaEventRecord(joined, low));
        void *axpy[] = {&one, &x, &w, &n};
        launch_at((const void *)k_axpy, axpy, N, -1, high);
        CK(cudaStreamWaitEvent(high, joined, 0));
        k_axpy_on(0.25f, z, x, N, high);
        CK(cudaStreamSynchronize(high));
    }
    show("x", x, N);
    show("y", y, N);
    show("z", z, N);
    show("w", w, N);
    return scenario_end();
}
