/* SPDX-License-Identifier: MIT */
/* Several threads call the runtime at once, each on its own stream; the shim's counts must be exact. */
#include "config.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "hooks.h"

#define THREADS 8
#define CALLS 20000

/* Launches and queries on a stream of this thread's own. */
static void *worker(void *arg)
{
    cudaStream_t stream = (cudaStream_t)(uintptr_t)(0x1000 + 0x100 * (uintptr_t)arg);
    dim3 one = {1, 1, 1};
    for (int i = 0; i < CALLS; i++) {
        cudaLaunchKernel((const void *)worker, one, one, NULL, 0, stream);
        if (i % 4 == 0)
            cudaStreamQuery(stream);
    }
    return NULL;
}

int main(void)
{
    pthread_t threads[THREADS];
    for (uintptr_t t = 0; t < THREADS; t++)
        pthread_create(&threads[t], NULL, worker, (void *)t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(threads[t], NULL);
    printf("threads %d calls %d\n", THREADS, CALLS);
    return 0;
}
