/* SPDX-License-Identifier: MIT */
/*
 * kernels/cpu/cpu_kernel.h: helpers for writing CPU twins of the kernels.
 *
 *     void k_x(float *y, int n)
 *     {
 *         CPU_BLOCK_BEGIN;                 // gridDim, blockDim, blockIdx
 *         FOR_EACH_THREAD {                // threadIdx, x fastest
 *             ...body of the CUDA kernel...
 *         }
 *     }
 *     CPU_KERNEL_2(k_x, float *, int)      // registers k_x by address
 *
 * A kernel with __syncthreads() becomes one FOR_EACH_THREAD loop per phase.
 */
#ifndef CPU_KERNEL_H
#define CPU_KERNEL_H

#include "../kernels.h"
#include "../../standin/standin_kernel.h"

/* Declares gridDim, blockDim and blockIdx of the block being run. */
#define CPU_BLOCK_BEGIN                                                       \
    const struct standin_block *cpu_block_ = standin_block();                 \
    const dim3 gridDim = cpu_block_->gridDim;                                 \
    const dim3 blockDim = cpu_block_->blockDim;                               \
    const dim3 blockIdx = cpu_block_->blockIdx;                               \
    (void)gridDim; (void)blockDim; (void)blockIdx

/* Runs the following statement once per thread of the block, as threadIdx. */
#define FOR_EACH_THREAD                                                       \
    for (dim3 threadIdx = {0, 0, 0}; threadIdx.z < blockDim.z; threadIdx.z++) \
        for (threadIdx.y = 0; threadIdx.y < blockDim.y; threadIdx.y++)        \
            for (threadIdx.x = 0; threadIdx.x < blockDim.x; threadIdx.x++)

/* Opens the constructor that registers twin `name` with n parameters. */
#define CPU_KERNEL_BEGIN_(name, n)                                            \
    static void name##_run_block(void **args);                                \
    __attribute__((constructor)) static void name##_register(void)            \
    {                                                                         \
        struct standin_kernel k_ = {#name, (const void *)name,                \
                                    name##_run_block, n, {0}, {0}};           \
        unsigned i_ = 0;                                                      \
        (void)i_;
/* Records one parameter's size and alignment. */
#define CPU_PARAM_(T) k_.size[i_] = sizeof(T); k_.align[i_] = _Alignof(T); i_++;
/* Closes the constructor and defines the trampoline making `call`. */
#define CPU_KERNEL_END_(name, call)                                           \
        standin_register_kernel(&k_);                                         \
    }                                                                         \
    static void name##_run_block(void **args) { (void)args; call; }

#define CPU_ARG_(T, i) (*(T *)args[i])

#define CPU_KERNEL_0(name)                                                    \
    CPU_KERNEL_BEGIN_(name, 0)                                                \
    CPU_KERNEL_END_(name, name())
#define CPU_KERNEL_1(name, T0)                                                \
    CPU_KERNEL_BEGIN_(name, 1) CPU_PARAM_(T0)                                 \
    CPU_KERNEL_END_(name, name(CPU_ARG_(T0, 0)))
#define CPU_KERNEL_2(name, T0, T1)                                            \
    CPU_KERNEL_BEGIN_(name, 2) CPU_PARAM_(T0) CPU_PARAM_(T1)                  \
    CPU_KERNEL_END_(name, name(CPU_ARG_(T0, 0), CPU_ARG_(T1, 1)))
#define CPU_KERNEL_3(name, T0, T1, T2)                                        \
    CPU_KERNEL_BEGIN_(name, 3) CPU_PARAM_(T0) CPU_PARAM_(T1) CPU_PARAM_(T2)   \
    CPU_KERNEL_END_(name, name(CPU_ARG_(T0, 0), CPU_ARG_(T1, 1),              \
                               CPU_ARG_(T2, 2)))
#define CPU_KERNEL_4(name, T0, T1, T2, T3)                                    \
    CPU_KERNEL_BEGIN_(name, 4) CPU_PARAM_(T0) CPU_PARAM_(T1) CPU_PARAM_(T2)   \
    CPU_PARAM_(T3)                                                            \
    CPU_KERNEL_END_(name, name(CPU_ARG_(T0, 0), CPU_ARG_(T1, 1),              \
                               CPU_ARG_(T2, 2), CPU_ARG_(T3, 3)))
#define CPU_KERNEL_5(name, T0, T1, T2, T3, T4)                                \
    CPU_KERNEL_BEGIN_(name, 5) CPU_PARAM_(T0) CPU_PARAM_(T1) CPU_PARAM_(T2)   \
    CPU_PARAM_(T3) CPU_PARAM_(T4)                                             \
    CPU_KERNEL_END_(name, name(CPU_ARG_(T0, 0), CPU_ARG_(T1, 1),              \
                               CPU_ARG_(T2, 2), CPU_ARG_(T3, 3),              \
                               CPU_ARG_(T4, 4)))
#define CPU_KERNEL_6(name, T0, T1, T2, T3, T4, T5)                            \
    CPU_KERNEL_BEGIN_(name, 6) CPU_PARAM_(T0) CPU_PARAM_(T1) CPU_PARAM_(T2)   \
    CPU_PARAM_(T3) CPU_PARAM_(T4) CPU_PARAM_(T5)                              \
    CPU_KERNEL_END_(name, name(CPU_ARG_(T0, 0), CPU_ARG_(T1, 1),              \
                               CPU_ARG_(T2, 2), CPU_ARG_(T3, 3),              \
                               CPU_ARG_(T4, 4), CPU_ARG_(T5, 5)))

#endif
