/* SPDX-License-Identifier: MIT */
/* The CUDA driver API header, made fit to define driver_hooks.def's exported names. */
#ifndef REPRISE_DRIVER_API_H
#define REPRISE_DRIVER_API_H

#include <cuda.h>

/* cuda.h renames these to their newest versions; the table also wraps the
   older exports under their own names, and the old cuGetProcAddress. */
#undef cuGetProcAddress
#undef cuMemcpyBatchAsync
#undef cuMemcpy3DBatchAsync
#undef cuMemPrefetchAsync
#undef cuStreamBeginCapture
#undef cuStreamWaitValue32
#undef cuStreamWaitValue64
#undef cuStreamWriteValue32
#undef cuStreamWriteValue64
#undef cuStreamBatchMemOp
#undef cuStreamDestroy
#undef cuEventDestroy
#undef cuCtxDestroy
#undef cuDevicePrimaryCtxReset
#undef cuDevicePrimaryCtxRelease
#undef cuStreamGetCaptureInfo

/* The stream a driver call acts on, as driver_hooks.def names it. */
#define DRIVER_STREAM_OR_LEGACY(s) ((s) ? (s) : CU_STREAM_LEGACY)
#define DRIVER_STREAM_OR_PER_THREAD(s) ((s) ? (s) : CU_STREAM_PER_THREAD)

/* The pre-CUDA 12 cuGetProcAddress, still exported by libcuda. */
CUresult CUDAAPI cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags);

#endif
