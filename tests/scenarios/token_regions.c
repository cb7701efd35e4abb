/* SPDX-License-Identifier: MIT */
/*
 * token_regions: a decode loop whose every token is a sequence of its own
 * that recurs only in the next call of the loop, as Hugging Face
 * generate() with a dynamic cache runs: CALLS calls of TOKENS tokens, each
 * token LAUNCHES steps on the legacy stream, a copy of its result to the
 * host and a sync.  Whether a step of a token is a launch, or a memset and
 * a launch, depends on the token's number (a bit of it by the step's
 * position), so that no two tokens of one call are alike (nor can one's
 * graph take another's calls), while token t of every call is the same
 * sequence.
 * With more tokens than REPRISE_MAX_GRAPHS, a graph built for token t is
 * evicted before token t comes again: graphs cannot help, and the shim
 * must cost little (tests/waste.sh).  Recorded on the stand-in without the
 * shim (expected/token_regions.out).
 *
 *     token_regions [CALLS [TOKENS]]       (default 4 48)
 */
#include <stdlib.h>

#include "scenario.h"

#define N 256
#define LAUNCHES 40 /* steps a token */

/* CALLS calls of TOKENS tokens of LAUNCHES steps, a copy and a sync each. */
int main(int argc, char **argv)
{
    int calls = argc > 1 ? atoi(argv[1]) : 4, tokens = argc > 2 ? atoi(argv[2]) : 48;
    scenario_begin("token_regions");
    float *x = dev_floats(N), *y = dev_floats(N), *z = dev_floats(N);
    float *host = NULL;
    CK(cudaMallocHost((void **)&host, sizeof(float)));
    k_fill_on(x, 0.25f, N, 0);
    k_fill_on(y, 1.0f, N, 0);
    double sum = 0;
    for (int c = 0; c < calls; c++) {
        k_fill_on(y, 1.0f, N, 0);
        for (int t = 0; t < tokens; t++) {
            for (int i = 0; i < LAUNCHES; i++) {
                if ((t >> (i % 6)) & 1) {
                    k_scale_on(y, 0.999f, N, 0);
                } else {
                    CK(cudaMemsetAsync(z, t & 0x3f, N * sizeof(float), 0));
                    k_axpy_on(1e-20f, z, y, N, 0);
                }
                k_axpy_on(0.01f, x, y, N, 0);
            }
            CK(cudaMemcpyAsync(host, y, sizeof(float), cudaMemcpyDeviceToHost, 0));
            CK(cudaStreamSynchronize(0));
            sum += host[0];
        }
    }
    printf("sum %.9g\n", sum);
    show("y", y, N);
    CK(cudaFreeHost(host));
    return scenario_end();
}
