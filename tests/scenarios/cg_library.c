/* SPDX-License-Identifier: MIT */
/*
 * cg_library: the shape of a conjugate-gradient solver (issue 12, case 2):
 * the program's own one-thread kernels and a library's level-1 routines
 * (tests/standin/fakecublas.c, which asks the driver whether its stream is
 * capturing and takes another path if so, as cuBLAS does) on one stream
 * made with cudaStreamCreate, results kept in device memory, a sync each
 * iteration. Solves A x = b for a tridiagonal A (3 on the diagonal, -1
 * beside it: well conditioned, so 40 iterations reach rounding level,
 * which the program checks). Then the program captures one more iteration itself and
 * launches that graph: inside its own capture the library must see the
 * capture and take its capture path (6 calls). Prints checksums, the
 * residuals, the library's capture-path calls and faults; exits 1 if a
 * library call failed, its kernels found a fault or the solver did not
 * converge.
 * Stand-in only: the kernels are CPU twins.
 */
#include <stdbool.h>

#include "scenario.h"
#include "../../kernels/cpu/cpu_kernel.h"
#include "../standin/fakecublas.h"

#define N 4096
#define ITERS 16
#define GRAPH_LAUNCHES 3

/* Indices of the solver's scalars in device memory. */
enum { RR, PAP, ALPHA, NEG_ALPHA, RR_NEW, BETA, ONE, NSCALARS };

/* ap = A p: 3 p[i] - p[i-1] - p[i+1] */
static void cg_matvec(const float *p, float *ap, int n)
{
    CPU_BLOCK_BEGIN;
    FOR_EACH_THREAD {
        int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
        if (i < n) {
            float left = i > 0 ? p[i - 1] : 0.0f, right = i < n - 1 ? p[i + 1] : 0.0f;
            ap[i] = 3.0f * p[i] - left - right;
        }
    }
}
CPU_KERNEL_3(cg_matvec, const float *, float *, int)

/* s[ALPHA] = s[RR] / s[PAP], s[NEG_ALPHA] = -s[ALPHA] (one thread) */
static void cg_alpha(float *s)
{
    CPU_BLOCK_BEGIN;
    s[ALPHA] = s[PAP] != 0.0f ? s[RR] / s[PAP] : 0.0f;
    s[NEG_ALPHA] = -s[ALPHA];
}
CPU_KERNEL_1(cg_alpha, float *)

/* s[BETA] = s[RR_NEW] / s[RR] (one thread) */
static void cg_beta(float *s)
{
    CPU_BLOCK_BEGIN;
    s[BETA] = s[RR] != 0.0f ? s[RR_NEW] / s[RR] : 0.0f;
}
CPU_KERNEL_1(cg_beta, float *)

/* s[RR] = history[it] = s[RR_NEW] (one thread) */
static void cg_advance(float *s, float *history, int it)
{
    CPU_BLOCK_BEGIN;
    s[RR] = s[RR_NEW];
    history[it] = s[RR_NEW];
}
CPU_KERNEL_3(cg_advance, float *, float *, int)

static unsigned long library_failures;

/* Checks one library call: prints the first few failures and counts them all. */
static void lib_check(int status, const char *what, int it)
{
    if (status == FAKECUBLAS_STATUS_SUCCESS)
        return;
    if (library_failures++ < 5)
        printf("library call failed at iteration %d: %s: status %d\n", it, what, status);
}

#define LIB(call, it) lib_check((call), #call, it)

/* Device buffers of the solver. */
struct cg {
    float *x, *r, *p, *ap, *s, *history;
};

/* One CG iteration: the program's kernels and the library's routines, on stream st. */
static void cg_iteration(struct cg *g, int it, cudaStream_t st)
{
    int n = N;
    float *s = g->s;
    void *lap_args[] = {&g->p, &g->ap, &n};
    CK(cudaLaunchKernel((const void *)cg_matvec, grid_for(N), block256, lap_args, 0, st));
    LIB(fakecublas_sdot(st, N, g->p, g->ap, s + PAP), it);
    void *scalar_args[] = {&s};
    dim3 one = {1, 1, 1};
    CK(cudaLaunchKernel((const void *)cg_alpha, one, one, scalar_args, 0, st));
    LIB(fakecublas_saxpy(st, N, s + ALPHA, g->p, g->x), it);
    LIB(fakecublas_saxpy(st, N, s + NEG_ALPHA, g->ap, g->r), it);
    LIB(fakecublas_sdot(st, N, g->r, g->r, s + RR_NEW), it);
    void *advance_args[] = {&s, &g->history, &it};
    CK(cudaLaunchKernel((const void *)cg_beta, one, one, scalar_args, 0, st));
    CK(cudaLaunchKernel((const void *)cg_advance, one, one, advance_args, 0, st));
    LIB(fakecublas_sscal(st, N, s + BETA, g->p), it);
    LIB(fakecublas_saxpy(st, N, s + ONE, g->r, g->p), it);
}

/* Prints the residual history and whether it converged (to a millionth of r0's square): 0 if it did. */
static int show_residuals(const struct cg *g)
{
    float rr[ITERS + 1];
    CK(cudaMemcpy(rr, g->history, sizeof rr, cudaMemcpyDeviceToHost));
    report_hash("residuals", rr, sizeof rr);
    bool converged = rr[ITERS - 1] >= 0.0f && rr[ITERS - 1] < 1e-6f * N && rr[ITERS] < 1e-6f * N;
    printf("rr after 1, %d iterations and the graph: %.9g %.9g %.9g: %s\n", ITERS, rr[0], rr[ITERS - 1], rr[ITERS],
           converged ? "converged" : "NOT CONVERGED");
    return converged ? 0 : 1;
}

/* Solves, captures one more iteration, launches it, prints what came out. */
int main(void)
{
    scenario_begin("cg_library");
    cudaStream_t st;
    CK(cudaStreamCreate(&st));
    struct cg g = {dev_floats(N), dev_floats(N), dev_floats(N), dev_floats(N), dev_floats(NSCALARS),
                   dev_floats(ITERS + 1)};
    lib_check(fakecublas_create(), "fakecublas_create()", -1);
    k_fill_on(g.x, 0.0f, N, st);
    k_fill_on(g.r, 1.0f, N, st); /* r = b - A x = b = 1 + (i % 3) / 4 */
    k_add_step_on(g.r, 0.25f, 0, N, st);
    CK(cudaMemcpyAsync(g.p, g.r, N * sizeof(float), cudaMemcpyDeviceToDevice, st));
    k_fill_on(g.s + ONE, 1.0f, 1, st);
    LIB(fakecublas_sdot(st, N, g.r, g.r, g.s + RR), -1);
    CK(cudaStreamSynchronize(st));
    for (int it = 0; it < ITERS; it++) {
        cg_iteration(&g, it, st);
        CK(cudaStreamSynchronize(st));
    }
    show("x", g.x, N);
    show("r", g.r, N);

    /* The program's own capture: the library must see it. */
    cudaGraph_t graph = NULL;
    cudaGraphExec_t exec = NULL;
    CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
    cg_iteration(&g, ITERS, st);
    CK(cudaStreamEndCapture(st, &graph));
    CK(cudaGraphInstantiate(&exec, graph, 0));
    for (int i = 0; i < GRAPH_LAUNCHES; i++) {
        CK(cudaGraphLaunch(exec, st));
        CK(cudaStreamSynchronize(st));
    }
    show("x after the graph", g.x, N);
    int wrong = show_residuals(&g);
    CK(cudaGraphExecDestroy(exec));
    CK(cudaGraphDestroy(graph));

    unsigned faults = 0;
    lib_check(fakecublas_destroy(&faults), "fakecublas_destroy()", -1);
    printf("library: %lu calls on the capture path, %lu failed calls, %u faults\n", fakecublas_captured_calls(),
           library_failures, faults);
    scenario_end();
    return library_failures || faults || wrong ? 1 : 0;
}
