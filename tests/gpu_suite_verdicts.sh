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
command -v bash > /dev/null 2>&1 || skip "no bash"
command -v timeout > /dev/null 2>&1 || skip "no timeout command (the scripts need it)"
fake_nvidia_smi "$WORK/gpu" yes
fake_nvidia_smi "$WORK/nogpu" no
APPS="$WORK/build/kernels/apps"
mkdir -p "$APPS" "$WORK/build/.libs"
fake_member "$WORK/python"
for app in launch_loop launch_loop_ptds launch_api two_streams bad_launch overhead_loop host_flag_wait cg_blas; do
    fake_member "$APPS/$app.gpu"
done
# The build's library as the suite names it: an empty file, which the loader leaves out with a warning (the fake
# Python sees LD_PRELOAD set, and whether a sanitizer build's shim could load in a shell does not matter here).
: > "$WORK/build/.libs/libreprise.so"

# Runs "$@" (a script and its arguments) as run $1 with the fake nvidia-smi of folder $2, PYTHON the fake and
# the environment of FAKE_ENV ("NAME=VALUE ..."); its output in $WORK/$1.out, its exit status in $WORK/$1.status.
fake_run() {
    name=$1 bin=$2
    shift 2
    status=0
    env -u GPU_SUITE_PARTS -u GPU_SUITE_BUDGET -u OUT -u GPU_SUITE_KEEP -u REPRISE_TEST_SHIM PATH="$bin:$PATH" \
        PYTHON="$WORK/python" ${FAKE_ENV:-} bash "$@" > "$WORK/$name.out" 2>&1 || status=$?
    echo "$status" > "$WORK/$name.status"
}

# Passes if run $1 exited $2.
expect_status() {
    [ "$(cat "$WORK/$1.status")" -eq "$2" ] ||
        { fail "run $1: exit $(cat "$WORK/$1.status"), expected $2"; tail -30 "$WORK/$1.out" | sed 's/^/  | /' >&2; }
}

suite="$top_srcdir/tools/dev/gpu-suite"
FAKE_ENV="GPU_SUITE_PARTS=torch,torch_robust" fake_run suite_nogpu "$WORK/nogpu" "$suite" "$WORK/build"
expect_status suite_nogpu 77
# The fake Python has no torch (its -c exits 0 but prints nothing): require_torch's probe must fail, so PYTHON=false.
FAKE_ENV="GPU_SUITE_PARTS=torch,torch_robust PYTHON=false" fake_run suite_skipped "$WORK/gpu" "$suite" "$WORK/build"
expect_status suite_skipped 1
expect_in "$WORK/suite_skipped.out" "0 passed, 0 failed, 2 skipped"
expect_in "$WORK/suite_skipped.out" "no part passed"
FAKE_ENV="GPU_SUITE_PARTS=torch,no_such_part" fake_run suite_unknown "$WORK/gpu" "$suite" "$WORK/build"
expect_status suite_unknown 2
expect_in "$WORK/suite_unknown.out" "no part 'no_such_part'"
FAKE_ENV="GPU_SUITE_PARTS=cold_compile" fake_run suite_cold "$WORK/gpu" "$suite" "$WORK/build"
expect_status suite_cold 0
expect_in "$WORK/suite_cold.out" "cold_compile: shim: exit 0, token ids identical: yes, regions replayed: 10"
expect_in "$WORK/suite_cold.out" "1 passed, 0 failed, 0 skipped"

cold="$top_srcdir/tests/gpu/cold_compile.sh"
fake_run cold_nolib "$WORK/gpu" "$cold"
expect_status cold_nolib 2
fake_run cold_nogpu "$WORK/nogpu" "$cold" "shim=$PRELOAD"
expect_status cold_nogpu 77
fake_run cold_pass "$WORK/gpu" "$cold" "shim=$PRELOAD"
expect_status cold_pass 0
FAKE_ENV="FAKE_BEHAVIOUR=zoo_generate.py:static=followed" fake_run cold_none "$WORK/gpu" "$cold" "shim=$PRELOAD"
expect_status cold_none 1
expect_in "$WORK/cold_none.out" "regions replayed: 0 (expected at least 1)"
FAKE_ENV="FAKE_BEHAVIOUR=zoo_generate.py:static=differ" fake_run cold_differ "$WORK/gpu" "$cold" "shim=$PRELOAD"
expect_status cold_differ 1
expect_in "$WORK/cold_differ.out" "token ids identical: no"
finish
