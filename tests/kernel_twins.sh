#!/bin/sh
# SPDX-License-Identifier: MIT
# Kernel twins (shim/device/kernel_params.c, kernel_twin_of): plan_per_size (tests/scenarios/plan_per_size.c), a
# decode loop whose attention-like kernel comes from a module loaded per size, as cuDNN's plans under Hugging
# Face generate() with a dynamic cache: the same kernel under a new handle every token.
# - Named by its handle, every token was a region of its own, seen once a call: 3 calls of 16 tokens, no
#   replay. Named by its twin (the first live kernel of its name, layout and context), the tokens are one
#   region, replayed, its node given each token's handle: 20 or more replays, the same results as without
#   the shim, under two scheduler seeds.
# - Plans unloaded while graphs may hold their kernels (CACHE 4: the least recently used beyond 4 unloaded,
#   and loaded again in the next call, also with the stand-in's handles given out again): the same results,
#   no crash (the stand-in aborts when a graph holding an unloaded kernel is launched), and a twin that goes
#   names nothing any more: the next kernel of its kind takes its name.
. "${top_srcdir:-.}/tests/lib.sh"
SCEN="$top_builddir/tests/scenarios"
EXPECTED="$top_srcdir/tests/standin/expected"
LIMIT=
command -v timeout > /dev/null 2>&1 && LIMIT="timeout 120"

# Runs plan_per_size (arguments $2...) under auto (no trial: the stand-in's timings decide nothing), log to $WORK/$1.log, and compares it with a run without the shim.
run_plans() {
    name=$1
    shift
    $LIMIT "$SCEN/plan_per_size" "$@" > "$WORK/$name.plain" 2>&1 || fail "plan_per_size $* without the shim exited $?"
    $LIMIT env REPRISE_LOG=info REPRISE_STATS=1 REPRISE_TRIAL=0 REPRISE_LOG_FILE="$WORK/$name.log" \
        LD_PRELOAD="$PRELOAD" "$SCEN/plan_per_size" "$@" > "$WORK/$name.out" 2> "$WORK/$name.err" || fail "plan_per_size $* exited $?"
    cmp -s "$WORK/$name.plain" "$WORK/$name.out" || fail "plan_per_size $* ($name): output differs from the run without the shim"
}

for seed in 1 2; do
    STANDIN_SEED=$seed run_plans "default.$seed"
    cmp -s "$EXPECTED/plan_per_size.out" "$WORK/default.$seed.plain" ||
        fail "plan_per_size: the stand-in's output differs from the one recorded (tests/standin/expected)"
done
replays=$(replays_in "$WORK/default.1.log")
[ "$replays" -ge 20 ] || fail "plan_per_size: $replays replays in 3 calls of 16 tokens, want 20 or more"
expect_not_in "$WORK/default.1.log" "fell back"

for reuse in 0 1; do
    STANDIN_REUSE_HANDLES=$reuse run_plans "cache4.$reuse" 3 16 4
done
finish
