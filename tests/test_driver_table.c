/* SPDX-License-Identifier: MIT */
/* Unit test of the driver table (shim/base/driver_hooks.def) and the work families (policy/driver_work.c). */
#include "config.h"

#include <stdbool.h>
#include <string.h>

#include "check.h"
#include "call.h"
#include "driver_table.h"
#include "driver_work.h"

/* Checks the table against the patterns and the lookups. */
int main(void)
{
    CHECK(DRIVER_COUNT > 100);
    for (int id = 0; id < DRIVER_COUNT; id++) {
        const char *name = driver_table[id].name;
        /* Every wrapped function that adds or waits for work belongs to a work family (the others, boundaries
           and capture queries, do not), and the lookup finds it (names are unique). */
        enum driver_kind kind = driver_table[id].kind;
        bool work = kind != DRIVER_KIND_BOUNDARY && kind != DRIVER_KIND_SETTING && kind != DRIVER_KIND_CAPTURE_QUERY;
        if (driver_symbol_is_work(name) != work)
            fprintf(stderr, "%s: %s a work name\n", name, work ? "not" : "wrongly");
        CHECK(driver_symbol_is_work(name) == work);
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
    /* Waits: where the errors of held-back driver work come back. */
    CHECK(driver_table[DRIVER_ID_cuStreamSynchronize].kind == DRIVER_KIND_SYNC);
    CHECK(driver_table[DRIVER_ID_cuStreamQuery_ptsz].kind == DRIVER_KIND_SYNC);
    CHECK(driver_table[DRIVER_ID_cuCtxSynchronize].kind == DRIVER_KIND_SYNC);
    CHECK(driver_table[DRIVER_ID_cuEventSynchronize].kind == DRIVER_KIND_SYNC);
    CHECK(driver_table[DRIVER_ID_cuMemcpyDtoH_v2].kind == DRIVER_KIND_WORK);
    /* The front door: calls that become graph nodes, in both stream flavours; every other call is none. */
    CHECK(driver_table[DRIVER_ID_cuLaunchKernel].node_kind == CALL_LAUNCH);
    CHECK(driver_table[DRIVER_ID_cuLaunchKernelEx_ptsz].node_kind == CALL_LAUNCH);
    CHECK(driver_table[DRIVER_ID_cuMemcpyHtoDAsync_v2_ptsz].node_kind == CALL_COPY);
    CHECK(driver_table[DRIVER_ID_cuMemcpyAsync].node_kind == CALL_COPY);
    CHECK(driver_table[DRIVER_ID_cuMemsetD16Async_ptsz].node_kind == CALL_SET);
    CHECK(driver_table[DRIVER_ID_cuLaunchHostFunc].node_kind == CALL_HOST_FUNC);
    CHECK(driver_table[DRIVER_ID_cuEventRecordWithFlags].node_kind == CALL_EVENT_RECORD);
    CHECK(driver_table[DRIVER_ID_cuStreamWaitEvent_ptsz].node_kind == CALL_EVENT_WAIT);
    CHECK(driver_table[DRIVER_ID_cuMemcpyHtoD_v2].node_kind == -1);
    CHECK(driver_table[DRIVER_ID_cuLaunchCooperativeKernel].node_kind == -1);
    CHECK(driver_table[DRIVER_ID_cuStreamSynchronize].node_kind == -1);
    CHECK(driver_table[DRIVER_ID_cuMemsetD2D8Async].node_kind == -1);
    CHECK(call_api_kind(CALL_API_DRIVER(DRIVER_ID_cuLaunchKernel_ptsz)) == CALL_LAUNCH);
    CHECK(call_api_kind(CALL_API_DRIVER(DRIVER_ID_cuMemAlloc_v2)) == CALL_KIND_COUNT);
    CHECK(call_api_kind(HOOK_ID_cudaMemsetAsync) == CALL_SET);
    CHECK(strcmp(call_api_name(CALL_API_DRIVER(DRIVER_ID_cuEventRecord_ptsz)), "cuEventRecord_ptsz") == 0);
    CHECK(strcmp(call_api_name(HOOK_ID_cudaLaunchKernel), "cudaLaunchKernel") == 0);
    /* Every capture query, in every version and per-thread variant libcuda exports. */
    const char *queries[] = {"cuStreamIsCapturing",       "cuStreamIsCapturing_ptsz",
                             "cuStreamGetCaptureInfo",    "cuStreamGetCaptureInfo_ptsz",
                             "cuStreamGetCaptureInfo_v2", "cuStreamGetCaptureInfo_v2_ptsz",
                             "cuStreamGetCaptureInfo_v3", "cuStreamGetCaptureInfo_v3_ptsz"};
    for (size_t i = 0; i < sizeof queries / sizeof *queries; i++)
        CHECK(driver_id_of(queries[i]) >= 0 && driver_table[driver_id_of(queries[i])].kind == DRIVER_KIND_CAPTURE_QUERY);
    CHECK(driver_table[DRIVER_ID_cuStreamDestroy_v2].kind == DRIVER_KIND_BOUNDARY);
    CHECK(driver_table[DRIVER_ID_cuEventDestroy_v2].kind == DRIVER_KIND_BOUNDARY);
    CHECK(driver_table[DRIVER_ID_cuStreamSetAttribute_ptsz].kind == DRIVER_KIND_SETTING);
    CHECK(driver_table[DRIVER_ID_cuCtxSetLimit].kind == DRIVER_KIND_SETTING);
    CHECK(driver_id_of("cuLaunchKernel_ptsz") == DRIVER_ID_cuLaunchKernel_ptsz);
    CHECK(driver_id_of("cuMemcpyHtoDAsync_v2_ptsz") == DRIVER_ID_cuMemcpyHtoDAsync_v2_ptsz);
    CHECK(driver_id_of("cuMemcpy_ptds") == DRIVER_ID_cuMemcpy_ptds);

    /* Not wrapped, not work: handed out as they are. */
    const char *other[] = {"cuStreamCreate", "cuEventCreate", "cuEventElapsedTime_v2",
                           "cuModuleLoadData", "cuLibraryGetKernel", "cuGetProcAddress", "cuMemGetInfo_v2",
                           "cuCtxGetCurrent", "cuStreamGetCaptureInfo_v4", "cuStreamUpdateCaptureDependencies",
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
