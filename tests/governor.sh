#!/bin/sh
# SPDX-License-Identifier: MIT
# The governor (issue 39, item 1), on the stand-in's virtual host clock, where a region's replay costs what
# STANDIN_NODE_PATCH_US charges for each node it patches and passing it through what STANDIN_SUBMIT_US charges for
# each launch, exactly: tests/scenarios/governor's costly loop patches 15 of its 16 nodes every replay (a graph
# launch of 5 us and 300 us of patches against 80 us of launches), its paying loop none (5 us against 80).  With
# epochs of 1 ms and 5 host syncs, the costly loop steps aside (the region's own trial is off: with it, the
# trial drops the graph itself, and what is left is a tie, which steps aside too), the paying one stays on, one
# whose phase changes from the first to the second steps aside and then resumes; through the driver's door and
# <<<>>>'s too.  Every output is the same as without the shim; with REPRISE_GOVERNOR=off nothing of it happens.
# Last, two threads (one on its per-thread default stream) switched between the engine and stepping aside at
# every host sync, on the machine's clock: the same output.
. "${top_srcdir:-.}/tests/lib.sh"
SCEN="$top_builddir/tests/scenarios"
LIMIT=
command -v timeout > /dev/null 2>&1 && LIMIT="timeout 120"
EPOCHS="REPRISE_GOVERNOR=on REPRISE_GOVERNOR_EPOCH_MS=1 REPRISE_GOVERNOR_EPOCH_SYNCS=5"
COSTS="STANDIN_SUBMIT_US=5 STANDIN_NODE_PATCH_US=20"

# Runs scenario governor with arguments $2... under the shim on the virtual clock, REPRISE_* and STANDIN_* from
# $EXTRA; out and log in $WORK/$1.out, .log; fails unless it prints what it prints without the shim.
run() {
    name=$1
    shift
    $LIMIT "$SCEN/governor" "$@" > "$WORK/$name.plain" 2>&1 || fail "$name: governor $* exited $?"
    # shellcheck disable=SC2086 # $EXTRA: words
    with_clock env REPRISE_MODE=auto REPRISE_LOG=info $EXTRA $LIMIT "$SCEN/governor" "$@" \
        > "$WORK/$name.out" 2> "$WORK/$name.log" || fail "$name: governor $* under the shim exited $?"
    cmp -s "$WORK/$name.plain" "$WORK/$name.out" || fail "$name: governor $* printed something else under the shim"
}

# (a) Graphs cost more than they save: stepped aside, said in the log and in the exit summary.
EXTRA="$EPOCHS $COSTS REPRISE_TRIAL=0 REPRISE_STATS=1" run costly costly 300
expect_in "$WORK/costly.log" "info: auto stepped aside after 20 ms: graphs cost 281% here (the same stretches between host syncs take 281.2% longer with the engine on; the median of 4 pairs of epochs)"
expect_in "$WORK/costly.log" "info: governor: auto stepped aside: graphs cost 281% here (1 probe, the last after 20 ms)"
# Aside, the region is replayed no more: 56 of its 300 occurrences were seen, 52 replayed (learning and probing).
expect_in "$WORK/costly.log" "region 1 (thread 1, 16 calls): 56 occurrences, 52 replays"
# The same without a summary (the doors' fast path, as a user runs it).
EXTRA="$EPOCHS $COSTS REPRISE_TRIAL=0" run costly_fast costly 300
expect_in "$WORK/costly_fast.log" "info: auto stepped aside after 20 ms: graphs cost 281% here"
# The trial on: the region's graph is dropped by its own trial, and the tie left steps aside too.
EXTRA="$EPOCHS $COSTS REPRISE_STATS=1" run costly_trial costly 600
expect_in "$WORK/costly_trial.log" "graphs cost 0% here"
expect_in "$WORK/costly_trial.log" "info: governor: auto stepped aside: graphs cost 0% here"
# Through the driver's front door (cuLaunchKernel, cuStreamSynchronize) and <<<>>>: held_back_loop patches 2 of 20.
for style in driver stub; do
    $LIMIT "$top_builddir/tests/bench/held_back_loop" $style 20 600 > "$WORK/$style.plain" 2>&1 ||
        fail "held_back_loop $style exited $?"
    # shellcheck disable=SC2086 # $EPOCHS: words
    with_clock env REPRISE_MODE=auto REPRISE_LOG=info REPRISE_TRIAL=0 $EPOCHS STANDIN_SUBMIT_US=2 \
        STANDIN_NODE_PATCH_US=50 $LIMIT "$top_builddir/tests/bench/held_back_loop" $style 20 600 > "$WORK/$style.out" \
        2> "$WORK/$style.log" || fail "held_back_loop $style under the shim exited $?"
    cmp -s "$WORK/$style.plain" "$WORK/$style.out" || fail "held_back_loop $style printed something else under the shim"
    expect_in "$WORK/$style.log" "info: auto stepped aside after 18 ms: graphs cost 155% here"
done

# (b) Graphs pay: auto stays on, its region replayed throughout but for the probe's epochs aside.
EXTRA="$EPOCHS $COSTS REPRISE_STATS=1" run paying paying 6000
expect_in "$WORK/paying.log" "info: auto stays on after 18 ms: graphs save 94% here (the same stretches between host syncs take 93.8% less time with the engine on; the median of 4 pairs of epochs)"
expect_in "$WORK/paying.log" "info: governor: auto stayed on: graphs save 94% here"
expect_not_in "$WORK/paying.log" "stepped aside after"
[ "$(replays_in "$WORK/paying.log")" -ge 5900 ] || fail "paying: only $(replays_in "$WORK/paying.log") replays"

# (c) A program whose phase changes: stepped aside while its graphs cost, resumed once they pay (at the probe
# after the back-off of 40 epochs; the governor's thread starts it, which the machine's clock times).
EXTRA="$EPOCHS $COSTS REPRISE_TRIAL=0" run phases phases 300 20000
expect_in "$WORK/phases.log" "info: auto stepped aside after 20 ms: graphs cost 281% here"
expect_in "$WORK/phases.log" "info: auto resumed after"
expect_in "$WORK/phases.log" "graphs save 94% here"

# REPRISE_GOVERNOR=off: the engine as before, every occurrence replayed after the first four.
EXTRA="REPRISE_GOVERNOR=off REPRISE_TRIAL=0 $COSTS REPRISE_STATS=1" run off costly 300
expect_not_in "$WORK/off.log" "info: governor:"
expect_not_in "$WORK/off.log" "stepped aside"
expect_in "$WORK/off.log" "region 1 (thread 1, 16 calls): 300 occurrences, 296 replays"

# The robust path (REPRISE_REPLAY=robust): a capture must overlap no other thread's call, and calls made stepped
# aside are not seen; a process whose regions were captured is not stepped aside, and once stepped aside none is
# captured any more.  Graphs that pay keep replaying in the first case; the second steps aside at its third sync,
# before its region is wanted (REPRISE_MIN_REPEATS=5).
EXTRA="$EPOCHS $COSTS REPRISE_REPLAY=robust REPRISE_TRIAL=0 STANDIN_GRAPH_UPDATE_US=100 REPRISE_STATS=1" \
    run robust costly 300
expect_in "$WORK/robust.log" "info: auto cannot step aside here: regions took the robust path"
expect_in "$WORK/robust.log" "info: governor: auto stayed on: it could not step aside at 1 probe (the log says why)"
expect_in "$WORK/robust.log" "region 1 (thread 1, 16 calls): 300 occurrences, 298 replays (298 re-captured)"
with_shim REPRISE_MODE=auto REPRISE_LOG=info REPRISE_REPLAY=robust REPRISE_MIN_REPEATS=5 REPRISE_GOVERNOR=on \
    REPRISE_GOVERNOR_EPOCH_MS=0 REPRISE_GOVERNOR_EPOCH_SYNCS=1 $LIMIT "$SCEN/governor" costly 200 > "$WORK/refused.out" \
    2> "$WORK/refused.log" || fail "governor costly 200 (robust, switched at every sync) exited $?"
"$SCEN/governor" costly 200 | cmp -s - "$WORK/refused.out" || fail "refused: governor costly printed something else"
expect_in "$WORK/refused.log" "info: region 1: not captured (robust path): the governor stepped aside once"
expect_not_in "$WORK/refused.log" "graph captured on the robust path"

# Two threads, switched at every host sync (epochs of one stretch, no back-off): the same output, and the engine
# stepped aside and came back many times.
"$SCEN/governor" threads 200 > "$WORK/threads.plain" 2>&1 || fail "governor threads exited $?"
with_shim REPRISE_MODE=auto REPRISE_GOVERNOR=on REPRISE_GOVERNOR_EPOCH_MS=0 REPRISE_GOVERNOR_EPOCH_SYNCS=1 \
    REPRISE_TRACE="$WORK/threads.trace" $LIMIT "$SCEN/governor" threads 200 > "$WORK/threads.out" 2> "$WORK/threads.log" ||
    fail "governor threads under the shim exited $?"
cmp -s "$WORK/threads.plain" "$WORK/threads.out" || fail "threads: governor threads printed something else under the shim"
switches=$(grep -c '"ev":"governor_switch"' "$WORK/threads.trace")
[ "$switches" -ge 50 ] || fail "threads: the governor switched only $switches times"
finish
