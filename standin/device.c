/* SPDX-License-Identifier: MIT */
/*
 * standin/device.c: the one device of the stand-in, and device-wide
 * synchronisation.
 */
#include "standin.h"

/* cudaGetDeviceCount: one device; answers even after a sticky error (measured). */
cudaError_t cudaGetDeviceCount(int *count)
{
    if (!count)
        return cudaErrorInvalidValue;
    *count = 1;
    return cudaSuccess;
}

/* Selects a device: only device 0 exists. */
static cudaError_t set_device(int device)
{
    CHECK(device != 0, cudaErrorInvalidDevice);
    return cudaSuccess;
}

/* cudaSetDevice. */
cudaError_t cudaSetDevice(int device)
{
    API(set_device(device));
}

/* Reports the current device (always 0). */
static cudaError_t get_device(int *device)
{
    CHECK(!device, cudaErrorInvalidValue);
    *device = 0;
    return cudaSuccess;
}

/* cudaGetDevice. */
cudaError_t cudaGetDevice(int *device)
{
    API(get_device(device));
}

/* Waits for all queued work; invalid while any capture is active. */
static cudaError_t device_synchronize(void)
{
    TRY(capture_check_device_sync());
    device_time_wait();
    return sched_run_all();
}

/* cudaDeviceSynchronize. */
cudaError_t cudaDeviceSynchronize(void)
{
    API(device_synchronize());
}

/* cuCtxSynchronize. */
cudaError_t standin_driver_device_sync(void)
{
    DRIVER_CALL(device_synchronize());
}
