/* SPDX-License-Identifier: MIT */
/*
 * unhooked_copy: a runtime function the shim does not hook between
 * launches on one stream.  cudaMemcpyBatchAsync copies y into z after the
 * launches that write y and before the one that reads z; the runtime makes
 * it through the driver (cuMemcpyBatchAsync_v2), which no hooked runtime
 * call announced.  Held back past it, the launches would run after the
 * copy: z would hold last iteration's y.  Every eighth iteration the copy
 * comes after the first launch instead, where a replay holds only the
 * first call of its region: that call is submitted on its own, from inside
 * the runtime's cudaMemcpyBatchAsync (on the GPU, a runtime that did not
 * allow that would hang here: the suite's time limit would say so).
 *
 * `unhooked_copy capture` runs another loop: a region on the legacy stream
 * records a program event (a fast-path graph owes that record after each
 * launch), and every fifth iteration, after its sync, the program captures
 * the batch copy and a scale on a blocking stream, in global mode.  The
 * copy is a boundary inside the program's capture: a record the shim made
 * there, on the legacy stream, would invalidate the capture
 * (cudaErrorStreamCaptureImplicit), so what is owed must be made before
 * the capture begins (see capture_after_replays).
 */
#include <stdbool.h>

#include "scenario.h"

#define N 4096

/* Copies n floats from src to dst on s with cudaMemcpyBatchAsync (one copy, stream order). */
static void batch_copy(float *dst, const float *src, size_t n, cudaStream_t s)
{
    void *dsts[1] = {dst};
    const void *srcs[1] = {src};
    size_t sizes[1] = {n * sizeof(float)}, attrs_at[1] = {0};
    struct cudaMemcpyAttributes attrs;
    memset(&attrs, 0, sizeof attrs);
    attrs.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    CK(cudaMemcpyBatchAsync(dsts, srcs, sizes, 1, &attrs, attrs_at, 1, s));
}

/*
 * 30 iterations of a region on the legacy stream that records ev, every
 * fifth followed by the program's capture.  CUDA refuses the batch copy in
 * a capture (cudaErrorStreamCaptureUnsupported, and the capture goes on;
 * the H200's output is tests/standin/expected/unhooked_copy.capture.out),
 * but the shim sees it first, as a boundary.
 */
static int capture_after_replays(void)
{
    scenario_begin("unhooked_copy capture");
    cudaStream_t s;
    CK(cudaStreamCreate(&s)); /* blocking: the legacy stream's work would join it */
    cudaEvent_t ev;
    CK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
    float *x = dev_floats(N), *y = dev_floats(N), *z = dev_floats(N);
    k_fill_on(x, 1.0f, N, NULL);
    k_fill_on(y, 0.0f, N, NULL);
    k_fill_on(z, 0.0f, N, NULL);
    for (int it = 0; it < 30; it++) {
        k_axpy_on(0.5f, x, y, N, NULL);
        CK(cudaEventRecord(ev, NULL)); /* observed by nothing: the graph owes it */
        k_add_step_on(x, 0.125f, it, N, NULL);
        k_scale_on(y, 0.5f, N, NULL);
        CK(cudaStreamSynchronize(NULL));
        if (it % 5 != 4)
            continue;
        cudaGraph_t g = NULL;
        cudaGraphExec_t exec = NULL;
        CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
        batch_copy(z, y, N, s);
        k_scale_on(z, 0.75f, N, s);
        CK(cudaStreamEndCapture(s, &g));
        if (g == NULL)
            continue;
        CK(cudaGraphInstantiate(&exec, g, 0));
        CK(cudaGraphLaunch(exec, s));
        CK(cudaStreamSynchronize(s));
        CK(cudaGraphExecDestroy(exec));
        CK(cudaGraphDestroy(g));
    }
    show("x", x, N);
    show("y", y, N);
    show("z", z, N);
    return scenario_end();
}

/*
 * 30 iterations on a non-blocking stream of two pairs of launches with a
 * batch copy between them that CUDA refuses (no copies: cudaErrorInvalidValue),
 * after cudaSetDevice(99) (cudaErrorInvalidDevice); after each iteration's
 * sync cudaGetLastError must name the latest error, the copy's.  Under
 * REPRISE_REPLAY=robust each pair is re-captured call by call, the shim
 * taking the program's pending error out of the runtime first: it owed the
 * program the first error and had kept it over the copy's, taken out at the
 * second pair.  Stand-in only (no GPU output recorded).
 */
static int latest_error(void)
{
    scenario_begin("unhooked_copy errors");
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float *x = dev_floats(N), *y = dev_floats(N);
    k_fill_on(x, 1.0f, N, s);
    k_fill_on(y, 0.0f, N, s);
    CK(cudaStreamSynchronize(s));
    for (int it = 0; it < 30; it++) {
        cudaError_t first = cudaSetDevice(99);
        k_axpy_on(0.5f, x, y, N, s);
        k_add_step_on(x, 0.125f, it, N, s);
        struct cudaMemcpyAttributes attrs;
        memset(&attrs, 0, sizeof attrs);
        size_t attrs_at[1] = {0};
        cudaError_t refused = cudaMemcpyBatchAsync(NULL, NULL, NULL, 0, &attrs, attrs_at, 1, s);
        k_scale_on(y, 0.5f, N, s);
        k_axpy_on(0.25f, x, y, N, s);
        CK(cudaStreamSynchronize(s));
        printf("iteration %d: %s, then %s; cudaGetLastError %s\n", it, cudaGetErrorName(first),
               cudaGetErrorName(refused), cudaGetErrorName(cudaGetLastError()));
    }
    show("x", x, N);
    show("y", y, N);
    return scenario_end();
}

/* Runs 50 iterations of axpy, a step counter and axpy into y, the batch copy of y into z, and two scales of z
   (the copy after the first axpy every eighth iteration); with `capture`, capture_after_replays; with `errors`, latest_error. */
int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "capture") == 0)
        return capture_after_replays();
    if (argc > 1 && strcmp(argv[1], "errors") == 0)
        return latest_error();
    scenario_begin("unhooked_copy");
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float *x = dev_floats(N), *y = dev_floats(N), *z = dev_floats(N);
    k_fill_on(x, 1.0f, N, s);
    k_fill_on(y, 0.0f, N, s);
    k_fill_on(z, 0.0f, N, s);
    for (int it = 0; it < 50; it++) {
        bool early = it % 8 == 7;
        k_axpy_on(0.5f, x, y, N, s);
        if (early)
            batch_copy(z, y, N, s);
        k_add_step_on(x, 0.125f, it, N, s);
        k_axpy_on(0.25f, x, y, N, s);
        if (!early)
            batch_copy(z, y, N, s);
        k_scale_on(z, 0.875f, N, s);
        k_scale_on(z, 1.125f, N, s);
        CK(cudaStreamSynchronize(s));
    }
    show("x", x, N);
    show("y", y, N);
    show("z", z, N);
    return scenario_end();
}
