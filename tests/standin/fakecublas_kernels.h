/* SPDX-License-Identifier: MIT */
/*
 * tests/standin/fakecublas_kernels.h: the kernels of the fake cuBLAS
 * (fakecublas.c), CPU twins registered with the runtime stand-in.
 *
 * A workspace holds FAKECUBLAS_MAX_BLOCKS floats and as many tags after
 * them: each value a kernel leaves there is tagged with the call's number,
 * and the kernel that reads it checks the tag. A mismatch (the workspace
 * was not written by this call: lost, freed, or another's) adds one to
 * *faults and leaves a NaN or the output untouched.
 */
#ifndef FAKECUBLAS_KERNELS_H
#define FAKECUBLAS_KERNELS_H

#define FAKECUBLAS_THREADS 256
#define FAKECUBLAS_MAX_BLOCKS 32
#define FAKECUBLAS_WORKSPACE_BYTES (FAKECUBLAS_MAX_BLOCKS * (sizeof(float) + sizeof(unsigned)))

/* *p = 0 (one thread) */
void fakecublas_zero(unsigned *p);
/* ws[block] = the block's part of x . y, tagged (grid of at most FAKECUBLAS_MAX_BLOCKS) */
void fakecublas_dot_partial(const float *x, const float *y, int n, float *ws, unsigned tag);
/* *result = sum of nblocks tagged parts of ws, or NaN and a fault (one thread) */
void fakecublas_dot_final(const float *ws, int nblocks, unsigned tag, float *result, unsigned *faults);
/* ws[0] = *alpha, tagged (one thread) */
void fakecublas_stage(const float *alpha, float *ws, unsigned tag);
/* y += ws[0] * x if ws[0]'s tag is right, else a fault */
void fakecublas_axpy_kernel(int n, const float *ws, unsigned tag, const float *x, float *y, unsigned *faults);
/* x *= ws[0] if ws[0]'s tag is right, else a fault */
void fakecublas_scal_kernel(int n, const float *ws, unsigned tag, float *x, unsigned *faults);

#endif
