/* SPDX-License-Identifier: MIT */
/*
 * bad_launch: errors made on purpose, each one that the runtime reports
 * without damaging the context (no sticky errors such as an illegal
 * address), so the program goes on and checks afterwards that good work
 * still runs and gives the right result.
 *
 * For each error, prints one line:
 *     error CASE returned=CODE peek=CODE get=CODE after=CODE
 * returned: what the call itself returned ("-" for <<<>>>, which returns
 * nothing); peek and get: cudaPeekAtLastError then cudaGetLastError; after:
 * cudaGetLastError again, which must be cudaSuccess (the error was cleared).
 * The program fails (exit 1) if an invalid launch configuration or the
 * failed cudaMalloc is not reported with its code (returned and get), if a
 * call returns cudaSuccess where an error was expected, or if an error is
 * not cleared; other codes are printed, not judged: the shim's test compares
 * them with a run without the shim.
 */
#include "common.h"

#define BL_N 1024
#define BL_THREADS 256

static int failures;
static long launches, launch_calls[2]; /* [0] __cudaLaunchKernel, [1] cudaLaunchKernel */
static long ex_calls;

/* Prints a case's line and checks the error was reported and then cleared. */
static void report(const char *name, const char *returned, cudaError_t expected)
{
    cudaError_t peek = cudaPeekAtLastError();
    cudaError_t get = cudaGetLastError();
    cudaError_t after = cudaGetLastError();
    printf("error %s returned=%s peek=%s get=%s after=%s\n", name, returned, cudaGetErrorName(peek),
           cudaGetErrorName(get), cudaGetErrorName(after));
    if (after != cudaSuccess || (expected != cudaSuccess && get != expected)) {
        fprintf(stderr, "case %s: unexpected codes (expected %s)\n", name,
                expected != cudaSuccess ? cudaGetErrorName(expected) : "an error");
        failures++;
    }
}

/* A case whose call returns a code: it must not be cudaSuccess. */
static void report_call(const char *name, cudaError_t returned, cudaError_t expected)
{
    if (returned == cudaSuccess || (expected != cudaSuccess && returned != expected)) {
        fprintf(stderr, "case %s: %s returned\n", name, cudaGetErrorName(returned));
        failures++;
    }
    report(name, cudaGetErrorName(returned), expected);
}

int main(void)
{
    require_gpu();
    const int n = BL_N;
    const size_t bytes = sizeof(uint32_t) * n;
    uint32_t *h = (uint32_t *)malloc(bytes), *want = (uint32_t *)malloc(bytes);
    if (!h || !want)
        return 1;
    for (int i = 0; i < n; i++)
        h[i] = want[i] = (uint32_t)i * 97u;
    uint32_t *d;
    CHECK(cudaMalloc(&d, bytes));
    CHECK(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice));
    int count = n;
    uint32_t salt = 5;
    void *args[] = {&d, &salt, &count};

    /* 1. <<<>>> with 2048 threads per block (the limit is 1024). */
    k_mix<<<1, 2048>>>(d, salt, n);
    launches++, launch_calls[0]++;
    report("launch_2048_threads", "-", cudaErrorInvalidValue);

    /* 2. <<<>>> with gridDim.y above 65535. */
    k_mix<<<dim3(1, 70000), 32>>>(d, salt, n);
    launches++, launch_calls[0]++;
    report("launch_grid_y_70000", "-", cudaErrorInvalidValue);

    /* 3. cudaLaunchKernel with 2048 threads per block. */
    cudaError_t err = cudaLaunchKernel((const void *)k_mix, dim3(1), dim3(2048), args, 0, 0);
    launches++, launch_calls[1]++;
    report_call("cudaLaunchKernel_2048_threads", err, cudaErrorInvalidValue);

    /* 4. cudaLaunchKernelExC with 2048 threads per block. */
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(1);
    config.blockDim = dim3(2048);
    config.stream = 0;
    err = cudaLaunchKernelExC(&config, (const void *)k_mix, args);
    launches++, ex_calls++;
    report_call("cudaLaunchKernelExC_2048_threads", err, cudaErrorInvalidValue);

    /* 5. cudaLaunchKernel asking for 1 GiB of dynamic shared memory. */
    err = cudaLaunchKernel((const void *)k_mix, dim3(1), dim3(32), args, (size_t)1 << 30, 0);
    launches++, launch_calls[1]++;
    report_call("cudaLaunchKernel_1GiB_shared", err, cudaSuccess);

    /* 6. cudaMemcpy with a direction that does not exist. */
    err = cudaMemcpy(d, h, bytes, (cudaMemcpyKind)42);
    report_call("cudaMemcpy_bad_kind", err, cudaSuccess);

    /* 7. cudaMemcpy to a null device pointer. */
    err = cudaMemcpy(NULL, h, bytes, cudaMemcpyHostToDevice);
    report_call("cudaMemcpy_null_dst", err, cudaSuccess);

    /* 8. cudaMemcpyAsync with a direction that does not exist. */
    err = cudaMemcpyAsync(d, h, bytes, (cudaMemcpyKind)42, 0);
    report_call("cudaMemcpyAsync_bad_kind", err, cudaSuccess);

    /* 9. cudaMalloc of far more than the device has (1 PiB). */
    void *huge = NULL;
    err = cudaMalloc(&huge, (size_t)1 << 50);
    report_call("cudaMalloc_1PiB", err, cudaErrorMemoryAllocation);

    /* 10. An event that was never recorded counts as complete: not an error. */
    cudaEvent_t unrecorded;
    CHECK(cudaEventCreate(&unrecorded));
    printf("query unrecorded_event %s\n", cudaGetErrorName(cudaEventQuery(unrecorded)));
    CHECK(cudaEventSynchronize(unrecorded));
    CHECK(cudaEventDestroy(unrecorded));
    printf("error none after=%s\n", cudaGetErrorName(cudaGetLastError()));

    /* Good work still runs: ten launches, then the result against the CPU. */
    for (int k = 0; k < 10; k++) {
        k_mix<<<(n + BL_THREADS - 1) / BL_THREADS, BL_THREADS>>>(d, (uint32_t)k, n);
        launches++, launch_calls[0]++;
        CHECK_LAUNCH();
        for (int i = 0; i < n; i++)
            want[i] = op_mix(want[i], (uint32_t)k, (uint32_t)i);
    }
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaGetLastError());
    print_checksum("d", h, bytes);
    verify_u32("d", h, want, n);
    printf("api __cudaLaunchKernel %ld\n", launch_calls[0]);
    printf("api cudaLaunchKernel %ld\n", launch_calls[1]);
    printf("api cudaLaunchKernelExC %ld\n", ex_calls);
    printf("launches %ld\n", launches);
    printf("unexpected %d\n", failures);

    CHECK(cudaFree(d));
    free(h), free(want);
    return failures ? 1 : 0;
}
