#!/bin/sh
# SPDX-License-Identifier: MIT
# Program events recorded inside a fast-path graph with no node (issue 14,
# item 3; docs/design.md, "Events in a fast-path graph"): after each replay
# the events a region records are owed a record after the graph, made only
# before something next observes them.  tests/standin/owed_records runs
# fork3's loop and observes its events between replays in every way the
# program can (a forwarded wait and a kernel, an event sync, a query loop,
# elapsed times, the driver's wait, another thread's wait, the program's
# own capture, the driver's event sync and query, a wait for the fork's
# event, a host function that the host's event sync must not wait for, a
# query after a stream sync, a region of its own whose graph waits for an
# event and falls back every third time); each reads what the region
# wrote, so a record not made lets the stand-in's scheduler run it first,
# for some seed.  Under auto, for 20 seeds and with the trial on or off, it
# prints what it prints without the shim; the steady replays of the
# fork/join region make no record (each replay drops the records the last
# one owed), and its graph keeps record nodes for the timed pair alone.
# tests/owed_waits.sh's fork3 then checks a replay is one launch and one
# join record.  Last, a record owed before a graph that the driver refuses
# makes that occurrence fall back (tests/standin/owed_record_error).
. "${top_srcdir:-.}/tests/lib.sh"
PROG="$TESTS_BIN/standin/owed_records"
[ -x "$PROG" ] || { fail "$PROG is not built"; finish; }
LIMIT=
command -v timeout > /dev/null 2>&1 && LIMIT="timeout 60"

"$PROG" > "$WORK/plain" 2>&1 || fail "without the shim exited $?"
for seed in 1 2 3; do
    STANDIN_SEED=$seed "$PROG" > "$WORK/out" 2>&1
    cmp -s "$WORK/plain" "$WORK/out" || fail "without the shim: seed $seed changed the output"
done
grep -q "^error" "$WORK/plain" && fail "without the shim: $(grep "^error" "$WORK/plain" | head -1)"
for config in "REPRISE_TRIAL=0" ""; do
    differ=
    for seed in $(seq 1 20); do
        $LIMIT env LD_PRELOAD="$PRELOAD" $config REPRISE_LOG=debug STANDIN_SEED=$seed "$PROG" \
            > "$WORK/out" 2> "$WORK/log" || fail "[$config] seed $seed exited $?"
        cmp -s "$WORK/plain" "$WORK/out" || { differ="$differ $seed"; cp "$WORK/out" "$WORK/differs"; }
    done
    if [ -n "$differ" ]; then
        fail "[${config:-defaults}]: auto differs from no shim for seeds$differ: $(diff "$WORK/plain" "$WORK/differs" | head -4)"
    else
        echo "[${config:-defaults}]: 20 seeds the same as without the shim"
    fi
done

# The fork/join region's graph: its four untimed events have no node, the timed pair keeps theirs.
expect_in "$WORK/log" "graph of 22 calls on 4 streams: 4 program events recorded with no node"
# fork3 itself, observed by nothing: after the first replay, each replay drops what the last one owed; the
# stand-in says what each graph launch runs: the fork/join's 10 kernels alone (its 6 waits are edges, and its
# 4 records were 4 more nodes).
"$TESTS_BIN/standin/fork_reuse" fork3 40 > "$WORK/fork3.plain" 2>&1 || fail "fork3 without the shim exited $?"
$LIMIT env LD_PRELOAD="$PRELOAD" REPRISE_TRIAL=0 REPRISE_LOG=debug STANDIN_GRAPH_LOG=1 \
    "$TESTS_BIN/standin/fork_reuse" fork3 40 > "$WORK/fork3.out" 2> "$WORK/fork3.log" ||
    fail "fork3 under auto exited $?"
graphs=$(grep -c '^standin: graph launch' "$WORK/fork3.log")
bare=$(grep -c '^standin: graph launch: 10 nodes, 0 event records' "$WORK/fork3.log")
echo "fork3: $graphs graph launches, $bare of them 10 nodes with no event record"
[ "$graphs" -ge 30 ] && [ "$bare" -eq "$graphs" ] || fail "fork3: $bare of $graphs launches had no event record node"
cmp -s "$WORK/fork3.plain" "$WORK/fork3.out" || fail "fork3: auto differs from no shim"
expect_in "$WORK/fork3.log" "graph of 20 calls on 4 streams: 4 program events recorded with no node"
launches=$(grep -c 'joins around a graph launch on 4 streams' "$WORK/fork3.log")
made=$(grep -c 'made the record it owed' "$WORK/fork3.log")
echo "fork3: $launches replays, $made owed records made"
[ "$launches" -ge 30 ] || fail "fork3: $launches replays of the fork/join region, expected at least 30"
[ "$made" -eq 0 ] || fail "fork3: $made owed records were made, expected none (each replay drops them)"

# A record owed before a graph that the driver refuses (tests/standin/owed_record_error: the stand-in refuses
# j1's next record through the driver at iteration 30, just before the graph that waits for it is launched):
# that occurrence falls back, saying why, its calls forwarded once the record is made; a graph launched anyway
# would wait for j1's record of the iteration before, and its read of c1 overtakes the write for some seeds.
ERR="$TESTS_BIN/standin/owed_record_error"
"$ERR" > "$WORK/error.plain" 2>&1 || fail "owed_record_error without the shim exited $?"
"$ERR" 30 > "$WORK/error.out" 2>&1 || fail "owed_record_error 30 without the shim exited $?"
cmp -s "$WORK/error.plain" "$WORK/error.out" || fail "owed_record_error: the refused record changed the output without the shim"
differ=
for seed in 1 2 3 4 5 6; do
    $LIMIT env LD_PRELOAD="$PRELOAD" REPRISE_TRIAL=0 REPRISE_LOG=info STANDIN_SEED=$seed "$ERR" 30 \
        > "$WORK/error.out" 2> "$WORK/error.log" || fail "owed_record_error (seed $seed) exited $?"
    cmp -s "$WORK/error.plain" "$WORK/error.out" || differ="$differ $seed"
    expect_count "$WORK/error.log" "fell back after 4 of 4 calls (graph_error: the record of an event that an earlier graph owed, due before this one failed: cudaErrorMemoryAllocation)" 1
    expect_count "$WORK/error.log" "fell back" 1
done
[ -z "$differ" ] || fail "owed_record_error: auto differs from no shim for seeds$differ"
finish
