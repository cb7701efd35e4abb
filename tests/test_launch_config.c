/* SPDX-License-Identifier: MIT */
/* In auto mode the shim keeps the <<<>>> call configuration itself: pops return the pushes in LIFO order, and the runtime sees none of them until its stack is full. */
#include "config.h"

#include <stdint.h>

#include "check.h"
#include "hooks.h"
#include "recorder.h"

int main(void)
{
    enum { PUSHES = 20, KEPT = 16 };
    for (unsigned i = 0; i < PUSHES; i++) {
        dim3 grid = {i + 1, 2, 3}, block = {32 + i, 1, 1};
        cudaError_t r = __cudaPushCallConfiguration(grid, block, 100 + i, (cudaStream_t)(uintptr_t)(0x1000 + i));
        /* The pushes beyond the shim's stack reach the runtime, which answers for them. */
        CHECK(r == (i < KEPT ? cudaSuccess : recorder_result(HOOK_ID___cudaPushCallConfiguration)));
    }
    CHECK(recorder_calls(HOOK_ID___cudaPushCallConfiguration) == PUSHES - KEPT);
    for (unsigned i = PUSHES; i-- > 0;) {
        dim3 grid = {0, 0, 0}, block = {0, 0, 0};
        size_t shared = 0;
        cudaStream_t stream = NULL;
        cudaError_t r = __cudaPopCallConfiguration(&grid, &block, &shared, &stream);
        if (i >= KEPT) {
            CHECK(r == recorder_result(HOOK_ID___cudaPopCallConfiguration));
            continue;
        }
        CHECK(r == cudaSuccess);
        CHECK(grid.x == i + 1 && grid.y == 2 && grid.z == 3);
        CHECK(block.x == 32 + i && block.y == 1);
        CHECK(shared == 100 + i);
        CHECK(stream == (cudaStream_t)(uintptr_t)(0x1000 + i));
    }
    CHECK(recorder_calls(HOOK_ID___cudaPopCallConfiguration) == PUSHES - KEPT);
    /* A pop with nothing pushed goes to the runtime. */
    dim3 g, b;
    size_t sh;
    cudaStream_t st;
    CHECK(__cudaPopCallConfiguration(&g, &b, &sh, &st) == recorder_result(HOOK_ID___cudaPopCallConfiguration));
    return check_result("test_launch_config");
}
