#!/bin/sh
# SPDX-License-Identifier: MIT
# The cross-stream waits around a fast-path graph's launches (issue 14,
# item 3; docs/design.md, "Streams in a fast-path graph"): after a replay the
# forked streams owe a wait on the graph, made only before something next
# reaches them.  tests/standin/fork_reuse runs a fork/join loop whose forked
# streams are used between replays in every way that must make that wait (a
# kernel, a sync, an event another stream waits for, a query loop, another
# thread's kernel, the legacy stream's barrier, the program's own capture,
# the driver's sync, launch and 2-D memset, an event sync, another region's
# graph forking onto one, its fallback, robust-path captures beginning on
# one or joined by one, a destroyed stream); each use reads what the graph
# wrote, so a wait not made lets the stand-in's scheduler run it first for
# some seed (each of the shim's nine places that make or skip such a wait,
# taken out alone, fails this test).  Under auto, with regions of every
# length graphed or not and the trial on or off, it prints what it prints
# without the shim, for 25 scheduler seeds, on created streams and with the
# graph on the legacy stream.  And bench_suite's fork3 (no uses): after the
# first replay each replay joins with one event record and no wait besides
# its cuGraphLaunch (the debug log counts them), where the shim used to make
# an event record and a wait per forked stream before and after each launch.
. "${top_srcdir:-.}/tests/lib.sh"
PROG="$TESTS_BIN/standin/fork_reuse"
[ -x "$PROG" ] || { fail "$PROG is not built"; finish; }
LIMIT=
command -v timeout > /dev/null 2>&1 && LIMIT="timeout 60"

for mode in created legacy; do
    "$PROG" $mode > "$WORK/$mode.plain" 2>&1 || fail "$mode without the shim exited $?"
    for seed in 1 2 3 4 5; do
        STANDIN_SEED=$seed "$PROG" $mode > "$WORK/out" 2>&1
        cmp -s "$WORK/$mode.plain" "$WORK/out" || fail "$mode without the shim: seed $seed changed the output"
    done
    for config in "REPRISE_MIN_REGION_CALLS=1 REPRISE_TRIAL=0" "REPRISE_TRIAL=0" "REPRISE_TRIAL=1" ""; do
        differ=
        for seed in $(seq 1 25); do
            $LIMIT env LD_PRELOAD="$PRELOAD" $config REPRISE_LOG=info STANDIN_SEED=$seed "$PROG" $mode \
                > "$WORK/out" 2> "$WORK/log" || fail "$mode [$config] seed $seed exited $?"
            cmp -s "$WORK/$mode.plain" "$WORK/out" || differ="$differ $seed"
        done
        [ -z "$differ" ] || fail "$mode [${config:-defaults}]: auto differs from no shim for seeds$differ"
        # The fork/join region (20 calls) was replayed, so the uses came after graphs; so were the others.
        expect_in "$WORK/log" "replayed as a graph (20 calls in one launch"
        if [ "$config" = REPRISE_TRIAL=0 ]; then
            expect_in "$WORK/log" "region 5: replayed on the robust path"
            expect_in "$WORK/log" "fell back after 3 of 5 calls (sync_inside: cudaStreamQuery)"
        fi
        echo "$mode [${config:-defaults}]: 25 seeds the same as without the shim"
    done
done

# fork3: one event record and no wait around each replay after the first.
"$PROG" fork3 40 > "$WORK/fork3.plain" 2>&1 || fail "fork3 without the shim exited $?"
$LIMIT env LD_PRELOAD="$PRELOAD" REPRISE_TRIAL=0 REPRISE_LOG=debug "$PROG" fork3 40 > "$WORK/fork3.out" \
    2> "$WORK/fork3.log" || fail "fork3 under auto exited $?"
cmp -s "$WORK/fork3.plain" "$WORK/fork3.out" || fail "fork3: auto differs from no shim"
launches=$(grep -c 'joins around a graph launch on 4 streams' "$WORK/fork3.log")
steady=$(grep -c 'joins around a graph launch on 4 streams: 1 event record, 0 waits; 3 streams owe a wait on it' \
    "$WORK/fork3.log")
echo "fork3: $launches replays, $steady of them with one event record and no wait around the launch"
[ "$launches" -ge 30 ] || fail "fork3: $launches replays of the fork/join region, expected at least 30"
[ "$steady" -eq $((launches - 1)) ] || fail "fork3: only $steady of $launches replays joined with one record alone"
# Nothing makes an owed wait between replays: only the shim's shutdown at exit does (3 streams).
expect_count "$WORK/fork3.log" "made the wait it owed" 3
finish
