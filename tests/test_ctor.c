/* SPDX-License-Identifier: MIT */
/* Checks that a runtime call made from another library's constructor went through. */
#include "config.h"

#include <stdio.h>

#include "hooks.h"
#include "recorder.h"

extern int ctor_result;

int main(void)
{
    int expect = recorder_result(HOOK_ID_cudaStreamQuery);
    printf("constructor got %d, expected %d; recorder saw %llu calls\n", ctor_result, expect,
           recorder_calls(HOOK_ID_cudaStreamQuery));
    return ctor_result == expect && recorder_calls(HOOK_ID_cudaStreamQuery) == 1 ? 0 : 1;
}
