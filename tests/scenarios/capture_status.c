/* SPDX-License-Identifier: MIT */
/*
 * capture_status: the program asks, in the middle of each iteration, whether
 * its stream is capturing (PyTorch does, and changes what it does when the
 * answer is yes).  The answer must be the program's own: never the shim's
 * captures of the robust path (REPRISE_REPLAY=robust).
 */
#include "scenario.h"

#define N 2048

/* 24 iterations of two kernels around two capture-status questions, and a sync. */
int main(void)
{
    scenario_begin("capture_status");
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float *y = dev_floats(N);
    int none = 0, other = 0;
    k_fill_on(y, 1.0f, N, s);
    for (int it = 0; it < 24; it++) {
        k_add_step_on(y, 0.5f, it, N, s);
        enum cudaStreamCaptureStatus status = cudaStreamCaptureStatusActive;
        CK(cudaStreamIsCapturing(s, &status));
        status == cudaStreamCaptureStatusNone ? none++ : other++;
        status = cudaStreamCaptureStatusActive;
        CK(cudaStreamGetCaptureInfo(s, &status, NULL, NULL, NULL, NULL, NULL));
        status == cudaStreamCaptureStatusNone ? none++ : other++;
        k_scale_on(y, 0.5f, N, s);
        k_add_step_on(y, 0.25f, it, N, s);
        CK(cudaStreamSynchronize(s));
    }
    printf("capture status: not capturing %d times, capturing %d times\n", none, other);
    show("y", y, N);
    return scenario_end();
}
