/* SPDX-License-Identifier: MIT */
/* A program with no CUDA runtime at all: the shim's wrappers must return an error, log once, and never call NULL. */
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>

#include <cuda_runtime_api.h>

typedef cudaError_t (*no_arg_fn)(void);

int main(void)
{
    no_arg_fn sync = (no_arg_fn)dlsym(RTLD_DEFAULT, "cudaDeviceSynchronize");
    no_arg_fn last = (no_arg_fn)dlsym(RTLD_DEFAULT, "cudaGetLastError");
    if (sync == NULL || last == NULL) {
        fprintf(stderr, "the shim is not preloaded\n");
        return 1;
    }
    int first = sync(), second = sync(), third = last();
    printf("cudaDeviceSynchronize %d %d cudaGetLastError %d\n", first, second, third);
    return first == cudaErrorSharedObjectSymbolNotFound && second == first && third == first ? 0 : 1;
}
