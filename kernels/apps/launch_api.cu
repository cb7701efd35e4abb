/* SPDX-License-Identifier: MIT */
/*
 * launch_api: the work of launch_loop (same kernels, same arguments, same
 * order, so the same checksums), launched through the runtime's launch
 * functions instead of <<<>>>: mostly cudaLaunchKernel, every fifth launch
 * cudaLaunchKernelExC, and the first launch of every 20th iteration
 * cudaLaunchCooperativeKernel (when the device supports cooperative launch),
 * all on the legacy default stream.
 *
 * Prints the checksums, whether they match the CPU reference, "api NAME N"
 * for each launch function used and "launches N" for the total.
 */
#include "common.h"

enum api { API_LAUNCH, API_EX, API_COOP, API_COUNT };
static const char *const api_names[API_COUNT] = {"cudaLaunchKernel", "cudaLaunchKernelExC",
                                                 "cudaLaunchCooperativeKernel"};

int main(void)
{
    require_gpu();
    const int n = LOOP_N;
    const size_t bytes = sizeof(uint32_t) * n;
    const dim3 grid((n + LOOP_THREADS - 1) / LOOP_THREADS), block(LOOP_THREADS);
    uint32_t *h_a = (uint32_t *)malloc(bytes), *h_b = (uint32_t *)malloc(bytes);
    uint32_t *r_a = (uint32_t *)malloc(bytes), *r_b = (uint32_t *)malloc(bytes);
    if (!h_a || !h_b || !r_a || !r_b)
        return 1;
    loop_init(h_a, h_b, n);
    loop_init(r_a, r_b, n);
    int coop = 0;
    CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, 0));

    uint32_t *d_a, *d_b;
    CHECK(cudaMalloc(&d_a, bytes));
    CHECK(cudaMalloc(&d_b, bytes));
    CHECK(cudaMemcpy(d_a, h_a, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_b, h_b, bytes, cudaMemcpyHostToDevice));

    long used[API_COUNT] = {0};
    long launches = 0;
    for (int it = 0; it < LOOP_ITERS; it++) {
        for (int j = 0; j < LOOP_KERNELS; j++) {
            uint32_t salt = loop_salt(it, j);
            int count = n;
            void *mix_args[] = {&d_a, &salt, &count};
            void *xor_args[] = {&d_a, &d_b, &count};
            void *nb_args[] = {&d_b, &d_a, &count};
            const void *func;
            void **args;
            switch (loop_kind(j)) {
            case 0: func = (const void *)k_mix, args = mix_args; break;
            case 1: func = (const void *)k_xorshift_add, args = xor_args; break;
            default: func = (const void *)k_neighbour, args = nb_args; break;
            }
            enum api api = API_LAUNCH;
            if (j % 5 == 4)
                api = API_EX;
            else if (coop && j == 0 && it % 20 == 0)
                api = API_COOP;
            switch (api) {
            case API_LAUNCH:
                CHECK(cudaLaunchKernel(func, grid, block, args, 0, 0));
                break;
            case API_EX: {
                cudaLaunchConfig_t config = {};
                config.gridDim = grid;
                config.blockDim = block;
                config.dynamicSmemBytes = 0;
                config.stream = 0;
                config.attrs = NULL;
                config.numAttrs = 0;
                CHECK(cudaLaunchKernelExC(&config, func, args));
                break;
            }
            default:
                CHECK(cudaLaunchCooperativeKernel(func, grid, block, args, 0, 0));
                break;
            }
            used[api]++;
            launches++;
        }
        CHECK(cudaStreamSynchronize(0));
    }

    loop_finish(d_a, d_b, h_a, h_b, r_a, r_b, n);
    for (int a = 0; a < API_COUNT; a++)
        if (used[a])
            printf("api %s%s %ld\n", api_names[a], PTSZ, used[a]);
    printf("launches %ld\n", launches);

    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    free(h_a), free(h_b), free(r_a), free(r_b);
    return 0;
}
