/* SPDX-License-Identifier: MIT */
/* Unit tests of REPRISE_EXCLUDE_KERNELS matching and of splitting the user's lists. */
#include "config.h"

#include <string.h>

#include "check.h"
#include "patterns.h"

int main(void)
{
    CHECK(name_matches_any("k_axpy", "k_axpy"));
    CHECK(name_matches_any("k_axpy", "matmul*, k_*"));
    CHECK(name_matches_any("gemm_128x64", "foo,gemm_*"));
    CHECK(!name_matches_any("k_axpy", "k_scale,matmul*"));
    CHECK(!name_matches_any("k_axpy", ""));
    CHECK(!name_matches_any(NULL, "*"));
    CHECK(name_matches_any("anything", " * "));
    CHECK(!name_matches_any("k_axpy_x", "k_axpy"));
    CHECK(name_matches_any("_Z6k_axpyfPKfPfi", "*k_axpy*"));

    /* Items come without the spaces around them; empty ones are skipped; len 0 ends the list. */
    const char *p = " a , bc,, d e ,", *item;
    size_t len;
    item = list_next_item(&p, &len);
    CHECK(len == 1 && strncmp(item, "a", len) == 0);
    item = list_next_item(&p, &len);
    CHECK(len == 2 && strncmp(item, "bc", len) == 0);
    item = list_next_item(&p, &len);
    CHECK(len == 3 && strncmp(item, "d e", len) == 0);
    item = list_next_item(&p, &len);
    CHECK(len == 0);
    return check_result("test_patterns");
}
