/* SPDX-License-Identifier: MIT */
/*
 * no_repeat_driver: no_repeat (a loop whose sequence of calls is never the
 * same twice) through the driver API only, as a program built with nvcc's
 * default static runtime launches: each iteration launches k_add_step,
 * then 8 kernels, k_scale or k_axpy as the bits of the iteration's number
 * say, all with cuLaunchKernel, and cuStreamSynchronize.  Two neighbouring
 * iterations first differ at their second call (bit 0): k_scale, then
 * k_axpy, the same API with another kernel, which the shim can name only
 * from the CUfunction the launch passes (issue 25, item 4, in observe mode).
 */
#include "driver_scenario.h"

#define N 1024

/* Runs 48 iterations, 9 launches and a sync each. */
int main(void)
{
    dscen_begin("no_repeat_driver");
    CUfunction fill = dscen_fn("k_fill"), step = dscen_fn("k_add_step"), scale = dscen_fn("k_scale"),
               axpy = dscen_fn("k_axpy");
    CUstream s = NULL;
    CU(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CUdeviceptr x = dscen_floats(N), y = dscen_floats(N);
    int n = N;
    float one = 1.0f, zero = 0.0f, eighth = 0.125f, half = 0.5f, shrink = 0.875f;
    void *fill_x[] = {&x, &one, &n}, *fill_y[] = {&y, &zero, &n};
    dscen_launch(fill, N, fill_x, s);
    dscen_launch(fill, N, fill_y, s);
    CU(cuStreamSynchronize(s));
    for (int it = 0; it < 48; it++) {
        void *step_args[] = {&x, &eighth, &it, &n};
        dscen_launch(step, N, step_args, s);
        for (int bit = 0; bit < 8; bit++) {
            void *axpy_args[] = {&half, &x, &y, &n}, *scale_args[] = {&y, &shrink, &n};
            if (it >> bit & 1)
                dscen_launch(axpy, N, axpy_args, s);
            else
                dscen_launch(scale, N, scale_args, s);
        }
        CU(cuStreamSynchronize(s));
    }
    dscen_show("x", x, N);
    dscen_show("y", y, N);
    CU(cuStreamDestroy(s));
    return dscen_end();
}
