/* SPDX-License-Identifier: MIT */
/*
 * plan_per_size: a decode loop whose attention-like kernel comes from a
 * module loaded for each size, as cuDNN's run-time compiled attention loads
 * an execution plan, with its own copy of the same kernel, per sequence
 * length (PyTorch's scaled_dot_product_attention through cuDNN in Hugging
 * Face generate() with a dynamic cache, on the H200: the kernel
 * cudnn_generated_fort_native_sdpa_sm80_flash_fprop_... under a new handle
 * every token). Driver API only (driver_scenario.h).
 *
 *     plan_per_size [CALLS [TOKENS [CACHE]]]          (default 3 16 0)
 *
 * CALLS times (generate() calls) TOKENS tokens; token t has the length
 * L = 64 + 16 t and takes that size's plan from a cache: the first time a
 * size is met, a module is loaded (cuModuleLoadData, or SCENARIO_MODULE's
 * file with cuModuleLoad) and its k_axpy asked for. A token is k_scale on
 * the state, the plan's k_axpy over L elements (its grid grows), k_add_step,
 * k_reduce_sum, an async copy of the sum into pinned memory and
 * cuStreamSynchronize; it prints the sum. CACHE > 0 keeps that many plans,
 * unloading the least recently used beyond (cuModuleUnload), so that plans
 * are loaded again in the next call, under new handles. Prints the state's
 * hashes after each call.
 */
#include "driver_scenario.h"

#define N 4096
#define MAX_TOKENS 240

/* A plan: its size, its module and kernel, when it was last used. */
struct plan {
    int length;
    CUmodule module;
    CUfunction axpy;
    unsigned long used;
};

static struct plan plans[MAX_TOKENS];
static int plan_count;
static unsigned long clock_now;

/* Unloads plan i and forgets it. */
static void drop_plan(int i)
{
    CU(cuModuleUnload(plans[i].module));
    plans[i] = plans[--plan_count];
}

/* The plan of a length: the cached one, or a module loaded for it (the least recently used beyond cache unloaded). */
static CUfunction plan_for(int length, int cache)
{
    clock_now++;
    for (int i = 0; i < plan_count; i++)
        if (plans[i].length == length) {
            plans[i].used = clock_now;
            return plans[i].axpy;
        }
    if (cache > 0 && plan_count >= cache) {
        int oldest = 0;
        for (int i = 1; i < plan_count; i++)
            if (plans[i].used < plans[oldest].used)
                oldest = i;
        drop_plan(oldest);
    }
    struct plan *p = &plans[plan_count++];
    const char *path = getenv("SCENARIO_MODULE");
    if (path)
        CU(cuModuleLoad(&p->module, path));
    else
        CU(cuModuleLoadData(&p->module, "stand-in plan"));
    CU(cuModuleGetFunction(&p->axpy, p->module, "k_axpy"));
    p->length = length;
    p->used = clock_now;
    return p->axpy;
}

/* An argument, or its default; exits with the usage if out of range. */
static int arg(int argc, char **argv, int i, int fallback, int most)
{
    if (argc <= i)
        return fallback;
    int v = atoi(argv[i]);
    if (v < 0 || v > most) {
        fprintf(stderr, "usage: plan_per_size [CALLS [TOKENS (at most %d) [CACHE]]]\n", MAX_TOKENS);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    int calls = arg(argc, argv, 1, 3, 1000), tokens = arg(argc, argv, 2, 16, MAX_TOKENS);
    int cache = arg(argc, argv, 3, 0, MAX_TOKENS);
    dscen_begin("plan_per_size");
    CUfunction k_fill_fn = dscen_fn("k_fill"), k_scale_fn = dscen_fn("k_scale");
    CUfunction k_add_fn = dscen_fn("k_add_step"), k_reduce_fn = dscen_fn("k_reduce_sum");
    CUstream s = NULL;
    CU(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CUdeviceptr x = dscen_floats(N), y = dscen_floats(N), sum = dscen_floats(1);
    float *host = NULL;
    CU(cuMemAllocHost((void **)&host, sizeof(float)));
    for (int call = 0; call < calls; call++) {
        int n = N;
        float one = 1.0f, zero = 0.0f;
        void *fx[] = {&x, &one, &n}, *fy[] = {&y, &zero, &n};
        dscen_launch(k_fill_fn, N, fx, s);
        dscen_launch(k_fill_fn, N, fy, s);
        for (int t = 0; t < tokens; t++) {
            int length = 64 + 16 * t, step = t;
            float f = 0.9375f, a = 0.5f + 0.0625f * (float)call, step_f = 0.125f;
            CUfunction axpy = plan_for(length, cache);
            void *scale[] = {&y, &f, &n}, *ax[] = {&a, &x, &y, &length}, *add[] = {&x, &step_f, &step, &n};
            void *red[] = {&y, &sum, &n};
            dscen_launch(k_scale_fn, N, scale, s);
            dscen_launch(axpy, length, ax, s);
            dscen_launch(k_add_fn, N, add, s);
            CU(cuLaunchKernel(k_reduce_fn, 1, 1, 1, REDUCE_THREADS, 1, 1, 0, s, red, NULL));
            CU(cuMemcpyDtoHAsync(host, sum, sizeof(float), s));
            CU(cuStreamSynchronize(s));
            printf("call %d token %2d: sum %08x\n", call, t, dscen_bits(*host));
        }
        dscen_show("x", x, N);
        dscen_show("y", y, N);
    }
    while (plan_count > 0)
        drop_plan(plan_count - 1);
    CU(cuMemFreeHost(host));
    CU(cuMemFree(x));
    CU(cuMemFree(y));
    CU(cuMemFree(sum));
    CU(cuStreamDestroy(s));
    return dscen_end();
}
