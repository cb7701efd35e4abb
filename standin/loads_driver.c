/* SPDX-License-Identifier: MIT */
/*
 * standin/loads_driver.c: the runtime stand-in loads the driver
 * stand-in, as CUDA's libcudart loads libcuda.so.1: every process that
 * uses the runtime has the driver too, which the shim's back end calls
 * (graphs, events, stream and pointer facts).  Only in
 * libcudart_standin.la: the static-runtime variant is a libcuda itself.
 *
 * The driver stand-in depends on this library (a real libcuda does not):
 * loaded into the global scope, it would take a runtime that a program
 * loaded privately (dlopen with RTLD_LOCAL, tests/scenarios/private_runtime)
 * into the global scope with it.  So a runtime loaded privately loads its
 * driver privately too; the shim finds it by its soname either way.
 */
#include <dlfcn.h>
#include <stdio.h>

/* Loads the driver stand-in (STANDIN_DRIVER_PATH, set by the build) once, at load time. */
__attribute__((constructor)) static void load_driver(void)
{
    /* The global scope (dlopen(NULL)'s: RTLD_DEFAULT would search this library's own too) lacks this name, which
       only the stand-in's runtime exports, when the runtime was loaded privately. */
    void *global = dlopen(NULL, RTLD_LAZY);
    int scope = global && dlsym(global, "standin_register_kernel") ? RTLD_GLOBAL : RTLD_LOCAL;
    if (dlopen(STANDIN_DRIVER_PATH, RTLD_NOW | scope) == NULL)
        fprintf(stderr, "libcudart_standin: cannot load the driver stand-in %s: %s\n", STANDIN_DRIVER_PATH,
                dlerror());
}
