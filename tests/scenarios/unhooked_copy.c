/*
 * unhooked_copy: a runtime function the shim does not hook between
 * launches on one stream.  cudaMemcpyBatchAsync copies y into z after the
 * launches that write y and before the one that reads z; the runtime makes
 * it through the driver (cuMemcpyBatchAsync_v2), which no hooked runtime
 * call announced.  Held back past it, the launches would run after the
 * copy: z would hold last iteration's y.
 */
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

/* Runs 50 iterations of axpy, a step counter and axpy into y, the batch copy of y into z, and two scales of z. */
int main(void)
{
    scenario_begin("unhooked_copy");
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float *x = dev_floats(N), *y = dev_floats(N), *z = dev_floats(N);
    k_fill_on(x, 1.0f, N, s);
    k_fill_on(y, 0.0f, N, s);
    k_fill_on(z, 0.0f, N, s);
    for (int it = 0; it < 50; it++) {
        k_axpy_on(0.5f, x, y, N, s);
        k_add_step_on(x, 0.125f, it, N, s);
        k_axpy_on(0.25f, x, y, N, s);
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
