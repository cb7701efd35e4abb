/* SPDX-License-Identifier: MIT */
/*
 * cg_blas: the shape of a conjugate-gradient solver, where libraries launch
 * most of the work (issue 12, case 2).  It solves A x = b for A the 1-D
 * Laplacian tridiag(-1, 2 + 1/1024, -1) of CG_N rows (CSR), b fixed, x0 = 0,
 * CG_ITERS iterations.  Each iteration, on one stream made with
 * cudaStreamCreate (blocking), with every scalar in device memory
 * (CUBLAS_POINTER_MODE_DEVICE, CUSPARSE_POINTER_MODE_DEVICE):
 *
 *     q = A p                  cusparseSpMV (CSR, CUSPARSE_SPMV_CSR_ALG1, buffer allocated once)
 *     pq = p . q               cublasSdot
 *     alpha = rr / pq          k_alpha, then k_negate_alpha (-alpha): one thread each
 *     x += alpha p             cublasSaxpy
 *     r -= alpha q             cublasSaxpy
 *     rr_new = r . r           cublasSdot
 *     beta = rr_new / rr       k_beta, then k_advance (rr = rr_new), k_count (steps + 1): one thread each
 *     p = beta p + r           cublasSscal, cublasSaxpy
 *     hist[it] = rr            cublasScopy (one element, a new destination each time)
 *
 * then cudaStreamSynchronize.  cuBLAS level-1 routines and csr SpMV with
 * ALG1 give the same bits on every run for fixed sizes on one GPU, so
 * stdout is byte-comparable across runs: every iteration's rr (float bits in
 * hex and %.9g), a checksum of x's bits, the true residual computed on the
 * host from x.  The program checks itself: rr is finite, positive and
 * smaller at the end, |b - A x| agrees with sqrt(rr) and the device counted
 * every iteration; "verify cg ok".
 * Every cuBLAS and cuSPARSE status is checked: a failure prints the call's
 * name and status and exits 1.  stderr: the loop's wall time.
 *
 *     cg_blas.gpu [eager|graph]          (default eager)
 *
 * graph: the hand-written reference.  The iteration's calls but the last
 * (the Scopy into hist[it], a new destination each time) are captured once
 * (cudaStreamBeginCapture on s, global mode) into one graph; each iteration
 * launches it, then the Scopy, then the sync.  The same kernels on the same
 * data in the same order: stdout is the same as eager's.
 * Exit status: 0, 1 (a failed call or a wrong result), 77 (no GPU).
 */
#include "common.h"

#include <cublas_v2.h>
#include <cusparse.h>
#include <math.h>
#include <string.h>
#include <time.h>

#define CG_N 4096
#define CG_ITERS 300
#define CG_DIAG (2.0f + 1.0f / 1024.0f)

/* The device scalars, indices into one array. */
enum { S_RR, S_PQ, S_RR_NEW, S_ALPHA, S_NALPHA, S_BETA, S_ONE, S_ZERO, S_STEPS, S_COUNT };

#define PROGRAM_NAME "cg_blas"
#include "library_check.h"

/* The program's own one-thread kernels: five an iteration, as a solver's scalar steps often are (a region
   of the program's own launches shorter than REPRISE_MIN_REGION_CALLS would not be graphed at all). */
__global__ void k_alpha(float *s)
{
    s[S_ALPHA] = s[S_RR] / s[S_PQ];
}

__global__ void k_negate_alpha(float *s)
{
    s[S_NALPHA] = -s[S_ALPHA];
}

__global__ void k_beta(float *s)
{
    s[S_BETA] = s[S_RR_NEW] / s[S_RR];
}

__global__ void k_advance(float *s)
{
    s[S_RR] = s[S_RR_NEW];
}

__global__ void k_count(float *s)
{
    s[S_STEPS] += 1.0f;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    const bool graph_mode = argc > 1 && strcmp(argv[1], "graph") == 0;
    if (argc > 1 && !graph_mode && strcmp(argv[1], "eager") != 0) {
        fprintf(stderr, "usage: %s [eager|graph]\n", argv[0]);
        return 1;
    }
    require_gpu();
    const int n = CG_N;
    const int nnz = 3 * n - 2;
    const size_t vbytes = sizeof(float) * n;

    /* A in CSR, and b: values exact in float. */
    int *h_rowptr = (int *)malloc(sizeof(int) * (n + 1)), *h_col = (int *)malloc(sizeof(int) * nnz);
    float *h_val = (float *)malloc(sizeof(float) * nnz), *h_b = (float *)malloc(vbytes), *h_x = (float *)malloc(vbytes);
    float *h_hist = (float *)malloc(sizeof(float) * CG_ITERS);
    if (!h_rowptr || !h_col || !h_val || !h_b || !h_x || !h_hist)
        return 1;
    int k = 0;
    for (int i = 0; i < n; i++) {
        h_rowptr[i] = k;
        if (i > 0)
            h_col[k] = i - 1, h_val[k++] = -1.0f;
        h_col[k] = i, h_val[k++] = CG_DIAG;
        if (i < n - 1)
            h_col[k] = i + 1, h_val[k++] = -1.0f;
        h_b[i] = (float)((i * 7919) % 257) / 128.0f - 1.0f;
    }
    h_rowptr[n] = k;

    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    int *d_rowptr, *d_col;
    float *d_val, *d_b, *d_x, *d_r, *d_p, *d_q, *d_s, *d_hist;
    CHECK(cudaMalloc(&d_rowptr, sizeof(int) * (n + 1)));
    CHECK(cudaMalloc(&d_col, sizeof(int) * nnz));
    CHECK(cudaMalloc(&d_val, sizeof(float) * nnz));
    CHECK(cudaMalloc(&d_b, vbytes));
    CHECK(cudaMalloc(&d_x, vbytes));
    CHECK(cudaMalloc(&d_r, vbytes));
    CHECK(cudaMalloc(&d_p, vbytes));
    CHECK(cudaMalloc(&d_q, vbytes));
    CHECK(cudaMalloc(&d_s, sizeof(float) * S_COUNT));
    CHECK(cudaMalloc(&d_hist, sizeof(float) * CG_ITERS));
    CHECK(cudaMemcpy(d_rowptr, h_rowptr, sizeof(int) * (n + 1), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_col, h_col, sizeof(int) * nnz, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_val, h_val, sizeof(float) * nnz, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_b, h_b, vbytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_r, h_b, vbytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_p, h_b, vbytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_x, 0, vbytes));
    CHECK(cudaMemset(d_q, 0, vbytes));
    CHECK(cudaMemset(d_hist, 0, sizeof(float) * CG_ITERS));
    const float consts[S_COUNT] = {0, 0, 0, 0, 0, 0, 1.0f, 0.0f};
    CHECK(cudaMemcpy(d_s, consts, sizeof consts, cudaMemcpyHostToDevice));
    float *one = d_s + S_ONE, *zero = d_s + S_ZERO;

    cublasHandle_t blas;
    BLAS(cublasCreate, (&blas));
    BLAS(cublasSetStream, (blas, s));
    BLAS(cublasSetPointerMode, (blas, CUBLAS_POINTER_MODE_DEVICE));
    cusparseHandle_t sparse;
    SPARSE(cusparseCreate, (&sparse));
    SPARSE(cusparseSetStream, (sparse, s));
    SPARSE(cusparseSetPointerMode, (sparse, CUSPARSE_POINTER_MODE_DEVICE));
    cusparseSpMatDescr_t mat;
    cusparseDnVecDescr_t vec_p, vec_q;
    SPARSE(cusparseCreateCsr, (&mat, n, n, nnz, d_rowptr, d_col, d_val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                               CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    SPARSE(cusparseCreateDnVec, (&vec_p, n, d_p, CUDA_R_32F));
    SPARSE(cusparseCreateDnVec, (&vec_q, n, d_q, CUDA_R_32F));
    size_t buffer_bytes = 0;
    SPARSE(cusparseSpMV_bufferSize, (sparse, CUSPARSE_OPERATION_NON_TRANSPOSE, one, mat, vec_p, zero, vec_q,
                                     CUDA_R_32F, CUSPARSE_SPMV_CSR_ALG1, &buffer_bytes));
    void *buffer = NULL;
    CHECK(cudaMalloc(&buffer, buffer_bytes > 0 ? buffer_bytes : 16));

    /* rr = b . b */
    BLAS(cublasSdot, (blas, n, d_r, 1, d_r, 1, d_s + S_RR));
    CHECK(cudaStreamSynchronize(s));
    float rr0;
    CHECK(cudaMemcpy(&rr0, d_s + S_RR, sizeof rr0, cudaMemcpyDeviceToHost));

    /* One iteration's calls but the last (the Scopy into hist[it]). */
    auto body = [&]() {
        SPARSE(cusparseSpMV, (sparse, CUSPARSE_OPERATION_NON_TRANSPOSE, one, mat, vec_p, zero, vec_q, CUDA_R_32F,
                              CUSPARSE_SPMV_CSR_ALG1, buffer));
        BLAS(cublasSdot, (blas, n, d_p, 1, d_q, 1, d_s + S_PQ));
        k_alpha<<<1, 1, 0, s>>>(d_s);
        CHECK_LAUNCH();
        k_negate_alpha<<<1, 1, 0, s>>>(d_s);
        CHECK_LAUNCH();
        BLAS(cublasSaxpy, (blas, n, d_s + S_ALPHA, d_p, 1, d_x, 1));
        BLAS(cublasSaxpy, (blas, n, d_s + S_NALPHA, d_q, 1, d_r, 1));
        BLAS(cublasSdot, (blas, n, d_r, 1, d_r, 1, d_s + S_RR_NEW));
        k_beta<<<1, 1, 0, s>>>(d_s);
        CHECK_LAUNCH();
        k_advance<<<1, 1, 0, s>>>(d_s);
        CHECK_LAUNCH();
        k_count<<<1, 1, 0, s>>>(d_s);
        CHECK_LAUNCH();
        BLAS(cublasSscal, (blas, n, d_s + S_BETA, d_p, 1));
        BLAS(cublasSaxpy, (blas, n, one, d_r, 1, d_p, 1));
    };
    cudaGraphExec_t exec = NULL;
    if (graph_mode) {
        cudaGraph_t graph;
        CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
        body();
        CHECK(cudaStreamEndCapture(s, &graph));
        CHECK(cudaGraphInstantiate(&exec, graph, 0));
        CHECK(cudaGraphDestroy(graph));
    }

    const double began = now_s();
    for (iteration = 0; iteration < CG_ITERS; iteration++) {
        if (exec)
            CHECK(cudaGraphLaunch(exec, s));
        else
            body();
        BLAS(cublasScopy, (blas, 1, d_s + S_RR, 1, d_hist + iteration, 1));
        CHECK(cudaStreamSynchronize(s));
    }
    const double loop_s = now_s() - began;
    iteration = -1;
    if (exec)
        CHECK(cudaGraphExecDestroy(exec));

    CHECK(cudaMemcpy(h_hist, d_hist, sizeof(float) * CG_ITERS, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(h_x, d_x, vbytes, cudaMemcpyDeviceToHost));
    float steps;
    CHECK(cudaMemcpy(&steps, d_s + S_STEPS, sizeof steps, cudaMemcpyDeviceToHost));
    CHECK(cudaGetLastError());

    printf("n %d nnz %d iterations %d steps counted on the device %.0f\n", n, nnz, CG_ITERS, steps);
    printf("rr0 0x%08x %.9g\n", float_bits(rr0), rr0);
    for (int it = 0; it < CG_ITERS; it++)
        printf("rr %d 0x%08x %.9g\n", it, float_bits(h_hist[it]), h_hist[it]);
    print_checksum("x", h_x, vbytes);

    /* The true residual |b - A x|, in double on the host, against the recurrence's sqrt(rr). */
    double true_rr = 0.0, bb = 0.0;
    for (int i = 0; i < n; i++) {
        double ax = (double)CG_DIAG * h_x[i];
        if (i > 0)
            ax -= h_x[i - 1];
        if (i < n - 1)
            ax -= h_x[i + 1];
        double d = (double)h_b[i] - ax;
        true_rr += d * d;
        bb += (double)h_b[i] * h_b[i];
    }
    const double true_norm = sqrt(true_rr), b_norm = sqrt(bb), last = h_hist[CG_ITERS - 1];
    printf("residual true %.9g recurrence %.9g (relative to |b| %.9g)\n", true_norm, sqrt(last), b_norm);
    int ok = 1;
    for (int it = 0; it < CG_ITERS; it++)
        if (!isfinite(h_hist[it]) || !(h_hist[it] > 0.0f))
            ok = 0;
    if (!(last < 1e-4 * rr0) || fabs(true_norm - sqrt(last)) > 1e-2 * b_norm || steps != (float)CG_ITERS)
        ok = 0;
    if (!ok) {
        printf("verify cg FAILED\n");
        fprintf(stderr, "cg_blas: the solver did not converge as it must: rr0 %.9g, last rr %.9g, true residual "
                        "%.9g, |b| %.9g\n",
                rr0, last, true_norm, b_norm);
        return 1;
    }
    printf("verify cg ok\n");
    fprintf(stderr, "cg_blas: loop_us %.0f (%d iterations, %zu bytes of SpMV buffer, %s)\n", loop_s * 1e6, CG_ITERS,
            buffer_bytes, graph_mode ? "hand-written graph" : "eager");

    SPARSE(cusparseDestroyDnVec, (vec_p));
    SPARSE(cusparseDestroyDnVec, (vec_q));
    SPARSE(cusparseDestroySpMat, (mat));
    SPARSE(cusparseDestroy, (sparse));
    BLAS(cublasDestroy, (blas));
    CHECK(cudaFree(buffer));
    CHECK(cudaFree(d_rowptr));
    CHECK(cudaFree(d_col));
    CHECK(cudaFree(d_val));
    CHECK(cudaFree(d_b));
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_r));
    CHECK(cudaFree(d_p));
    CHECK(cudaFree(d_q));
    CHECK(cudaFree(d_s));
    CHECK(cudaFree(d_hist));
    CHECK(cudaStreamDestroy(s));
    free(h_rowptr), free(h_col), free(h_val), free(h_b), free(h_x), free(h_hist);
    return 0;
}
