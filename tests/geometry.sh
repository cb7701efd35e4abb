#!/bin/sh
# SPDX-License-Identifier: MIT
# Regions whose geometry or kernel changes (issue 25, item 3): growing's iterations differ only in their kernels'
# grids and their copy's and memset's sizes (a decode loop's shape), so they are one region, replayed with
# its changed nodes patched, bit-identical to the run without the shim; the one launch whose geometry the
# driver refuses (2048 threads a block, at iteration 25) passes through, and the program gets its error
# from the launch itself (the expected output counts it); the log names the refused geometry.
# variants: a launch alternating between two kernels of the same parameters (k_fill, k_scale) is one region
# whose node takes either (engine_call.c, launch_takes_node); without that, each variant is a region of its own.
# layouts: a launch choosing among three kernels whose parameters differ is one region whose node runs each
# (kernel_node_takes); without that, each kernel is a region of its own, each falling back at the others'.
# reshaped: a launch's new grid first held in an occurrence that falls back, then taken by the fast path,
# which trusts its record slot: the graph's node must be patched all the same (region_graph.c).
. "${top_srcdir:-.}/tests/lib.sh"
SCEN="$top_builddir/tests/scenarios"
EXPECTED="$top_srcdir/tests/standin/expected"
LIMIT=
command -v timeout > /dev/null 2>&1 && LIMIT="timeout 60"

# Runs growing under the shim with the options given; $1 names the run.
run_growing() {
    name=$1
    shift
    $LIMIT env REPRISE_TRIAL=0 REPRISE_MIN_REGION_CALLS=1 REPRISE_LOG=info REPRISE_STATS=1 "$@" \
        LD_PRELOAD="$PRELOAD" "$SCEN/growing" > "$WORK/$name.out" 2> "$WORK/$name.log" ||
        fail "growing ($name) exited $?"
    cmp -s "$EXPECTED/growing.out" "$WORK/$name.out" || {
        fail "growing ($name): output differs from the run without the shim"
        diff "$EXPECTED/growing.out" "$WORK/$name.out" | head -10 >&2
    }
}

# The number of replays the exit summary gives region 2 in log $1.
replays_of_region2() {
    sed -n 's/.*region 2 (thread 1, 9 calls): [0-9]* occurrences, \([0-9]*\) replays.*/\1/p' "$1"
}

run_growing fast
replays=$(replays_of_region2 "$WORK/fast.log")
# 40 iterations: 2 sightings, 2 recordings, then replays but for the refused launch's occurrence and the 2
# sightings after it: 33.  Fewer than 30 means geometry still splits the region.
[ -n "$replays" ] && [ "$replays" -ge 30 ] || fail "growing: region 2 replayed ${replays:-no} times of 39, want 30 or more"
expect_in "$WORK/fast.log" "region 2: replayed as a graph (9 calls in one launch, 8 nodes patched)"
expect_in "$WORK/fast.log" "mismatch: cudaLaunchKernel with grid 25x1x1, block 2048x1x1, 0 bytes of shared memory, which the driver refuses"
expect_not_in "$WORK/fast.log" "graph error"

# The debug log describes a graph's first two replays that patch: growing's change their launches' geometry,
# a float passed by value (k_fill's value) and their copy's and memset's sizes; rotating_args' only the
# addresses its kernels are given.
run_growing describe REPRISE_LOG=debug
grep 'region 2: this replay patches' "$WORK/describe.log" > "$WORK/describe.lines"
[ "$(wc -l < "$WORK/describe.lines")" -eq 2 ] || fail "growing: not 2 replays' patches described: $(cat "$WORK/describe.lines")"
grep -v 'patches 8 of 9 nodes: 0 launches whose changed parameters are all addresses, [1-9] with other parameters changed (node [0-9] (k_fill) parameter 1: 0x[0-9a-f]* -> 0x[0-9a-f]*), [1-9] with another geometry or kernel, 2 copies, sets or host functions' \
    "$WORK/describe.lines" && fail "growing: a replay's patches described otherwise than by their parameters, geometry and sizes"
$LIMIT env REPRISE_TRIAL=0 REPRISE_LOG=debug LD_PRELOAD="$PRELOAD" "$SCEN/rotating_args" > /dev/null 2> "$WORK/rotating.log" ||
    fail "rotating_args exited $?"
grep 'this replay patches' "$WORK/rotating.log" | head -1 |
    grep -q ': [1-9][0-9]* launches whose changed parameters are all addresses (node [0-9]* (k_[a-z_]*) parameter [0-9]*: 0x[0-9a-f]* -> 0x[0-9a-f]*), 0 with other parameters changed, 0 with another geometry or kernel' ||
    fail "rotating_args: its replay's patches are not described as addresses: $(grep -m1 'this replay patches' "$WORK/rotating.log")"

# One executable instance only (every replay patches the instance launched last), and several scheduler seeds.
for seed in 1 2 3; do
    run_growing "one_instance.$seed" REPRISE_GRAPH_INSTANCES=1 STANDIN_SEED=$seed
done
replays=$(replays_of_region2 "$WORK/one_instance.1.log")
[ -n "$replays" ] && [ "$replays" -ge 30 ] || fail "growing, one instance: ${replays:-no} replays"

# The robust path re-captures each occurrence, whatever its geometry: the same results.
run_growing robust REPRISE_REPLAY=robust
expect_in "$WORK/robust.log" "region 2: replayed on the robust path"
# reshaped, under several scheduler seeds: the same results as without the shim, and replayed after the
# occurrence that fell back (without the node's patch, y differs).
for seed in 1 2 3; do
    $LIMIT env REPRISE_TRIAL=0 REPRISE_MIN_REGION_CALLS=1 REPRISE_LOG=info STANDIN_SEED=$seed LD_PRELOAD="$PRELOAD" \
        "$SCEN/reshaped" > "$WORK/reshaped.$seed.out" 2> "$WORK/reshaped.$seed.log" || fail "reshaped exited $?"
    cmp -s "$EXPECTED/reshaped.out" "$WORK/reshaped.$seed.out" ||
        fail "reshaped (seed $seed): output differs from the run without the shim"
done
expect_in "$WORK/reshaped.1.log" "region 2: fell back after 2 of 4 calls (allocation: cudaMalloc)"
expect_in "$WORK/reshaped.1.log" "region 2: replayed as a graph"

# variants: the same results as without the shim; a replayed region's node takes the other kernel
# (launch_takes_node, while a graph takes the calls: not while recording), so that no replay falls back at the
# other variant, and 36 or more of the 48 iterations are replayed (39; without, 37 and a mismatch's fallback).
for seed in 1 2; do
    $LIMIT env REPRISE_TRIAL=0 REPRISE_MIN_REGION_CALLS=1 REPRISE_LOG=info REPRISE_STATS=1 STANDIN_SEED=$seed \
        LD_PRELOAD="$PRELOAD" "$SCEN/variants" > "$WORK/variants.$seed.out" 2> "$WORK/variants.$seed.log" ||
        fail "variants exited $?"
    cmp -s "$EXPECTED/variants.out" "$WORK/variants.$seed.out" ||
        fail "variants (seed $seed): output differs from the run without the shim"
done
replays=$(replays_in "$WORK/variants.1.log")
[ "$replays" -ge 36 ] || fail "variants: $replays replays, want 36 or more"
grep "occurrences.*fallbacks:.*mismatch" "$WORK/variants.1.log" && fail "variants: a replay fell back at the other kernel"

# layouts: the same results as without the shim, with one executable instance or several, under several
# scheduler seeds; one region (region 2) replayed in at least 50 of the 60 iterations, no fallback, one graph
# (without, three regions replay 37 times and fall back 3 times).  Seeds 2 and 3 crashed (a kernel run with
# another's parameters) before a slot taken anew with another kernel's block trimmed the fast path's slots
# after it (engine_call.c's arena_place).
for run in 1:4 2:4 3:1; do
    seed=${run%:*}
    $LIMIT env REPRISE_TRIAL=0 REPRISE_MIN_REGION_CALLS=1 REPRISE_LOG=info REPRISE_STATS=1 STANDIN_SEED=$seed \
        REPRISE_GRAPH_INSTANCES=${run#*:} LD_PRELOAD="$PRELOAD" "$SCEN/layouts" > "$WORK/layouts.$seed.out" \
        2> "$WORK/layouts.$seed.log" || fail "layouts exited $?"
    cmp -s "$EXPECTED/layouts.out" "$WORK/layouts.$seed.out" ||
        fail "layouts (seed $seed): output differs from the run without the shim"
    replays=$(sed -n 's/.*region 2 (thread 1, 4 calls): [0-9]* occurrences, \([0-9]*\) replays.*fallbacks: none$/\1/p' \
        "$WORK/layouts.$seed.log")
    [ -n "$replays" ] && [ "$replays" -ge 50 ] ||
        fail "layouts (seed $seed): region 2 replayed ${replays:-no} times without a fallback, want 50 or more"
    expect_in "$WORK/layouts.$seed.log" "graphs: 1 built, 1 replayed at least once"
done
finish
