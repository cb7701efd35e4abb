/* SPDX-License-Identifier: MIT */
/*
 * pcg_ilu: a preconditioned conjugate-gradient solver written as CUDA's own
 * samples and many applications write one (a member of the zoo,
 * tests/gpu/zoo.sh).  It solves A x = b for A the 2-D Laplacian of a
 * PCG_GRID x PCG_GRID grid (5-point stencil, 4 on the diagonal, -1 off it:
 * symmetric positive definite, PCG_N rows in CSR), b fixed, x0 = 0, with an
 * incomplete-LU preconditioner M = L U (ILU(0): the factors keep A's
 * pattern), in double precision, for PCG_ITERS iterations exactly.
 *
 * Set-up, once: cusparseDcsrilu02 factors a copy of A's values on the GPU
 * (deprecated in CUDA 13's cuSPARSE but there; the host computes the same
 * factorisation and the two are compared), cusparseSpSV_analysis for L (unit
 * diagonal) and U, buffers for cusparseSpMV.  Each iteration, everything on
 * the legacy default stream (no handle is given a stream) and every cuBLAS
 * scalar in host memory (CUBLAS_POINTER_MODE_HOST, the default: each dot
 * product and norm is copied back and waited for inside cuBLAS):
 *
 *     q = A p                      cusparseSpMV (CSR, CUSPARSE_SPMV_CSR_ALG2: bit-wise deterministic)
 *     pq = p . q                   cublasDdot (to the host)
 *     alpha = rz / pq              on the host
 *     x += alpha p, r -= alpha q   cublasDaxpy twice
 *     hist[it] = alpha             k_record<<<1, 1>>>: the program's own kernel, alpha and it by value
 *     z = U^-1 L^-1 r              cusparseSpSV_solve twice
 *     rz' = r . z                  cublasDdot (to the host)
 *     p = z + (rz' / rz) p         cublasDscal, cublasDaxpy
 *     |r| every PCG_PRINT_EVERY    cublasDnrm2 (to the host), printed
 *
 * Then it copies x and hist back, prints their checksums, the true residual
 * |b - A x| computed on the host and the recurrence's, checks them against a
 * host PCG run with the host's factors (the same algorithm, in the same
 * order but for the sums' order), frees everything and calls
 * cudaDeviceReset() before returning, as CUDA's samples do.
 *
 * stdout: every value is printed with %.17g and as the double's bits in hex,
 * the same on every run of one GPU (cuBLAS level-1 routines, CSR SpMV with
 * ALG2 and SpSV give the same bits for fixed sizes): byte-comparable with
 * and without the shim.  stderr: the time per iteration (median_us), for
 * the zoo's table.  Exit status: 0; 1 a failed call or a wrong result
 * ("verify ... FAILED"); 77 no GPU.  Built twice by make gpu-programs:
 * pcg_ilu.gpu (-cudart shared) and pcg_ilu.static (nvcc's default static
 * runtime), linked with -lcublas -lcusparse.
 */
#define DISABLE_CUSPARSE_DEPRECATED /* csrilu02: deprecated, still in CUDA 13.0; the warning is not wanted */
#include "common.h"

#include <algorithm>
#include <cublas_v2.h>
#include <cusparse.h>
#include <math.h>
#include <string.h>
#include <time.h>
#include <vector>

#define PCG_GRID 64
#define PCG_N (PCG_GRID * PCG_GRID)
#define PCG_ITERS 60
#define PCG_PRINT_EVERY 5

#define PROGRAM_NAME "pcg_ilu"
#include "library_check.h"

/* The program's own kernel: one thread records this iteration's step length. */
__global__ void k_record(double *hist, int it, double alpha)
{
    hist[it] = alpha;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static unsigned long long bits(double d)
{
    unsigned long long u;
    memcpy(&u, &d, sizeof u);
    return u;
}

/* "NAME %.17g 0xBITS": byte-comparable. */
static void print_value(const char *name, double d)
{
    printf("%s %.17g 0x%016llx\n", name, d, bits(d));
}

/* The matrix in CSR (columns ascending in each row), and each row's diagonal entry. */
struct csr {
    int n, nnz;
    std::vector<int> rowptr, col, diag;
    std::vector<double> val;
};

static csr laplacian_2d(int g)
{
    csr a;
    a.n = g * g;
    a.rowptr.resize(a.n + 1);
    a.diag.resize(a.n);
    for (int i = 0; i < a.n; i++) {
        const int ix = i % g, iy = i / g;
        a.rowptr[i] = (int)a.col.size();
        if (iy > 0)
            a.col.push_back(i - g), a.val.push_back(-1.0);
        if (ix > 0)
            a.col.push_back(i - 1), a.val.push_back(-1.0);
        a.diag[i] = (int)a.col.size();
        a.col.push_back(i), a.val.push_back(4.0);
        if (ix < g - 1)
            a.col.push_back(i + 1), a.val.push_back(-1.0);
        if (iy < g - 1)
            a.col.push_back(i + g), a.val.push_back(-1.0);
    }
    a.nnz = (int)a.col.size();
    a.rowptr[a.n] = a.nnz;
    return a;
}

/* ILU(0) on the host (row by row, A's pattern): the strictly lower part holds L (unit diagonal), the rest U. */
static std::vector<double> ilu0_host(const csr &a)
{
    std::vector<double> lu = a.val;
    for (int i = 1; i < a.n; i++) {
        for (int k = a.rowptr[i]; k < a.diag[i]; k++) {
            const int kc = a.col[k];
            lu[k] /= lu[a.diag[kc]];
            for (int j = k + 1; j < a.rowptr[i + 1]; j++)
                for (int m = a.diag[kc] + 1; m < a.rowptr[kc + 1]; m++)
                    if (a.col[m] == a.col[j]) {
                        lu[j] -= lu[k] * lu[m];
                        break;
                    }
        }
    }
    return lu;
}

/* out = U^-1 L^-1 in, on the host (y: scratch). */
static void apply_ilu_host(const csr &a, const std::vector<double> &lu, const double *in, double *y, double *out)
{
    for (int i = 0; i < a.n; i++) {
        double s = in[i];
        for (int j = a.rowptr[i]; j < a.diag[i]; j++)
            s -= lu[j] * y[a.col[j]];
        y[i] = s;
    }
    for (int i = a.n - 1; i >= 0; i--) {
        double s = y[i];
        for (int j = a.diag[i] + 1; j < a.rowptr[i + 1]; j++)
            s -= lu[j] * out[a.col[j]];
        out[i] = s / lu[a.diag[i]];
    }
}

static void spmv_host(const csr &a, const double *x, double *y)
{
    for (int i = 0; i < a.n; i++) {
        double s = 0.0;
        for (int j = a.rowptr[i]; j < a.rowptr[i + 1]; j++)
            s += a.val[j] * x[a.col[j]];
        y[i] = s;
    }
}

static double dot_host(const double *u, const double *v, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += u[i] * v[i];
    return s;
}

/* The same PCG on the host: the reference x. */
static std::vector<double> pcg_host(const csr &a, const std::vector<double> &lu, const std::vector<double> &b, int iters)
{
    const int n = a.n;
    std::vector<double> x(n, 0.0), r = b, z(n), p(n), q(n), y(n);
    apply_ilu_host(a, lu, r.data(), y.data(), z.data());
    p = z;
    double rz = dot_host(r.data(), z.data(), n);
    for (int it = 0; it < iters; it++) {
        spmv_host(a, p.data(), q.data());
        const double alpha = rz / dot_host(p.data(), q.data(), n);
        for (int i = 0; i < n; i++)
            x[i] += alpha * p[i], r[i] -= alpha * q[i];
        apply_ilu_host(a, lu, r.data(), y.data(), z.data());
        const double rz_new = dot_host(r.data(), z.data(), n);
        const double beta = rz_new / rz;
        rz = rz_new;
        for (int i = 0; i < n; i++)
            p[i] = z[i] + beta * p[i];
    }
    return x;
}

static void verify(const char *what, bool ok, const char *detail, double got, double bound)
{
    if (ok) {
        printf("verify %s ok\n", what);
        return;
    }
    printf("verify %s FAILED\n", what);
    fprintf(stderr, "pcg_ilu: %s: %s %.17g, bound %.17g\n", what, detail, got, bound);
    fflush(stdout);
    exit(1);
}

int main(void)
{
    require_gpu();
    const csr a = laplacian_2d(PCG_GRID);
    const int n = a.n, nnz = a.nnz;
    const size_t vbytes = sizeof(double) * n;
    std::vector<double> b(n);
    for (int i = 0; i < n; i++)
        b[i] = (double)((i * 7919) % 257) / 128.0 - 1.0;

    int *d_rowptr, *d_col;
    double *d_val, *d_lu, *d_x, *d_r, *d_z, *d_y, *d_p, *d_q, *d_hist;
    CHECK(cudaMalloc(&d_rowptr, sizeof(int) * (n + 1)));
    CHECK(cudaMalloc(&d_col, sizeof(int) * nnz));
    CHECK(cudaMalloc(&d_val, sizeof(double) * nnz));
    CHECK(cudaMalloc(&d_lu, sizeof(double) * nnz));
    CHECK(cudaMalloc(&d_x, vbytes));
    CHECK(cudaMalloc(&d_r, vbytes));
    CHECK(cudaMalloc(&d_z, vbytes));
    CHECK(cudaMalloc(&d_y, vbytes));
    CHECK(cudaMalloc(&d_p, vbytes));
    CHECK(cudaMalloc(&d_q, vbytes));
    CHECK(cudaMalloc(&d_hist, sizeof(double) * PCG_ITERS));
    CHECK(cudaMemcpy(d_rowptr, a.rowptr.data(), sizeof(int) * (n + 1), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_col, a.col.data(), sizeof(int) * nnz, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_val, a.val.data(), sizeof(double) * nnz, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_lu, d_val, sizeof(double) * nnz, cudaMemcpyDeviceToDevice));
    CHECK(cudaMemcpy(d_r, b.data(), vbytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_x, 0, vbytes));
    CHECK(cudaMemset(d_hist, 0, sizeof(double) * PCG_ITERS));

    cublasHandle_t blas;
    BLAS(cublasCreate, (&blas));
    cusparseHandle_t sparse;
    SPARSE(cusparseCreate, (&sparse));

    /* ILU(0) of A on the GPU, in place on d_lu (the legacy API's matrix descriptor and info). */
    cusparseMatDescr_t descr;
    SPARSE(cusparseCreateMatDescr, (&descr));
    SPARSE(cusparseSetMatType, (descr, CUSPARSE_MATRIX_TYPE_GENERAL));
    SPARSE(cusparseSetMatIndexBase, (descr, CUSPARSE_INDEX_BASE_ZERO));
    csrilu02Info_t ilu_info;
    SPARSE(cusparseCreateCsrilu02Info, (&ilu_info));
    int ilu_bytes = 0;
    SPARSE(cusparseDcsrilu02_bufferSize, (sparse, n, nnz, descr, d_lu, d_rowptr, d_col, ilu_info, &ilu_bytes));
    void *ilu_buffer;
    CHECK(cudaMalloc(&ilu_buffer, ilu_bytes > 0 ? ilu_bytes : 16));
    SPARSE(cusparseDcsrilu02_analysis, (sparse, n, nnz, descr, d_lu, d_rowptr, d_col, ilu_info,
                                        CUSPARSE_SOLVE_POLICY_USE_LEVEL, ilu_buffer));
    int pivot = -1;
    if (cusparseXcsrilu02_zeroPivot(sparse, ilu_info, &pivot) == CUSPARSE_STATUS_ZERO_PIVOT) {
        fprintf(stderr, "pcg_ilu: ERROR: csrilu02 analysis: zero pivot at row %d\n", pivot);
        return 1;
    }
    SPARSE(cusparseDcsrilu02, (sparse, n, nnz, descr, d_lu, d_rowptr, d_col, ilu_info,
                               CUSPARSE_SOLVE_POLICY_USE_LEVEL, ilu_buffer));
    if (cusparseXcsrilu02_zeroPivot(sparse, ilu_info, &pivot) == CUSPARSE_STATUS_ZERO_PIVOT) {
        fprintf(stderr, "pcg_ilu: ERROR: csrilu02: zero pivot at row %d\n", pivot);
        return 1;
    }
    /* The factors against the host's. */
    const std::vector<double> lu_host = ilu0_host(a);
    std::vector<double> lu_gpu(nnz);
    CHECK(cudaMemcpy(lu_gpu.data(), d_lu, sizeof(double) * nnz, cudaMemcpyDeviceToHost));
    double lu_diff = 0.0;
    for (int j = 0; j < nnz; j++)
        lu_diff = std::max(lu_diff, fabs(lu_gpu[j] - lu_host[j]));
    print_checksum("ilu0", lu_gpu.data(), sizeof(double) * nnz);
    verify("ilu0", lu_diff <= 1e-12, "largest difference from the host's factors", lu_diff, 1e-12);

    /* The generic API's descriptors: A, L (unit diagonal) and U on the factors, the vectors. */
    cusparseSpMatDescr_t mat_a, mat_l, mat_u;
    SPARSE(cusparseCreateCsr, (&mat_a, n, n, nnz, d_rowptr, d_col, d_val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                               CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    SPARSE(cusparseCreateCsr, (&mat_l, n, n, nnz, d_rowptr, d_col, d_lu, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                               CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    SPARSE(cusparseCreateCsr, (&mat_u, n, n, nnz, d_rowptr, d_col, d_lu, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                               CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    cusparseFillMode_t lower = CUSPARSE_FILL_MODE_LOWER, upper = CUSPARSE_FILL_MODE_UPPER;
    cusparseDiagType_t unit = CUSPARSE_DIAG_TYPE_UNIT, non_unit = CUSPARSE_DIAG_TYPE_NON_UNIT;
    SPARSE(cusparseSpMatSetAttribute, (mat_l, CUSPARSE_SPMAT_FILL_MODE, &lower, sizeof lower));
    SPARSE(cusparseSpMatSetAttribute, (mat_l, CUSPARSE_SPMAT_DIAG_TYPE, &unit, sizeof unit));
    SPARSE(cusparseSpMatSetAttribute, (mat_u, CUSPARSE_SPMAT_FILL_MODE, &upper, sizeof upper));
    SPARSE(cusparseSpMatSetAttribute, (mat_u, CUSPARSE_SPMAT_DIAG_TYPE, &non_unit, sizeof non_unit));
    cusparseDnVecDescr_t vec_r, vec_y, vec_z, vec_p, vec_q;
    SPARSE(cusparseCreateDnVec, (&vec_r, n, d_r, CUDA_R_64F));
    SPARSE(cusparseCreateDnVec, (&vec_y, n, d_y, CUDA_R_64F));
    SPARSE(cusparseCreateDnVec, (&vec_z, n, d_z, CUDA_R_64F));
    SPARSE(cusparseCreateDnVec, (&vec_p, n, d_p, CUDA_R_64F));
    SPARSE(cusparseCreateDnVec, (&vec_q, n, d_q, CUDA_R_64F));
    const double one = 1.0, zero = 0.0;

    size_t spmv_bytes = 0, l_bytes = 0, u_bytes = 0;
    SPARSE(cusparseSpMV_bufferSize, (sparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat_a, vec_p, &zero, vec_q,
                                     CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG2, &spmv_bytes));
    void *spmv_buffer, *l_buffer, *u_buffer;
    CHECK(cudaMalloc(&spmv_buffer, spmv_bytes > 0 ? spmv_bytes : 16));
    cusparseSpSVDescr_t sv_l, sv_u;
    SPARSE(cusparseSpSV_createDescr, (&sv_l));
    SPARSE(cusparseSpSV_createDescr, (&sv_u));
    SPARSE(cusparseSpSV_bufferSize, (sparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat_l, vec_r, vec_y,
                                     CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, sv_l, &l_bytes));
    SPARSE(cusparseSpSV_bufferSize, (sparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat_u, vec_y, vec_z,
                                     CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, sv_u, &u_bytes));
    CHECK(cudaMalloc(&l_buffer, l_bytes > 0 ? l_bytes : 16));
    CHECK(cudaMalloc(&u_buffer, u_bytes > 0 ? u_bytes : 16));
    SPARSE(cusparseSpSV_analysis, (sparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat_l, vec_r, vec_y, CUDA_R_64F,
                                   CUSPARSE_SPSV_ALG_DEFAULT, sv_l, l_buffer));
    SPARSE(cusparseSpSV_analysis, (sparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat_u, vec_y, vec_z, CUDA_R_64F,
                                   CUSPARSE_SPSV_ALG_DEFAULT, sv_u, u_buffer));

    /* z = M^-1 r, p = z, rz = r . z */
    auto precondition = [&]() {
        SPARSE(cusparseSpSV_solve, (sparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat_l, vec_r, vec_y, CUDA_R_64F,
                                    CUSPARSE_SPSV_ALG_DEFAULT, sv_l));
        SPARSE(cusparseSpSV_solve, (sparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat_u, vec_y, vec_z, CUDA_R_64F,
                                    CUSPARSE_SPSV_ALG_DEFAULT, sv_u));
    };
    precondition();
    BLAS(cublasDcopy, (blas, n, d_z, 1, d_p, 1));
    double rz, r0;
    BLAS(cublasDdot, (blas, n, d_r, 1, d_z, 1, &rz));
    BLAS(cublasDnrm2, (blas, n, d_r, 1, &r0));
    print_value("residual 0", r0);

    std::vector<double> times;
    for (iteration = 0; iteration < PCG_ITERS; iteration++) {
        const double began = now_s();
        SPARSE(cusparseSpMV, (sparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat_a, vec_p, &zero, vec_q, CUDA_R_64F,
                              CUSPARSE_SPMV_CSR_ALG2, spmv_buffer));
        double pq;
        BLAS(cublasDdot, (blas, n, d_p, 1, d_q, 1, &pq));
        const double alpha = rz / pq, minus_alpha = -alpha;
        BLAS(cublasDaxpy, (blas, n, &alpha, d_p, 1, d_x, 1));
        BLAS(cublasDaxpy, (blas, n, &minus_alpha, d_q, 1, d_r, 1));
        k_record<<<1, 1>>>(d_hist, iteration, alpha);
        CHECK_LAUNCH();
        precondition();
        double rz_new;
        BLAS(cublasDdot, (blas, n, d_r, 1, d_z, 1, &rz_new));
        const double beta = rz_new / rz;
        rz = rz_new;
        BLAS(cublasDscal, (blas, n, &beta, d_p, 1));
        BLAS(cublasDaxpy, (blas, n, &one, d_z, 1, d_p, 1));
        if ((iteration + 1) % PCG_PRINT_EVERY == 0) {
            double rn;
            BLAS(cublasDnrm2, (blas, n, d_r, 1, &rn));
            char name[32];
            snprintf(name, sizeof name, "residual %d", iteration + 1);
            print_value(name, rn);
        }
        times.push_back((now_s() - began) * 1e6);
    }
    iteration = -1;

    std::vector<double> x(n), hist(PCG_ITERS), r_rec(n);
    CHECK(cudaMemcpy(x.data(), d_x, vbytes, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(r_rec.data(), d_r, vbytes, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(hist.data(), d_hist, sizeof(double) * PCG_ITERS, cudaMemcpyDeviceToHost));
    CHECK(cudaGetLastError());
    printf("n %d nnz %d iterations %d\n", n, nnz, PCG_ITERS);
    print_value("alpha 0", hist[0]);
    print_value("alpha last", hist[PCG_ITERS - 1]);
    print_checksum("alpha", hist.data(), sizeof(double) * PCG_ITERS);
    print_checksum("x", x.data(), vbytes);

    /* The true residual |b - A x| on the host, the recurrence's |r|, and the host's own PCG. */
    std::vector<double> ax(n);
    spmv_host(a, x.data(), ax.data());
    double true_rr = 0.0, rec_rr = 0.0;
    for (int i = 0; i < n; i++) {
        const double d = b[i] - ax[i];
        true_rr += d * d;
        rec_rr += r_rec[i] * r_rec[i];
    }
    const double b_norm = sqrt(dot_host(b.data(), b.data(), n));
    print_value("residual true", sqrt(true_rr));
    print_value("residual recurrence", sqrt(rec_rr));
    verify("converged", sqrt(true_rr) < 1e-6 * b_norm, "relative true residual", sqrt(true_rr) / b_norm, 1e-6);
    verify("recurrence", fabs(sqrt(true_rr) - sqrt(rec_rr)) < 1e-9 * b_norm,
           "difference of the true and the recurrence's residual", fabs(sqrt(true_rr) - sqrt(rec_rr)), 1e-9 * b_norm);
    const std::vector<double> x_ref = pcg_host(a, lu_host, b, PCG_ITERS);
    double x_diff = 0.0, x_max = 0.0;
    for (int i = 0; i < n; i++) {
        x_diff = std::max(x_diff, fabs(x[i] - x_ref[i]));
        x_max = std::max(x_max, fabs(x_ref[i]));
    }
    verify("host", x_diff <= 1e-4 * x_max, "largest difference from the host's x", x_diff, 1e-4 * x_max);

    std::vector<double> sorted = times;
    std::sort(sorted.begin(), sorted.end());
    fprintf(stderr, "pcg_ilu: %d iterations, SpMV buffer %zu bytes, SpSV buffers %zu and %zu bytes\n", PCG_ITERS,
            spmv_bytes, l_bytes, u_bytes);
    fprintf(stderr, "median_us %.1f\n", sorted[sorted.size() / 2]);

    SPARSE(cusparseSpSV_destroyDescr, (sv_l));
    SPARSE(cusparseSpSV_destroyDescr, (sv_u));
    SPARSE(cusparseDestroySpMat, (mat_a));
    SPARSE(cusparseDestroySpMat, (mat_l));
    SPARSE(cusparseDestroySpMat, (mat_u));
    SPARSE(cusparseDestroyDnVec, (vec_r));
    SPARSE(cusparseDestroyDnVec, (vec_y));
    SPARSE(cusparseDestroyDnVec, (vec_z));
    SPARSE(cusparseDestroyDnVec, (vec_p));
    SPARSE(cusparseDestroyDnVec, (vec_q));
    SPARSE(cusparseDestroyCsrilu02Info, (ilu_info));
    SPARSE(cusparseDestroyMatDescr, (descr));
    SPARSE(cusparseDestroy, (sparse));
    BLAS(cublasDestroy, (blas));
    CHECK(cudaFree(ilu_buffer));
    CHECK(cudaFree(spmv_buffer));
    CHECK(cudaFree(l_buffer));
    CHECK(cudaFree(u_buffer));
    CHECK(cudaFree(d_rowptr));
    CHECK(cudaFree(d_col));
    CHECK(cudaFree(d_val));
    CHECK(cudaFree(d_lu));
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_r));
    CHECK(cudaFree(d_z));
    CHECK(cudaFree(d_y));
    CHECK(cudaFree(d_p));
    CHECK(cudaFree(d_q));
    CHECK(cudaFree(d_hist));
    /* As CUDA's samples end: the driver cleans up all state (a program's graphs and the shim's with it). */
    CHECK(cudaDeviceReset());
    return 0;
}
