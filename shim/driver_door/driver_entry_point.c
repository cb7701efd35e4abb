/* SPDX-License-Identifier: MIT */
/* cudaGetDriverEntryPoint(ByVersion), hooked: a driver function the runtime hands a library is the shim's wrapper. */
#define _GNU_SOURCE
#include "config.h"

#include <stdatomic.h>

#include <cuda_runtime_api.h>

#include "driver.h"
#include "real.h"
#include "settings.h"

/* The plain names, to define them and their _ptsz twins side by side. */
#undef cudaGetDriverEntryPoint
#undef cudaGetDriverEntryPointByVersion

cudaError_t cudaGetDriverEntryPoint_ptsz(const char *symbol, void **funcPtr, unsigned long long flags,
                                         enum cudaDriverEntryPointQueryResult *driverStatus);
cudaError_t cudaGetDriverEntryPointByVersion_ptsz(const char *symbol, void **funcPtr, unsigned int cudaVersion,
                                                  unsigned long long flags,
                                                  enum cudaDriverEntryPointQueryResult *driverStatus);

typedef cudaError_t (*entry_point_fn)(const char *, void **, unsigned long long,
                                      enum cudaDriverEntryPointQueryResult *);
typedef cudaError_t (*entry_point_by_version_fn)(const char *, void **, unsigned int, unsigned long long,
                                                 enum cudaDriverEntryPointQueryResult *);

enum { ENTRY_POINT, ENTRY_POINT_PTSZ, BY_VERSION, BY_VERSION_PTSZ, ENTRY_COUNT };
static const char *const entry_names[ENTRY_COUNT] = {
    "cudaGetDriverEntryPoint", "cudaGetDriverEntryPoint_ptsz", "cudaGetDriverEntryPointByVersion",
    "cudaGetDriverEntryPointByVersion_ptsz"};
static void *_Atomic entry_reals[ENTRY_COUNT];

/* The runtime's function, found as the hooked ones are; NULL if it has none. */
static void *entry_real(int which)
{
    return real_lookup_cached(&entry_reals[which], entry_names[which]);
}

/* Swaps what the runtime found for the shim's wrapper, when it is one of libcuda's wrapped functions. */
static cudaError_t translated(cudaError_t result, const char *symbol, void **funcPtr)
{
    if (result == cudaSuccess && funcPtr != NULL && symbol != NULL)
        *funcPtr = driver_substitute(symbol, *funcPtr, "cudaGetDriverEntryPoint");
    return result;
}

/* cudaGetDriverEntryPoint. */
cudaError_t cudaGetDriverEntryPoint(const char *symbol, void **funcPtr, unsigned long long flags,
                                    enum cudaDriverEntryPointQueryResult *driverStatus)
{
    shim_enter();
    entry_point_fn real = (entry_point_fn)entry_real(ENTRY_POINT);
    if (real == NULL)
        return cudaErrorSharedObjectSymbolNotFound;
    return translated(real(symbol, funcPtr, flags, driverStatus), symbol, funcPtr);
}

/* cudaGetDriverEntryPoint, per-thread default stream flavour. */
cudaError_t cudaGetDriverEntryPoint_ptsz(const char *symbol, void **funcPtr, unsigned long long flags,
                                         enum cudaDriverEntryPointQueryResult *driverStatus)
{
    shim_enter();
    entry_point_fn real = (entry_point_fn)entry_real(ENTRY_POINT_PTSZ);
    if (real == NULL)
        return cudaErrorSharedObjectSymbolNotFound;
    return translated(real(symbol, funcPtr, flags, driverStatus), symbol, funcPtr);
}

/* cudaGetDriverEntryPointByVersion. */
cudaError_t cudaGetDriverEntryPointByVersion(const char *symbol, void **funcPtr, unsigned int cudaVersion,
                                             unsigned long long flags,
                                             enum cudaDriverEntryPointQueryResult *driverStatus)
{
    shim_enter();
    entry_point_by_version_fn real = (entry_point_by_version_fn)entry_real(BY_VERSION);
    if (real == NULL)
        return cudaErrorSharedObjectSymbolNotFound;
    return translated(real(symbol, funcPtr, cudaVersion, flags, driverStatus), symbol, funcPtr);
}

/* cudaGetDriverEntryPointByVersion, per-thread default stream flavour. */
cudaError_t cudaGetDriverEntryPointByVersion_ptsz(const char *symbol, void **funcPtr, unsigned int cudaVersion,
                                                  unsigned long long flags,
                                                  enum cudaDriverEntryPointQueryResult *driverStatus)
{
    shim_enter();
    entry_point_by_version_fn real = (entry_point_by_version_fn)entry_real(BY_VERSION_PTSZ);
    if (real == NULL)
        return cudaErrorSharedObjectSymbolNotFound;
    return translated(real(symbol, funcPtr, cudaVersion, flags, driverStatus), symbol, funcPtr);
}
