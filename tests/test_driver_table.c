/* Unit test of the driver table (shim/driver_hooks.def) and the work families (policy/driver_work.c). */
#include "config.h"

#include <string.h>

#include "check.h"
#include "driver_table.h"
#include "driver_work.h"

/* Checks the table against the patterns and the lookups. */
int main(void)
{
    CHECK(DRIVER_COUNT > 100);
    for (int id = 0; id < DRIVER_COUNT; id++) {
        const char *name = driver_table[id].name;
        /* Every wrapped function belongs to a work family, and the lookup finds it (names are unique). */
        if (!driver_symbol_is_work(name))
            fprintf(stderr, "not a work name: %s\n", name);
        CHECK(driver_symbol_is_work(name));
        CHECK(driver_id_of(name) == id);
        /* A per-thread twin comes with its plain function. */
        size_t len = strlen(name);
        if (len > 5 && (strcmp(name + len - 5, "_ptsz") == 0 || strcmp(name + len - 5, "_ptds") == 0)) {
            char plain[128];
            snprintf(plain, sizeof plain, "%.*s", (int)(len - 5), name);
            CHECK(driver_id_of(plain) >= 0);
        }
    }
    CHECK(driver_table[DRIVER_ID_cuStreamBeginCapture_v2].kind == DRIVER_KIND_CAPTURE_BEGIN);
    CHECK(driver_table[DRIVER_ID_cuStreamBeginCaptureToGraph_ptsz].kind == DRIVER_KIND_CAPTURE_BEGIN);
    CHECK(driver_table[DRIVER_ID_cuStreamEndCapture].kind == DRIVER_KIND_CAPTURE_END);
    /* Capturable: only work a capture records as it would have run. */
    CHECK(driver_table[DRIVER_ID_cuLaunchKernel].kind == DRIVER_KIND_CAPTURABLE);
    CHECK(driver_table[DRIVER_ID_cuLaunchKernelEx_ptsz].kind == DRIVER_KIND_CAPTURABLE);
    CHECK(driver_table[DRIVER_ID_cuMemsetD32Async].kind == DRIVER_KIND_CAPTURABLE);
    CHECK(driver_table[DRIVER_ID_cuMemcpyDtoDAsync_v2_ptsz].kind == DRIVER_KIND_CAPTURABLE);
    CHECK(driver_table[DRIVER_ID_cuStreamWaitEvent].kind == DRIVER_KIND_CAPTURABLE);
    CHECK(driver_table[DRIVER_ID_cuMemsetD32_v2].kind == DRIVER_KIND_WORK);          /* synchronous */
    CHECK(driver_table[DRIVER_ID_cuMemcpyHtoDAsync_v2].kind == DRIVER_KIND_WORK);    /* may read pageable memory */
    CHECK(driver_table[DRIVER_ID_cuLaunchCooperativeKernel].kind == DRIVER_KIND_WORK);
    CHECK(driver_table[DRIVER_ID_cuStreamSynchronize].kind == DRIVER_KIND_WORK);
    CHECK(driver_id_of("cuLaunchKernel_ptsz") == DRIVER_ID_cuLaunchKernel_ptsz);
    CHECK(driver_id_of("cuMemcpyHtoDAsync_v2_ptsz") == DRIVER_ID_cuMemcpyHtoDAsync_v2_ptsz);
    CHECK(driver_id_of("cuMemcpy_ptds") == DRIVER_ID_cuMemcpy_ptds);

    /* Not wrapped, not work: handed out as they are. */
    const char *other[] = {"cuStreamCreate", "cuEventCreate", "cuEventDestroy_v2", "cuEventElapsedTime_v2",
                           "cuModuleLoadData", "cuLibraryGetKernel", "cuGetProcAddress", "cuMemGetInfo_v2",
                           "cuCtxGetCurrent", "cuStreamIsCapturing", "cuStreamGetCaptureInfo_v3",
                           "cuFuncGetAttribute", "cuMemAdvise_v2", "cuDeviceGet", "cuGetExportTable", ""};
    for (size_t i = 0; i < sizeof other / sizeof *other; i++) {
        CHECK(!driver_symbol_is_work(other[i]));
        CHECK(driver_id_of(other[i]) == -1);
    }
    /* Work the table does not know (an older or newer version): must be noticed. */
    const char *unknown[] = {"cuLaunchKernel_v99", "cuMemcpyHtoD", "cuMemcpyWithAttributesAsync",
                             "cuMemAlloc", "cuCtxSynchronize_v3", "cuGraphLaunch_v2"};
    for (size_t i = 0; i < sizeof unknown / sizeof *unknown; i++) {
        CHECK(driver_symbol_is_work(unknown[i]));
        CHECK(driver_id_of(unknown[i]) == -1);
    }
    CHECK(!driver_symbol_is_work(NULL));
    CHECK(driver_id_of(NULL) == -1);
    CHECK(driver_id_of("cudaMalloc") == -1);
    CHECK(driver_id_of("c") == -1);
    return check_result("test_driver_table");
}
