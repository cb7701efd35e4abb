#!/bin/sh
# SPDX-License-Identifier: MIT
# Programmatic dependent launch (issue 25): a GEMM-like library launching through cuLaunchKernelEx with
# CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION between the program's kernels, and the program's own
# programmatic launch through cudaLaunchKernelExC (tests/scenarios/pdl_library).  Without the shim, the output is
# the one recorded (on the stand-in) for several scheduler seeds.  Under auto, the same output for several seeds
# (the stand-in runs graph nodes in a seeded random order: a missing edge shows, and so does a programmatic edge
# where a full one belongs: the program's last kernel does not wait for its primary), every launch of the region
# held back and graphed, 4 of them joined to the kernel node before them by a programmatic edge (the library's
# first launch after the copy gets a full edge: the stand-in refuses a programmatic one from a copy, and the graph
# would not build; the driver counts 7 edges, 4 programmatic), and the region replayed at every occurrence after
# it was built, never falling back.  With a programmatic event on the program's launch, that launch is a
# boundary, and the log names the attribute once.
. "${top_srcdir:-.}/tests/lib.sh"
PROG="$top_builddir/tests/scenarios/pdl_library"
[ -x "$PROG" ] || { echo "$PROG is not built" >&2; exit 99; }

"$PROG" > "$WORK/plain.out" || fail "pdl_library without the shim exited $?"
diff -u "$top_srcdir/tests/standin/expected/pdl_library.out" "$WORK/plain.out" > "$WORK/diff" ||
    { fail "pdl_library differs from tests/standin/expected/pdl_library.out (- expected, + now):"; head -10 "$WORK/diff" >&2; }
for seed in 2 3 5; do
    STANDIN_SEED=$seed "$PROG" > "$WORK/plain.$seed.out" || fail "seed $seed without the shim exited $?"
    cmp -s "$WORK/plain.out" "$WORK/plain.$seed.out" || fail "seed $seed changed the output without the shim"
done

for seed in 1 2 3 5; do
    with_shim REPRISE_LOG=debug REPRISE_TRIAL=0 REPRISE_STATS=on STANDIN_SEED=$seed "$PROG" \
        > "$WORK/auto.$seed.out" 2> "$WORK/auto.$seed.log" || fail "auto (seed $seed) exited $?"
    cmp -s "$WORK/plain.out" "$WORK/auto.$seed.out" ||
        { fail "auto (seed $seed): output differs from the run without the shim"; diff "$WORK/plain.out" "$WORK/auto.$seed.out" | head -5 >&2; }
done
log="$WORK/auto.1.log"
expect_in "$log" "graph of 8 calls on 1 streams: 4 programmatic dependent launches after a kernel node, each joined to it by a programmatic edge"
# The driver's own count of the graph's edges (cuGraphGetEdges_v2): a chain, the 4 programmatic among them.
expect_in "$log" "graph of 8 calls on 1 streams: 8 nodes, 7 edges (4 programmatic)"
expect_in "$log" "region 2: replayed as a graph (8 calls in one launch"
expect_in "$log" "region 2 (thread 1, 8 calls): 39 occurrences, 35 replays (0 re-captured)"
expect_in "$log" "fallbacks: none"
expect_not_in "$log" "fell back"
expect_not_in "$log" "which the shim does not hold back"
# The first programmatic dependent launch is named once (the library's, through cuLaunchKernelEx).
expect_count "$log" "with launch attribute CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION (a programmatic dependent launch): held back" 1
expect_not_in "$log" "the driver refused a programmatic edge"
expect_not_in "$log" "building the graph failed"

# A launch attribute that is a boundary: named in the log, once; the same output.
"$PROG" event > "$WORK/event.plain" || fail "pdl_library event without the shim exited $?"
with_shim REPRISE_LOG=info "$PROG" event > "$WORK/event.out" 2> "$WORK/event.log" || fail "auto (event) exited $?"
cmp -s "$WORK/event.plain" "$WORK/event.out" || fail "auto (event): output differs from the run without the shim"
expect_count "$WORK/event.log" "cudaLaunchKernelExC with launch attribute CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT, which the shim does not hold back: " 1
expect_not_in "$WORK/event.log" "with launch attribute 7"
expect_in "$WORK/event.log" "replayed as a graph"
finish
