// SPDX-License-Identifier: MIT
// Which cuBLASLt GEMMs launch with programmatic dependent launch on this GPU: one GEMM
// configuration per run (m n k, epilogue, data type), ten calls, preloaded with the shim at
// REPRISE_LOG=info, whose log names the first launch with CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_
// STREAM_SERIALIZATION.  Usage: lt_pdl_probe M N K EPILOGUE(none|bias|gelu|gelu_bias|gelu_aux_bias|bgradb) TYPE(bf16|f32|f16)
#include <cublasLt.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CK(x) do { int e_ = (int)(x); if (e_) { fprintf(stderr, "%s failed: %d\n", #x, e_); exit(1); } } while (0)

int main(int argc, char **argv)
{
    if (argc < 6) { fprintf(stderr, "usage: %s M N K EPILOGUE TYPE\n", argv[0]); return 2; }
    int m = atoi(argv[1]), n = atoi(argv[2]), k = atoi(argv[3]);
    const char *ep = argv[4], *ty = argv[5];
    cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_DEFAULT;
    if (!strcmp(ep, "bias")) epilogue = CUBLASLT_EPILOGUE_BIAS;
    else if (!strcmp(ep, "gelu")) epilogue = CUBLASLT_EPILOGUE_GELU;
    else if (!strcmp(ep, "gelu_bias")) epilogue = CUBLASLT_EPILOGUE_GELU_BIAS;
    else if (!strcmp(ep, "gelu_aux_bias")) epilogue = CUBLASLT_EPILOGUE_GELU_AUX_BIAS;
    else if (!strcmp(ep, "bgradb")) epilogue = CUBLASLT_EPILOGUE_BGRADB;
    cudaDataType_t dt = !strcmp(ty, "f32") ? CUDA_R_32F : !strcmp(ty, "f16") ? CUDA_R_16F : CUDA_R_16BF;
    size_t es = dt == CUDA_R_32F ? 4 : 2;
    cublasLtHandle_t lt; CK(cublasLtCreate(&lt));
    cublasLtMatmulDesc_t desc; CK(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    cublasOperation_t opT = CUBLAS_OP_T, opN = CUBLAS_OP_N;
    CK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &opT, sizeof opT)); // llm.c's forward: A transposed
    CK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &opN, sizeof opN));
    void *a, *b, *d, *bias, *aux, *ws; size_t wsb = 32u << 20;
    CK(cudaMalloc(&a, (size_t)m * k * es)); CK(cudaMalloc(&b, (size_t)k * n * es)); CK(cudaMalloc(&d, (size_t)m * n * es));
    CK(cudaMalloc(&bias, (size_t)(m > n ? m : n) * es)); CK(cudaMalloc(&aux, (size_t)m * n * es)); CK(cudaMalloc(&ws, wsb));
    CK(cudaMemset(a, 0, (size_t)m * k * es)); CK(cudaMemset(b, 0, (size_t)k * n * es)); CK(cudaMemset(bias, 0, (size_t)(m > n ? m : n) * es));
    if (epilogue != CUBLASLT_EPILOGUE_DEFAULT) {
        CK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue));
        CK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias));
        cudaDataType_t bt = dt;
        CK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bt, sizeof bt));
        if (epilogue == CUBLASLT_EPILOGUE_GELU_AUX_BIAS) {
            int64_t ld = m;
            CK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &aux, sizeof aux));
            CK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &ld, sizeof ld));
        }
    }
    cublasLtMatrixLayout_t la, lb, ld_;
    CK(cublasLtMatrixLayoutCreate(&la, dt, k, m, k)); CK(cublasLtMatrixLayoutCreate(&lb, dt, k, n, k));
    CK(cublasLtMatrixLayoutCreate(&ld_, dt, m, n, m));
    cublasLtMatmulPreference_t pref; CK(cublasLtMatmulPreferenceCreate(&pref));
    CK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsb, sizeof wsb));
    cublasLtMatmulHeuristicResult_t h; int found = 0;
    CK(cublasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, ld_, ld_, pref, 1, &h, &found));
    if (!found) { printf("%d %d %d %s %s: no algorithm\n", m, n, k, ep, ty); return 0; }
    float alpha = 1, beta = 0;
    cudaStream_t s; CK(cudaStreamCreate(&s));
    for (int i = 0; i < 10; i++)
        CK(cublasLtMatmul(lt, desc, &alpha, a, la, b, lb, &beta, d, ld_, d, ld_, &h.algo, ws, wsb, s));
    CK(cudaStreamSynchronize(s));
    printf("%d %d %d %s %s: ran\n", m, n, k, ep, ty);
    return 0;
}
