/* SPDX-License-Identifier: MIT */
/* The CUDA libraries known to launch through the driver API (cuGetProcAddress); the shim sees them through its wrappers. */
#ifndef REPRISE_CUDA_LIBRARIES_H
#define REPRISE_CUDA_LIBRARIES_H

/* File-name prefixes, for a `static const char *const x[] = {CUDA_LIBRARIES};`
   in `reprise check`, which names them (the shim no longer needs the list). */
#define CUDA_LIBRARIES                                                                                    \
    "libcublas", "libcublasLt", "libcudnn", "libcufft", "libcurand", "libcusparse", "libcusolver", "libnccl", \
        "libnvshmem", "libcutensor", "libnvjpeg", "libnpp", "libcufile", "libnvrtc"

/*
 * Communication libraries: their kernels wait for each other through host
 * memory and proxy threads, and their work descriptors change every call,
 * so a graph replaying recorded launches would run stale work.  Their
 * driver calls are never held back (shim/driver_door/caller.c tells them by the
 * calling object).
 */
#define COMMUNICATION_LIBRARIES "libnccl", "librccl", "libnvshmem", "libmscclpp", "libuccl"

#endif
