/* SPDX-License-Identifier: MIT */
/*
 * wide_param (Stand-in only: tests/standin/wide_param.sh reads the debug
 * log's description of patches): two k_big_arg launches an iteration, each
 * passing a 4000-byte table by value, as PyTorch passes structs that carry
 * data pointers and sizes.  Only bytes the kernels never read change: the
 * first table carries an address that rotates among three buffers (bytes
 * 3984-3991), the second a counter that grows by one an iteration (bytes
 * 3600-3607), so the replays patch both nodes and the debug log must tell
 * the moved address from the counter, naming the bytes.  40 iterations,
 * a stream sync each; prints the buffer's hash.
 */
#include <string.h>

#include "scenario.h"

#define N 256
#define ITERS 40
#define ADDRESS_WORD 996 /* bytes 3984-3991 of the table */
#define COUNTER_WORD 900 /* bytes 3600-3607 */

/* k_big_arg(y, t, N) on stream s. */
static void big_arg_on(float *y, const struct k_big_arg_table *t, cudaStream_t s)
{
    int n = N;
    void *a[] = {&y, (void *)t, &n};
    CK(cudaLaunchKernel((const void *)k_big_arg, grid_for(n), block256, a, 0, s));
}

/* ITERS iterations of the two launches, the address rotating and the counter growing. */
int main(void)
{
    scenario_begin("wide_param");
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    float *y = dev_floats(N), *buffers[3];
    for (int k = 0; k < 3; k++)
        buffers[k] = dev_floats(N);
    k_fill_on(y, 1.0f, N, s);
    static struct k_big_arg_table moved, counted;
    for (int w = 0; w < K_BIG_ARG_WORDS; w++)
        moved.w[w] = counted.w[w] = 0.25f + 0.001f * (float)(w % 97);
    CK(cudaStreamSynchronize(s));
    for (int it = 0; it < ITERS; it++) {
        float *address = buffers[it % 3];
        long long count = it;
        memcpy(&moved.w[ADDRESS_WORD], &address, sizeof address);
        memcpy(&counted.w[COUNTER_WORD], &count, sizeof count);
        big_arg_on(y, &moved, s);
        big_arg_on(y, &counted, s);
        CK(cudaStreamSynchronize(s));
    }
    show("y", y, N);
    return scenario_end();
}
