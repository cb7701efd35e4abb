/* SPDX-License-Identifier: MIT */
/*
 * Calls every hooked function once with distinctive arguments and checks that
 * the fake runtime behind the shim received exactly those arguments and that
 * its return code came back unchanged.  Run with and without the shim
 * preloaded (tests/forwarding.sh); with EXPECT_SHIM=1 it also checks that
 * every hooked name resolves to the shim.
 */
#include "config.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdlib.h>

#include "check.h"
#include "each_arg.h"
#include "hooks.h"
#include "recorder.h"

/* Zeroed memory that every filled-in pointer argument points into. */
static unsigned char scratch[64 * 16];
static unsigned fill_counter;

/* Fills an argument with copies of a distinct pointer into scratch. */
static void fill_arg(void *p, size_t n)
{
    const unsigned char *src = scratch + 64 * (fill_counter++ % 16);
    for (size_t i = 0; i < n; i++)
        ((unsigned char *)p)[i] = ((const unsigned char *)&src)[i % sizeof src];
}

#define DECLARE_PARAM(decl) decl;
#define FILL_ARG(x) fill_arg(&(x), sizeof(x));

/* Checks that the symbol the program binds to is the shim's. */
static void check_resolves_to_shim(const char *name)
{
    Dl_info info;
    void *sym = dlsym(RTLD_DEFAULT, name);
    CHECK(sym != NULL);
    if (sym && dladdr(sym, &info) && info.dli_fname) {
        if (strstr(info.dli_fname, "libreprise") == NULL) {
            fprintf(stderr, "%s resolves to %s, not the shim\n", name, info.dli_fname);
            CHECK(0);
        }
    }
}

#define HOOK(kind, name, params, args, stream)                                                              \
    static void call_##name(bool expect_shim)                                                               \
    {                                                                                                       \
        FOR_EACH_IF_ANY(args, DECLARE_PARAM, params)                                                        \
        FOR_EACH_IF_ANY(args, FILL_ARG, args)                                                               \
        unsigned long long h = FNV_SEED, got_hash = 0;                                                      \
        FOR_EACH_IF_ANY(args, HASH_ARG, args)                                                               \
        unsigned long long before = recorder_calls(HOOK_ID_##name);                                         \
        cudaError_t result = name args;                                                                     \
        int id = recorder_last(&got_hash);                                                                  \
        if (result != recorder_result(HOOK_ID_##name) || id != HOOK_ID_##name || got_hash != h ||           \
            recorder_calls(HOOK_ID_##name) != before + 1) {                                                 \
            fprintf(stderr, "%s: result %d (want %d), recorded id %d (want %d), hash %s\n", #name,          \
                    (int)result, (int)recorder_result(HOOK_ID_##name), id, HOOK_ID_##name,                  \
                    got_hash == h ? "same" : "DIFFERENT");                                                  \
            CHECK(0);                                                                                       \
        } else {                                                                                            \
            CHECK(1);                                                                                       \
        }                                                                                                   \
        if (expect_shim)                                                                                    \
            check_resolves_to_shim(#name);                                                                  \
        printf("called %s\n", #name);                                                                       \
    }
#include "hooks.def"
#undef HOOK

int main(void)
{
    const char *expect = getenv("EXPECT_SHIM");
    bool expect_shim = expect && strcmp(expect, "1") == 0;
#define HOOK(kind, name, params, args, stream) call_##name(expect_shim);
#include "hooks.def"
#undef HOOK
    CHECK(check_count >= HOOK_COUNT);
    return check_result("test_forwarding");
}
