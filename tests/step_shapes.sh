#!/bin/sh
# SPDX-License-Identifier: MIT
# Shapes of one step learnt once (issue 39, item 4; docs/design.md, "Regions whose geometry changes"):
# tests/scenarios/step_shapes is a training-step-like loop whose batches come in three sizes in turn (grids of
# 510, 508 and 512 blocks, its inputs' and targets' copies from pageable memory of three sizes, the host buffers
# overwritten right after each copy), a loss read back at one sync a step.  Under auto it is one region: one
# graph built, replayed in at least 50 of its 60 steps, no fallback; the graph built from the 510-block batch
# re-plans its staging buffer when the 512-block batch comes (the debug log says so); the output is the run's
# without the shim, for several scheduler seeds, with one executable instance or several, and on the robust
# path.  Before, a copy's size from pageable memory was in the signature: three regions, each falling back at
# the others' sizes.
. "${top_srcdir:-.}/tests/lib.sh"
PROG="$top_builddir/tests/scenarios/step_shapes"
[ -x "$PROG" ] || { fail "$PROG is not built"; finish; }
LIMIT=
command -v timeout > /dev/null 2>&1 && LIMIT="timeout 60"

"$PROG" > "$WORK/plain" 2>&1 || fail "step_shapes without the shim exited $?"
grep -q "^error" "$WORK/plain" && fail "step_shapes without the shim: $(grep -m1 "^error" "$WORK/plain")"

# Runs step_shapes under the shim with REPRISE_* options $2... into $WORK/$1.out and .log: the same output.
run() {
    name=$1
    shift
    $LIMIT env REPRISE_TRIAL=0 REPRISE_LOG=info REPRISE_STATS=1 "$@" LD_PRELOAD="$PRELOAD" "$PROG" \
        > "$WORK/$name.out" 2> "$WORK/$name.log" || fail "step_shapes ($name) exited $?"
    cmp -s "$WORK/plain" "$WORK/$name.out" || {
        fail "step_shapes ($name): output differs from the run without the shim"
        diff "$WORK/plain" "$WORK/$name.out" | head -6 >&2
    }
}

for run in 1:4 2:4 3:1; do
    seed=${run%:*}
    run "seed$seed" STANDIN_SEED=$seed REPRISE_GRAPH_INSTANCES=${run#*:} REPRISE_LOG=debug
    log="$WORK/seed$seed.log"
    graphs=$(grep -c 'graph built' "$log")
    replays=$(replays_in "$log")
    echo "seed $seed: $graphs graphs built, $replays replays"
    [ "$graphs" -eq 1 ] || fail "step_shapes (seed $seed): $graphs graphs built, want 1 (one region for the three shapes)"
    [ "$replays" -ge 50 ] || fail "step_shapes (seed $seed): $replays replays of 60 steps, want 50 or more"
    grep 'fell back' "$log" && fail "step_shapes (seed $seed): a step fell back"
    expect_in "$log" "fallbacks: none"
    expect_in "$log" "staging buffer re-planned for a larger copy from pageable memory"
done

# The robust path re-captures each step whatever its sizes: the same results.
run robust REPRISE_REPLAY=robust
expect_in "$WORK/robust.log" "region 1: replayed on the robust path"
finish
