/* SPDX-License-Identifier: MIT */
/*
 * kernels/apps/lt_common.h: the cuBLASLt GEMM that lt_gemm and train_lt
 * share: D = op(A) op(B), column-major, bf16 in and out, fp32 accumulation,
 * its algorithm chosen once by cublasLtMatmulAlgoGetHeuristic for a fixed
 * workspace (LT_WORKSPACE_BYTES), so that every run of one GPU computes
 * the same bits.  Define LT_PROGRAM (the program's name, for messages)
 * before including it.
 */
#ifndef REPRISE_APPS_LT_COMMON_H
#define REPRISE_APPS_LT_COMMON_H

#include <cublasLt.h>
#include <stdio.h>
#include <stdlib.h>

#include "common.h"

#define LT_WORKSPACE_BYTES (32u << 20)

/* Ends the program when a cuBLASLt call fails, naming it. */
static inline void check_lt(cublasStatus_t status, const char *name, int line)
{
    if (status == CUBLAS_STATUS_SUCCESS)
        return;
    fprintf(stderr, "%s: ERROR: %s failed (%s), line %d\n", LT_PROGRAM, name, cublasLtGetStatusName(status), line);
    fflush(stdout);
    exit(1);
}
#define LT(fn, args) check_lt(fn args, #fn, __LINE__)

/* One GEMM D = op(A) op(B) (column-major; A stored m x k or, transposed, k x m) with its algorithm chosen once. */
struct gemm {
    const char *name;
    int m, n, k;
    bool ta, tb;
    cublasLtMatmulDesc_t desc;
    cublasLtMatrixLayout_t a, b, d;
    cublasLtMatmulHeuristicResult_t choice;
};

/* The preference every GEMM's algorithm is chosen with: LT_WORKSPACE_BYTES of workspace at most. */
static inline cublasLtMatmulPreference_t lt_preference(void)
{
    cublasLtMatmulPreference_t pref;
    LT(cublasLtMatmulPreferenceCreate, (&pref));
    const uint64_t workspace_bytes = LT_WORKSPACE_BYTES;
    LT(cublasLtMatmulPreferenceSetAttribute,
       (pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_bytes, sizeof workspace_bytes));
    return pref;
}

/* Describes a GEMM and chooses its algorithm; says so on stderr. */
static inline void gemm_init(gemm *g, const char *name, cublasLtHandle_t lt, cublasLtMatmulPreference_t pref, int m,
                             int n, int k, bool ta, bool tb)
{
    g->name = name, g->m = m, g->n = n, g->k = k, g->ta = ta, g->tb = tb;
    LT(cublasLtMatmulDescCreate, (&g->desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t opa = ta ? CUBLAS_OP_T : CUBLAS_OP_N, opb = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
    LT(cublasLtMatmulDescSetAttribute, (g->desc, CUBLASLT_MATMUL_DESC_TRANSA, &opa, sizeof opa));
    LT(cublasLtMatmulDescSetAttribute, (g->desc, CUBLASLT_MATMUL_DESC_TRANSB, &opb, sizeof opb));
    LT(cublasLtMatrixLayoutCreate, (&g->a, CUDA_R_16BF, ta ? k : m, ta ? m : k, ta ? k : m));
    LT(cublasLtMatrixLayoutCreate, (&g->b, CUDA_R_16BF, tb ? n : k, tb ? k : n, tb ? n : k));
    LT(cublasLtMatrixLayoutCreate, (&g->d, CUDA_R_16BF, m, n, m));
    int found = 0;
    LT(cublasLtMatmulAlgoGetHeuristic, (lt, g->desc, g->a, g->b, g->d, g->d, pref, 1, &g->choice, &found));
    if (found < 1 || g->choice.state != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "%s: ERROR: no cuBLASLt algorithm for %s (m %d n %d k %d)\n", LT_PROGRAM, name, m, n, k);
        exit(1);
    }
    fprintf(stderr, "%s: %s: m %d n %d k %d%s%s: algorithm found, workspace %zu bytes\n", LT_PROGRAM, name, m, n, k,
            ta ? ", A transposed" : "", tb ? ", B transposed" : "", g->choice.workspaceSize);
}

/* Runs a GEMM on a stream (workspace: LT_WORKSPACE_BYTES of device memory). */
static inline void gemm_run(const gemm *g, cublasLtHandle_t lt, const void *a, const void *b, void *d, void *workspace,
                            cudaStream_t stream)
{
    const float alpha = 1.0f, beta = 0.0f;
    LT(cublasLtMatmul, (lt, g->desc, &alpha, a, g->a, b, g->b, &beta, d, g->d, d, g->d, &g->choice.algo, workspace,
                        LT_WORKSPACE_BYTES, stream));
}

/* Frees a GEMM's descriptors. */
static inline void gemm_fini(gemm *g)
{
    LT(cublasLtMatrixLayoutDestroy, (g->a));
    LT(cublasLtMatrixLayoutDestroy, (g->b));
    LT(cublasLtMatrixLayoutDestroy, (g->d));
    LT(cublasLtMatmulDescDestroy, (g->desc));
}

#endif
