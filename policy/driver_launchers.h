/* The CUDA libraries known to launch through the driver API (cuGetProcAddress), where the shim cannot see them. */
#ifndef REPRISE_DRIVER_LAUNCHERS_H
#define REPRISE_DRIVER_LAUNCHERS_H

/* File-name prefixes, for a `static const char *const x[] = {DRIVER_LAUNCHERS};`
   in the shim (shim/hidden_work.c) and in `reprise check` alike. */
#define DRIVER_LAUNCHERS                                                                                    \
    "libcublas", "libcublasLt", "libcudnn", "libcufft", "libcurand", "libcusparse", "libcusolver", "libnccl", \
        "libnvshmem", "libcutensor", "libnvjpeg", "libnpp", "libcufile", "libnvrtc"

#endif
