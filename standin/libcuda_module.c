/* SPDX-License-Identifier: MIT */
/*
 * standin/libcuda_module.c: kernels, modules, libraries and pointers
 * in the driver stand-in.
 *
 * Modules and libraries are modules.c's (the runtime stand-in's side, where
 * launches and graphs turn a handle into its CPU twin): cuModuleLoad (any
 * path, not opened), cuModuleLoadData (any image, not read),
 * cuLibraryLoadData and cuLibraryLoadFromFile (likewise; options ignored)
 * give a fresh handle, in which cuModuleGetFunction and cuLibraryGetKernel
 * find a twin by the name it was registered with ("k_axpy";
 * CUDA_ERROR_NOT_FOUND for another) and hand out a handle of the module's
 * own; cuKernelGetFunction gives a library kernel's function,
 * cuFuncGetModule and cuKernelGetLibrary where a handle came from,
 * cuLibraryGetModule the library itself. cuModuleUnload and cuLibraryUnload
 * kill what the module or library handed out (CUDA_ERROR_INVALID_HANDLE from
 * then on; a graph holding one aborts when launched). The runtime's kernels
 * are their twin's address (cudaKernel_t and cudaFunction_t too), and
 * cuKernelGetFunction of one gives the same address. cuFuncGetParamInfo and
 * cuKernelGetParamInfo give the layout of cudaFuncGetParamInfo
 * (CUDA_ERROR_INVALID_VALUE past the last parameter), cuFuncGetName the
 * twin's name.
 *
 * Pointers: CU_POINTER_ATTRIBUTE_MEMORY_TYPE is CU_MEMORYTYPE_DEVICE for
 * device memory (managed memory too: guessed), CU_MEMORYTYPE_HOST for
 * pinned memory, and CUDA_ERROR_INVALID_VALUE for pageable memory, as the
 * real driver; CU_POINTER_ATTRIBUTE_IS_MANAGED is 1 for managed memory, 0
 * for device and pinned memory, the same error for pageable memory.
 * cuPointerGetAttributes never fails for pageable memory: its attributes
 * read 0 (CUDA's documentation). Other attributes: CUDA_ERROR_INVALID_VALUE.
 */
#include "libcuda.h"

/* ------------------------------------------------------------ kernels */

CUresult CUDAAPI cuFuncGetParamInfo(CUfunction func, size_t paramIndex, size_t *paramOffset, size_t *paramSize)
{
    return cu_result(standin_driver_param_info((const void *)func, paramIndex, paramOffset, paramSize));
}

CUresult CUDAAPI cuKernelGetParamInfo(CUkernel kernel, size_t paramIndex, size_t *paramOffset, size_t *paramSize)
{
    return cu_result(standin_driver_param_info((const void *)kernel, paramIndex, paramOffset, paramSize));
}

CUresult CUDAAPI cuKernelGetFunction(CUfunction *pFunc, CUkernel kernel)
{
    return cu_result(standin_driver_kernel_function((void **)pFunc, (const void *)kernel));
}

CUresult CUDAAPI cuKernelGetLibrary(CUlibrary *pLib, CUkernel kernel)
{
    return cu_result(standin_driver_function_owner((void **)pLib, (const void *)kernel, true));
}

CUresult CUDAAPI cuFuncGetName(const char **name, CUfunction hfunc)
{
    return cu_result(standin_driver_func_name(name, (const void *)hfunc));
}

/* A kernel's limits, as an H200 gives them for a kernel without launch bounds; other attributes: not supported. */
CUresult CUDAAPI cuFuncGetAttribute(int *pi, CUfunction_attribute attrib, CUfunction hfunc)
{
    const char *name;
    if (pi == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult known = cu_result(standin_driver_func_name(&name, (const void *)hfunc));
    if (known != CUDA_SUCCESS)
        return known;
    switch (attrib) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *pi = 1024; return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *pi = 48 * 1024; return CUDA_SUCCESS;
    default: return CUDA_ERROR_NOT_SUPPORTED;
    }
}

CUresult CUDAAPI cuFuncGetModule(CUmodule *hmod, CUfunction hfunc)
{
    return cu_result(standin_driver_function_owner((void **)hmod, (const void *)hfunc, false));
}

/* ------------------------------------------------------------ modules */

CUresult CUDAAPI cuModuleLoad(CUmodule *module, const char *fname)
{
    if (fname == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    return cu_result(standin_driver_module_load((void **)module, false));
}

CUresult CUDAAPI cuModuleLoadData(CUmodule *module, const void *image)
{
    if (image == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    return cu_result(standin_driver_module_load((void **)module, false));
}

CUresult CUDAAPI cuModuleUnload(CUmodule hmod)
{
    return cu_result(standin_driver_module_unload((void *)hmod, false));
}

CUresult CUDAAPI cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name)
{
    return cu_result(standin_driver_module_function((void **)hfunc, (void *)hmod, name, false));
}

/* ------------------------------------------------------------ libraries */

/* A library from an image or a file (neither read); JIT and library options are accepted and ignored. */
static CUresult library_load(CUlibrary *library, const void *source, unsigned numJitOptions, void *jitOptions,
                             unsigned numLibraryOptions, void *libraryOptions)
{
    if (source == NULL || (numJitOptions > 0 && jitOptions == NULL) ||
        (numLibraryOptions > 0 && libraryOptions == NULL))
        return CUDA_ERROR_INVALID_VALUE;
    return cu_result(standin_driver_module_load((void **)library, true));
}

CUresult CUDAAPI cuLibraryLoadData(CUlibrary *library, const void *code, CUjit_option *jitOptions,
                                   void **jitOptionsValues, unsigned int numJitOptions,
                                   CUlibraryOption *libraryOptions, void **libraryOptionValues,
                                   unsigned int numLibraryOptions)
{
    (void)jitOptionsValues;
    (void)libraryOptionValues;
    return library_load(library, code, numJitOptions, jitOptions, numLibraryOptions, libraryOptions);
}

CUresult CUDAAPI cuLibraryLoadFromFile(CUlibrary *library, const char *fileName, CUjit_option *jitOptions,
                                       void **jitOptionsValues, unsigned int numJitOptions,
                                       CUlibraryOption *libraryOptions, void **libraryOptionValues,
                                       unsigned int numLibraryOptions)
{
    (void)jitOptionsValues;
    (void)libraryOptionValues;
    return library_load(library, fileName, numJitOptions, jitOptions, numLibraryOptions, libraryOptions);
}

CUresult CUDAAPI cuLibraryUnload(CUlibrary library)
{
    return cu_result(standin_driver_module_unload((void *)library, true));
}

CUresult CUDAAPI cuLibraryGetKernel(CUkernel *pKernel, CUlibrary library, const char *name)
{
    return cu_result(standin_driver_module_function((void **)pKernel, (void *)library, name, true));
}

CUresult CUDAAPI cuLibraryGetModule(CUmodule *pMod, CUlibrary library)
{
    return cu_result(standin_driver_library_module((void **)pMod, (void *)library));
}

/* ------------------------------------------------------------ pointers */

/* One attribute of ptr; pageable: unregistered (what the caller makes of it differs). */
static CUresult pointer_attribute(void *data, CUpointer_attribute attribute, CUdeviceptr ptr, bool *unregistered)
{
    enum cudaMemoryType t = cudaMemoryTypeUnregistered;
    if (data == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = cu_result(standin_driver_memory_type(dev_ptr(ptr), &t));
    if (r != CUDA_SUCCESS)
        return r;
    *unregistered = t == cudaMemoryTypeUnregistered;
    switch (attribute) {
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
        *(unsigned *)data = t == cudaMemoryTypeHost ? CU_MEMORYTYPE_HOST
                            : *unregistered         ? 0u
                                                    : CU_MEMORYTYPE_DEVICE;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED:
        /* "a boolean" (cuda.h): one byte written, so that a bool and a zeroed int both read right. */
        *(bool *)data = t == cudaMemoryTypeManaged;
        return CUDA_SUCCESS;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

CUresult CUDAAPI cuPointerGetAttribute(void *data, CUpointer_attribute attribute, CUdeviceptr ptr)
{
    bool unregistered = false;
    CUresult r = pointer_attribute(data, attribute, ptr, &unregistered);
    return r == CUDA_SUCCESS && unregistered ? CUDA_ERROR_INVALID_VALUE : r;
}

CUresult CUDAAPI cuPointerGetAttributes(unsigned int numAttributes, CUpointer_attribute *attributes, void **data,
                                        CUdeviceptr ptr)
{
    if (numAttributes > 0 && (attributes == NULL || data == NULL))
        return CUDA_ERROR_INVALID_VALUE;
    for (unsigned i = 0; i < numAttributes; i++) {
        bool unregistered = false;
        CUresult r = pointer_attribute(data[i], attributes[i], ptr, &unregistered);
        if (r != CUDA_SUCCESS)
            return r;
    }
    return CUDA_SUCCESS;
}
