/*
 * tests/standin/libcuda_module.c: kernels, modules and pointers in the
 * driver stand-in.
 *
 * A CUfunction and a CUkernel are the address of a kernel's CPU twin (what
 * the runtime stand-in launches, cudaKernel_t and cudaFunction_t too):
 * cuKernelGetFunction gives the same address, cuFuncGetParamInfo and
 * cuKernelGetParamInfo the layout of cudaFuncGetParamInfo
 * (CUDA_ERROR_INVALID_VALUE past the last parameter), cuFuncGetName the
 * twin's name. A module is a dummy: cuModuleLoad (any path, not opened) and
 * cuModuleLoadData (any image, not read) give a fresh handle, and
 * cuModuleGetFunction finds a twin by the name it was registered with
 * ("k_axpy"; CUDA_ERROR_NOT_FOUND for another), so that a driver-only
 * program runs on the stand-in as it would with its cubin on a GPU.
 *
 * Pointers: CU_POINTER_ATTRIBUTE_MEMORY_TYPE is CU_MEMORYTYPE_DEVICE for
 * device memory (managed memory too: guessed), CU_MEMORYTYPE_HOST for
 * pinned memory, and CUDA_ERROR_INVALID_VALUE for pageable memory, as the
 * real driver; CU_POINTER_ATTRIBUTE_IS_MANAGED is 1 for managed memory, 0
 * for device and pinned memory, the same error for pageable memory.
 * cuPointerGetAttributes never fails for pageable memory: its attributes
 * read 0 (CUDA's documentation). Other attributes: CUDA_ERROR_INVALID_VALUE.
 */
#include <stdlib.h>
#include <string.h>

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
    const char *name = NULL;
    if (pFunc == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = cu_result(standin_driver_func_name(&name, (const void *)kernel));
    if (r == CUDA_SUCCESS)
        *pFunc = (CUfunction)(void *)kernel;
    return r;
}

CUresult CUDAAPI cuFuncGetName(const char **name, CUfunction hfunc)
{
    return cu_result(standin_driver_func_name(name, (const void *)hfunc));
}

/* ------------------------------------------------------------ modules */

/* A loaded module: nothing but a live handle. */
struct standin_module {
    unsigned magic;
};
#define MODULE_MAGIC 0x6d6f646bu

/* A fresh dummy module. */
static CUresult module_new(CUmodule *module)
{
    if (module == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    struct standin_module *m = malloc(sizeof *m);
    if (m == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    m->magic = MODULE_MAGIC;
    *module = (CUmodule)(void *)m;
    return CUDA_SUCCESS;
}

/* True for a handle module_new gave and cuModuleUnload did not take back. */
static bool module_ok(CUmodule module)
{
    return module != NULL && ((struct standin_module *)(void *)module)->magic == MODULE_MAGIC;
}

CUresult CUDAAPI cuModuleLoad(CUmodule *module, const char *fname)
{
    if (fname == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    return module_new(module);
}

CUresult CUDAAPI cuModuleLoadData(CUmodule *module, const void *image)
{
    if (image == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    return module_new(module);
}

CUresult CUDAAPI cuModuleUnload(CUmodule hmod)
{
    if (!module_ok(hmod))
        return CUDA_ERROR_INVALID_HANDLE;
    ((struct standin_module *)(void *)hmod)->magic = 0;
    free((void *)hmod);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name)
{
    const void *f = NULL;
    if (hfunc == NULL || name == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (!module_ok(hmod))
        return CUDA_ERROR_INVALID_HANDLE;
    CUresult r = cu_result(standin_driver_kernel_by_name(&f, name));
    if (r == CUDA_SUCCESS)
        *hfunc = (CUfunction)(void *)f;
    return r;
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
