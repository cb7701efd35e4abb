/*
 * tests/standin/loads_driver.c: the runtime stand-in loads the driver
 * stand-in, as CUDA's libcudart loads libcuda.so.1: every process that
 * uses the runtime has the driver too, which the shim's back end calls
 * (graphs, events, stream and pointer facts).  Only in
 * libcudart_standin.la: the static-runtime variant is a libcuda itself.
 */
#include <dlfcn.h>
#include <stdio.h>

/* Loads the driver stand-in (STANDIN_DRIVER_PATH, set by the build) once, at load time. */
__attribute__((constructor)) static void load_driver(void)
{
    if (dlopen(STANDIN_DRIVER_PATH, RTLD_NOW | RTLD_GLOBAL) == NULL)
        fprintf(stderr, "libcudart_standin: cannot load the driver stand-in %s: %s\n", STANDIN_DRIVER_PATH,
                dlerror());
}
