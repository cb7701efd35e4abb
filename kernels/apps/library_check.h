/* SPDX-License-Identifier: MIT */
/*
 * Status checks for the programs that call cuBLAS and cuSPARSE (cg_blas,
 * pcg_ilu): a failing call is named with its line and the iteration it was
 * in, and ends the program.  Include after common.h, with PROGRAM_NAME
 * defined ("cg_blas").
 */
#ifndef REPRISE_LIBRARY_CHECK_H
#define REPRISE_LIBRARY_CHECK_H

#include <cublas_v2.h>
#include <cusparse.h>
#include <stdio.h>
#include <stdlib.h>

static int iteration = -1; /* -1: setting up; for the messages */

/* Ends the program if a library call failed, naming it (name), its status (status_name) and where. */
static void library_failed(bool failed, const char *name, const char *status_name, int line)
{
    if (!failed)
        return;
    fprintf(stderr, "%s: ERROR: %s failed (%s) at %s %d, %s.cu:%d\n", PROGRAM_NAME, name, status_name,
            iteration < 0 ? "setup, iteration" : "iteration", iteration, PROGRAM_NAME, line);
    fflush(stdout);
    exit(1);
}

/* BLAS(cublasSdot, (handle, ...)): calls it and checks its status, naming it. */
#define BLAS(fn, args)                                                                                      \
    do {                                                                                                    \
        cublasStatus_t blas_status_ = fn args;                                                              \
        library_failed(blas_status_ != CUBLAS_STATUS_SUCCESS, #fn, cublasGetStatusName(blas_status_), __LINE__); \
    } while (0)
/* SPARSE(cusparseSpMV, (handle, ...)): likewise for cuSPARSE. */
#define SPARSE(fn, args)                                                                                    \
    do {                                                                                                    \
        cusparseStatus_t sparse_status_ = fn args;                                                          \
        library_failed(sparse_status_ != CUSPARSE_STATUS_SUCCESS, #fn, cusparseGetErrorName(sparse_status_), \
                       __LINE__);                                                                           \
    } while (0)

#endif
