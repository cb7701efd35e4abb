/* Unit tests of REPRISE_EXCLUDE_KERNELS matching. */
#include "config.h"

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
    return check_result("test_patterns");
}
