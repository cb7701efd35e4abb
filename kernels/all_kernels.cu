/* SPDX-License-Identifier: MIT */
/*
 * Every test kernel in one translation unit, for `make gpu-programs`'
 * kernels/all_kernels.fatbin: the module the driver-only scenarios load
 * (SCENARIO_MODULE) and look their kernels up in by name, as a program
 * that ships a cubin does.
 */
#include "k_add_step.cu"
#include "k_apply_coef.cu"
#include "k_axpy.cu"
#include "k_big_arg.cu"
#include "k_combine.cu"
#include "k_empty.cu"
#include "k_fill.cu"
#include "k_poke.cu"
#include "k_reduce_sum.cu"
#include "k_scale.cu"
