/* SPDX-License-Identifier: MIT */
/*
 * tests/standin/fakeblas.h: a fake math library that launches its own
 * kernel through the driver API, the way cuBLAS does: dlopen("libcuda.so.1"),
 * dlsym(h, "cuGetProcAddress_v2"), cuGetProcAddress("cuLaunchKernel").
 *
 * Environment (for tests): FAKEBLAS_CUDA_VERSION, the cudaVersion it asks
 * cuGetProcAddress for (default 13000); FAKEBLAS_UNSEEN=1 asks the driver
 * stand-in's private entry point instead of cuGetProcAddress_v2, a route
 * the shim cannot see; FAKEBLAS_ROUTE=runtime asks the runtime's
 * cudaGetDriverEntryPointByVersion instead (the stand-in runtime answers it
 * through that private route: only the shim's hook of it can wrap it).
 * Built with FAKEBLAS_DRIVER_ONLY (libfakeblas_static, for the driver-only
 * scenarios linked against the static-runtime driver), it has no runtime
 * route.
 */
#ifndef FAKEBLAS_H
#define FAKEBLAS_H

#include <cuda_runtime_api.h>

/* y[i] = 0.5 * y[i] + x[i] on stream, through the driver; 0 on success, else the CUresult. */
int fakeblas_blend(cudaStream_t stream, const float *x, float *y, int n);

/*
 * A GEMM-like call as cuBLASLt makes it on Hopper: two kernels launched
 * through cuLaunchKernelEx (found with cuGetProcAddress), each a
 * programmatic dependent launch (CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_
 * SERIALIZATION = 1) that reads what the kernel before it on the stream
 * wrote: the "main loop" y[i] = 0.5 * y[i] + x[i], then the "epilogue"
 * y[i] = 0.5 * y[i] + y[i] * 0.25 (fakeblas_blend_kernel, then
 * fakeblas_epilogue_kernel).  0 on success, else the CUresult.
 */
int fakeblas_gemm_pdl(cudaStream_t stream, const float *x, float *y, int n);

#endif
