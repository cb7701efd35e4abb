#!/bin/sh
# SPDX-License-Identifier: MIT
# Warm-ups that never repeat cost nothing (issue 24, item 3): a region is recorded from its third sighting,
# and its graph built only when a second occurrence is recorded whole (the fourth).  launch_loop's region
# (3 launches; its first iteration, with the fills, is another) seen exactly three times (a JIT's warm-up,
# an autotuner's trial) builds no graph; seen five times, one graph, replayed once.
. "${top_srcdir:-.}/tests/lib.sh"
SCEN="$top_builddir/tests/scenarios"
LIMIT=
command -v timeout > /dev/null 2>&1 && LIMIT="timeout 60"

# Runs launch_loop for $1 iterations with and without the shim (REPRISE_TRIAL=0: no trial passes one through).
run_loop() {
    LAUNCH_LOOP_ITERS=$1 $LIMIT "$SCEN/launch_loop" > "$WORK/plain.$1.out" || fail "launch_loop $1 exited $?"
    LAUNCH_LOOP_ITERS=$1 REPRISE_TRIAL=0 REPRISE_MIN_REGION_CALLS=3 REPRISE_LOG=info REPRISE_STATS=1 REPRISE_TRACE="$WORK/$1.trace" \
        $LIMIT env LD_PRELOAD="$PRELOAD" "$SCEN/launch_loop" > "$WORK/auto.$1.out" 2> "$WORK/auto.$1.log" ||
        fail "launch_loop $1 under auto exited $?"
    cmp -s "$WORK/plain.$1.out" "$WORK/auto.$1.out" || fail "launch_loop $1: auto printed something else"
}

# The graphs_summary event's field $2 in trace $1.
summary_field() {
    sed -n "s/.*\"ev\":\"graphs_summary\".*\"$2\":\([0-9]*\).*/\1/p" "$1"
}

run_loop 4
expect_in "$WORK/auto.4.log" "region 2: recorded whole (1 of 2); its graph is built when it is recorded whole 1 more time"
expect_not_in "$WORK/auto.4.log" "graph built"
[ "$(summary_field "$WORK/4.trace" built)" = 0 ] || fail "3 sightings: $(summary_field "$WORK/4.trace" built) graphs built, want 0"

run_loop 6
expect_in "$WORK/auto.6.log" "region 2: graph built (3 nodes on 1 stream); replaying from its next occurrence"
expect_in "$WORK/auto.6.log" "region 2: replayed as a graph"
expect_in "$WORK/auto.6.log" "graphs: 1 built, 1 replayed at least once, 0 evicted (0 before any replay)"
[ "$(summary_field "$WORK/6.trace" built)" = 1 ] || fail "5 sightings: $(summary_field "$WORK/6.trace" built) graphs built, want 1"
[ "$(summary_field "$WORK/6.trace" replayed)" = 1 ] || fail "5 sightings: the graph was not replayed"

# REPRISE_RECORDINGS=1 builds at the first recording, as before: three sightings, one graph never replayed.
LAUNCH_LOOP_ITERS=4 REPRISE_RECORDINGS=1 REPRISE_TRIAL=0 REPRISE_MIN_REGION_CALLS=3 REPRISE_LOG=info \
    REPRISE_TRACE="$WORK/once.trace" $LIMIT env LD_PRELOAD="$PRELOAD" "$SCEN/launch_loop" > /dev/null 2>&1 ||
    fail "launch_loop with REPRISE_RECORDINGS=1 exited $?"
[ "$(summary_field "$WORK/once.trace" built)" = 1 ] || fail "REPRISE_RECORDINGS=1: no graph built at the first recording"
finish
