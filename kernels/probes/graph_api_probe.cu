/* SPDX-License-Identifier: MIT */
// Measures the CUDA calls an automatic-graph engine would lean on, on the GPU
// at hand: the per-call cost of asking about a capture (a tripwire check),
// of an empty capture per iteration, of patching kernel nodes, and whether a
// cudaKernel_t handle (what <<<>>> hands __cudaLaunchKernel) works as a graph
// kernel node's function.  Prints one line per measurement; exit 77 without a GPU.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

#include <cuda.h>
#include <cuda_runtime.h>

#define CK(x)                                                                                    \
    do {                                                                                         \
        cudaError_t e_ = (x);                                                                    \
        if (e_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorName(e_));   \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)

__global__ void add_one(int *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] += 1;
}

static double now_ns()
{
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// Median ns per call of f over `reps` batches of `n` calls.
template <class F> static double per_call_ns(F f, int n = 1000, int reps = 21)
{
    std::vector<double> samples;
    for (int r = 0; r < reps; r++) {
        double t0 = now_ns();
        for (int i = 0; i < n; i++)
            f();
        samples.push_back((now_ns() - t0) / n);
    }
    return median(samples);
}

int main()
{
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        printf("no GPU\n");
        return 77;
    }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("device: %s\n", prop.name);
    int *d;
    const int n = 4096;
    CK(cudaMalloc(&d, n * sizeof(int)));
    CK(cudaMemset(d, 0, n * sizeof(int)));
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    add_one<<<n / 256, 256, 0, s>>>(d, n); // load the module
    CK(cudaStreamSynchronize(s));

    cudaStreamCaptureStatus status;
    unsigned long long id;
    const cudaGraphNode_t *deps;
    size_t ndeps;
    printf("GetCaptureInfo, stream not capturing: %.1f ns/call\n",
           per_call_ns([&] { cudaStreamGetCaptureInfo(s, &status, &id, nullptr, &deps, nullptr, &ndeps); }));
    printf("IsCapturing, stream not capturing: %.1f ns/call\n",
           per_call_ns([&] { cudaStreamIsCapturing(s, &status); }));

    // A relaxed capture as a tripwire: how much does asking cost, and does driver-API work show up?
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
    printf("GetCaptureInfo, capturing: %.1f ns/call\n",
           per_call_ns([&] { cudaStreamGetCaptureInfo(s, &status, &id, nullptr, &deps, nullptr, &ndeps); }));
    CK(cudaStreamGetCaptureInfo(s, &status, &id, nullptr, &deps, nullptr, &ndeps));
    printf("tripwire before driver launch: status %d, dependencies %zu\n", (int)status, ndeps);
    cudaFunction_t fn;
    CK(cudaGetFuncBySymbol(&fn, (const void *)add_one));
    int nn = n;
    void *params[] = {&d, &nn};
    CUresult cr = cuLaunchKernel((CUfunction)fn, n / 256, 1, 1, 256, 1, 1, 0, (CUstream)s, params, nullptr);
    CK(cudaStreamGetCaptureInfo(s, &status, &id, nullptr, &deps, nullptr, &ndeps));
    printf("tripwire after driver launch (CUresult %d): status %d, dependencies %zu\n", (int)cr, (int)status, ndeps);
    cudaGraph_t caught;
    CK(cudaStreamEndCapture(s, &caught));
    size_t caught_nodes = 0;
    CK(cudaGraphGetNodes(caught, nullptr, &caught_nodes));
    printf("tripwire graph holds %zu node(s)\n", caught_nodes);
    CK(cudaGraphDestroy(caught));

    // An empty capture begun and ended every iteration.
    printf("Begin+EndCapture (relaxed, empty): %.1f ns/pair\n", per_call_ns([&] {
               cudaGraph_t g;
               cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed);
               cudaStreamEndCapture(s, &g);
               if (g)
                   cudaGraphDestroy(g);
           }, 200));

    // A graph built explicitly from a cudaKernel_t handle.
    cudaKernel_t kern;
    CK(cudaGetKernel(&kern, (const void *)add_one));
    cudaGraph_t g;
    CK(cudaGraphCreate(&g, 0));
    const int nodes = 100;
    std::vector<cudaGraphNode_t> node(nodes);
    for (int i = 0; i < nodes; i++) {
        cudaKernelNodeParams kp = {};
        kp.func = (void *)kern;
        kp.gridDim = dim3(n / 256);
        kp.blockDim = dim3(256);
        kp.kernelParams = params;
        CK(cudaGraphAddKernelNode(&node[i], g, i ? &node[i - 1] : nullptr, i ? 1 : 0, &kp));
    }
    cudaGraphExec_t exec;
    CK(cudaGraphInstantiate(&exec, g, 0));
    CK(cudaMemset(d, 0, n * sizeof(int)));
    CK(cudaGraphLaunch(exec, s));
    CK(cudaStreamSynchronize(s));
    std::vector<int> h(n);
    CK(cudaMemcpy(h.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost));
    printf("graph of %d cudaKernel_t nodes: element 0 = %d, element %d = %d (expect %d)\n", nodes, h[0], n - 1,
           h[n - 1], nodes);
    size_t off = 0, size = 0;
    cudaError_t pe = cudaFuncGetParamInfo((const void *)kern, 1, &off, &size);
    printf("cudaFuncGetParamInfo on cudaKernel_t: %s, param 1 at offset %zu size %zu\n", cudaGetErrorName(pe), off,
           size);

    // Patching: SetParams on every node, then launch.
    int *d2;
    CK(cudaMalloc(&d2, n * sizeof(int)));
    void *params2[] = {&d2, &nn};
    int flip = 0;
    double set_ns = per_call_ns([&] {
        cudaKernelNodeParams kp = {};
        kp.func = (void *)kern;
        kp.gridDim = dim3(n / 256);
        kp.blockDim = dim3(256);
        kp.kernelParams = (flip++ & 1) ? params : params2;
        cudaGraphExecKernelNodeSetParams(exec, node[flip % nodes], &kp);
    }, 1000);
    printf("cudaGraphExecKernelNodeSetParams: %.1f ns/node\n", set_ns);
    CK(cudaStreamSynchronize(s));

    // Launch cost of the 100-node graph vs 100 eager launches, CPU side.
    double launch_ns = per_call_ns([&] { cudaGraphLaunch(exec, s); }, 50);
    CK(cudaStreamSynchronize(s));
    double eager_ns = per_call_ns([&] { add_one<<<n / 256, 256, 0, s>>>(d, n); }, 1000);
    CK(cudaStreamSynchronize(s));
    printf("cudaGraphLaunch (100 nodes): %.0f ns; eager <<<>>> launch: %.0f ns each\n", launch_ns, eager_ns);
    double ptr_ns = per_call_ns([&] { cudaPeekAtLastError(); }, 1000);
    printf("cudaPeekAtLastError: %.1f ns/call\n", ptr_ns);
    CK(cudaGraphExecDestroy(exec));
    CK(cudaGraphDestroy(g));
    return 0;
}
