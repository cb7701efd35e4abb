#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/gpu/zoo.sh's verdicts without a GPU (issue 40: a zoo that cannot pass by skipping): a fake nvidia-smi
# that lists a GPU, a fake Python and fake programs in a fake build (tests/fake_gpu.sh) playing the members, with
# the zoo's own tables (ZOO_RUNS, ZOO_EXPECT, ZOO_MAY_SKIP).  Asserts that
#   - members that are identical and replay as ZOO_EXPECT asks pass, and so does an aside member whose log shows
#     a region and a none member (compile_ro) that replays nothing; a JAX member without JAX's GPU backend is a skip (ZOO_MAY_SKIP), the zoo exit 0;
#     hf_compile_tf32off runs 5 times under auto and 5 under robust, never under off;
#   - a member replaying fewer regions than asked, an aside member whose log shows none, a none member that replays, a member not built, one
#     that skips itself (unless ZOO_MAY_SKIP allows it, for its reason), one whose stdout differs and one killed
#     by a signal each fail, the zoo exit 1;
#   - a zoo in which every member skipped fails (exit 1); without a GPU it skips (77).
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/fake_gpu.sh"
fake_gpu_setup
ln -s "$(cd "$(dirname "$SHIM")" && pwd)/${SHIM##*/}" "$WORK/build/.libs/libreprise.so"
fake_member "$WORK/python"
for prog in decode_loop.gpu lt_gemm.gpu; do
    fake_member "$APPS/$prog"
done

# Runs the zoo on the fakes as run $1 with the fake nvidia-smi of folder $2 and the environment "$@" after them;
# its output in $WORK/$1.out, its exit status in $WORK/$1.status.
zoo() {
    name=$1 bin=$2
    shift 2
    status=0
    env -u ZOO_REPEAT -u ZOO_PLAIN_TWICE -u ZOO_FRESH_CACHE -u PART_LIMIT -u OUT -u GPU_SUITE_KEEP \
        -u REPRISE_TEST_SHIM PATH="$bin:$PATH" top_builddir="$WORK/build" PYTHON="$WORK/python" ZOO_BUDGET=900 \
        ZOO_JOBS=2 "$@" bash "$top_srcdir/tests/gpu/zoo.sh" > "$WORK/$name.out" 2>&1 || status=$?
    echo "$status" > "$WORK/$name.status"
}

# Passes if run $1 says member $2's verdict is $3 (PASS, FAIL or SKIP) and, if given, says $4 in it or its rows.
expect_verdict() {
    grep -qE "^$2: $3" "$WORK/$1.out" ||
        { fail "zoo run $1: $2 is not $3: $(grep "^$2: " "$WORK/$1.out")"; return; }
    [ -z "${4:-}" ] || grep -E "^$2(:| )" "$WORK/$1.out" | grep -qF -- "$4" ||
        fail "zoo run $1: $2's verdict and rows do not say: $4"
}

zoo pass "$WORK/gpu" ZOO_MEMBERS="hf_compile_tf32off compile_ro jax_eager decode_loop" \
    FAKE_BEHAVIOUR="zoo_jax.py:eager=skipjax zoo_compile.py:reduce-overhead=silent"
expect_status pass 0
expect_verdict pass hf_compile_tf32off PASS
expect_verdict pass compile_ro PASS
expect_verdict pass jax_eager SKIP "allowed: JAX"
expect_verdict pass decode_loop PASS
n=$(grep -cE '^hf_compile_tf32off +(auto|robust)\.[1-5] +yes +0 +10 ' "$WORK/pass.out")
[ "$n" -eq 10 ] || fail "hf_compile_tf32off: $n identical runs under auto and robust with their replays, expected 10"
expect_not_in "$WORK/pass.out" "hf_compile_tf32off: off"
grep -qE '^hf_compile_tf32off +off' "$WORK/pass.out" && fail "hf_compile_tf32off ran under off"

zoo fail "$WORK/gpu" ZOO_JOBS=3 ZOO_MEMBERS="lt_gemm compile_ro triton_loop lt_gemm_static cupy_loop jax_eager jax_jit hf_dynamic" \
    FAKE_BEHAVIOUR="lt_gemm.gpu=followed triton_loop.py:eager=silent cupy_loop.py:eager=skip \
zoo_jax.py:eager=skipnogpu zoo_jax.py:jit=differ zoo_generate.py:dynamic=crash"
expect_status fail 1
expect_verdict fail lt_gemm FAIL "0 region(s) replayed, expected at least 1"
expect_verdict fail compile_ro FAIL "expected none"
expect_verdict fail triton_loop FAIL "its log shows no region"
expect_verdict fail lt_gemm_static FAIL "is not built"
expect_verdict fail cupy_loop FAIL "skipped itself without the shim"
expect_verdict fail jax_eager FAIL "JAX sees no GPU"
expect_verdict fail jax_jit FAIL "stdout differs"
expect_verdict fail hf_dynamic FAIL "killed by SIGABRT"

zoo skipped "$WORK/gpu" ZOO_MEMBERS="jax_eager jax_jit" FAKE_BEHAVIOUR="zoo_jax.py:eager=skipjax zoo_jax.py:jit=skipjax"
expect_status skipped 1
expect_in "$WORK/skipped.out" "no member passed"

zoo nogpu "$WORK/nogpu" ZOO_MEMBERS="decode_loop"
expect_status nogpu 77
finish
