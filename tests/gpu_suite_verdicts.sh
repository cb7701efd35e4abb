#!/bin/sh
# SPDX-License-Identifier: MIT
# tools/dev/gpu-suite's and tests/gpu/cold_compile.sh's verdicts without a GPU (issue 40: a GPU suite that cannot
# pass by skipping), with a fake nvidia-smi and a fake build whose programs and Python are fakes
# (tests/fake_gpu.sh).  Asserts that
#   - gpu-suite skips (77) where nvidia-smi sees no GPU, fails (1) where it sees one but every part skipped, and
#     stops (2) at a part name that does not exist;
#   - gpu-suite's cold_compile part runs the program under the build's libreprise.so, and passes;
#   - cold_compile.sh stops (2) without a library to preload, skips (77) without a GPU, passes when the shim run
#     is identical and its log shows a region replayed, and fails (1) when it shows none.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/fake_gpu.sh"
fake_gpu_setup
fake_member "$WORK/python"
for app in launch_loop launch_loop_ptds launch_api two_streams bad_launch overhead_loop host_flag_wait cg_blas; do
    fake_member "$APPS/$app.gpu"
done
# The build's library as the suite names it: an empty file, which the loader leaves out with a warning (the fake
# Python sees LD_PRELOAD set, and whether a sanitizer build's shim could load in a shell does not matter here).
: > "$WORK/build/.libs/libreprise.so"

# Runs "$@" (a script and its arguments) as run $1 with the fake nvidia-smi of folder $2, PYTHON the fake and
# the environment of FAKE_ENV ("NAME=VALUE ..."), into $WORK/$1.out and $WORK/$1.status; passes if it exits $3
# and, unless $4 is empty, says $4.
expect_run() {
    name=$1 bin=$2 want=$3 says=$4
    shift 4
    status=0
    env -u GPU_SUITE_PARTS -u GPU_SUITE_BUDGET -u OUT -u GPU_SUITE_KEEP -u REPRISE_TEST_SHIM PATH="$bin:$PATH" \
        PYTHON="$WORK/python" ${FAKE_ENV:-} bash "$@" > "$WORK/$name.out" 2>&1 || status=$?
    echo "$status" > "$WORK/$name.status"
    expect_status "$name" "$want"
    [ -z "$says" ] || expect_in "$WORK/$name.out" "$says"
}

suite="$top_srcdir/tools/dev/gpu-suite"
FAKE_ENV="GPU_SUITE_PARTS=torch,torch_robust" expect_run suite_nogpu "$WORK/nogpu" 77 "" "$suite" "$WORK/build"
# The fake Python has no torch (its -c exits 0 but prints nothing): require_torch's probe must fail, so PYTHON=false.
FAKE_ENV="GPU_SUITE_PARTS=torch,torch_robust PYTHON=false" expect_run suite_skipped "$WORK/gpu" 1 \
    "0 passed, 0 failed, 2 skipped" "$suite" "$WORK/build"
expect_in "$WORK/suite_skipped.out" "no part passed"
FAKE_ENV="GPU_SUITE_PARTS=torch,no_such_part" expect_run suite_unknown "$WORK/gpu" 2 "no part 'no_such_part'" \
    "$suite" "$WORK/build"
FAKE_ENV="GPU_SUITE_PARTS=cold_compile" expect_run suite_cold "$WORK/gpu" 0 \
    "cold_compile: shim: exit 0, token ids identical: yes, regions replayed: 10" "$suite" "$WORK/build"
expect_in "$WORK/suite_cold.out" "1 passed, 0 failed, 0 skipped"

cold="$top_srcdir/tests/gpu/cold_compile.sh"
expect_run cold_nolib "$WORK/gpu" 2 "no NAME=LIBRARY" "$cold"
expect_run cold_nogpu "$WORK/nogpu" 77 "" "$cold" "shim=$PRELOAD"
expect_run cold_pass "$WORK/gpu" 0 "token ids identical: yes, regions replayed: 10" "$cold" "shim=$PRELOAD"
FAKE_ENV="FAKE_BEHAVIOUR=zoo_generate.py:static=followed" expect_run cold_none "$WORK/gpu" 1 \
    "regions replayed: 0 (expected at least 1)" "$cold" "shim=$PRELOAD"
FAKE_ENV="FAKE_BEHAVIOUR=zoo_generate.py:static=differ" expect_run cold_differ "$WORK/gpu" 1 \
    "token ids identical: no" "$cold" "shim=$PRELOAD"
finish
