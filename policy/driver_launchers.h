/* The CUDA libraries known to launch through the driver API (cuGetProcAddress); the shim sees them through its wrappers. */
#ifndef REPRISE_DRIVER_LAUNCHERS_H
#define REPRISE_DRIVER_LAUNCHERS_H

/* File-name prefixes, for a `static const char *const x[] = {DRIVER_LAUNCHERS};`
   in `reprise check`, which names them (the shim no longer needs the list). */
#define DRIVER_LAUNCHERS                                                                                    \
    "libcublas", "libcublasLt", "libcudnn", "libcufft", "libcurand", "libcusparse", "libcusolver", "libnccl", \
        "libnvshmem", "libcutensor", "libnvjpeg", "libnpp", "libcufile", "libnvrtc"

#endif
