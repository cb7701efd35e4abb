#!/bin/sh
# SPDX-License-Identifier: MIT
# The ceiling (observe mode): the share of the host time between syncs spent
# inside the calls a graph would remove, in the exit summary's log line, the
# trace's exit event and `reprise report`.  On the stand-in, whose calls
# cost next to nothing, STANDIN_SUBMIT_US=200 makes each submission cost
# 200 us: a launch loop is then submission-bound (share above 70%), through
# the runtime's door and the driver's.  The same loop whose host sleeps
# 4 ms before each sync, at the stand-in's own cost, is not (below 10%):
# graphs can gain little there.  A first iteration 200 ms longer than the
# rest (a JIT's compiles) is left out as start-up, and said so; without
# that rule the dear loop's share would read about 37%.  A sync-free
# loop's launches count (its span begins with its first launch).  Off and
# auto time nothing.
. "${top_srcdir:-.}/tests/lib.sh"
prog="$top_builddir/tests/bench/held_back_loop"
[ -x "$prog" ] || { echo "no $prog: build it (make check)" >&2; exit 99; }
[ -x "$REPRISE" ] || { echo "no $REPRISE: build first" >&2; exit 99; }

# Runs held_back_loop (arguments $2...) in observe mode as $1: $WORK/$1.log, .trace, .report; sets share_log,
# share_trace (in percent) and share_report from the three.
observe_run() {
    run=$1
    shift
    with_shim REPRISE_MODE=observe REPRISE_TRACE="$WORK/$run.trace" "$prog" "$@" > "$WORK/$run.out" \
        2> "$WORK/$run.log" || fail "$run: held_back_loop $* exited $?"
    "$REPRISE" report "$WORK/$run.trace" > "$WORK/$run.report" || fail "$run: report exited $?"
    share_log=$(sed -n 's/.* info: ceiling: submission calls took \([0-9]*\)% of the host time between syncs (.*/\1/p' \
        "$WORK/$run.log")
    share_trace=$(sed -n 's/.*"ev":"exit".*"ceiling":{"share":\([0-9.]*\),.*/\1/p' "$WORK/$run.trace" |
        awk '{ printf "%.0f", $1 * 100 }')
    share_report=$(sed -n 's/^  ceiling: submission calls took \([0-9]*\)% of the host time between syncs (.*/\1/p' \
        "$WORK/$run.report")
    [ -n "$share_log" ] || { fail "$run: no ceiling line in the log"; sed 's/^/  | /' "$WORK/$run.log" | tail -8 >&2; }
    [ -n "$share_trace" ] || fail "$run: no ceiling in the trace's exit event"
    [ -n "$share_report" ] || fail "$run: no ceiling line in the report"
    [ "$share_log" = "$share_report" ] || fail "$run: the log says $share_log%, the report $share_report%"
    # The trace's share is rounded by awk, the log's by printf: they may differ by one.
    [ -n "$share_trace" ] && [ -n "$share_log" ] && [ $((share_trace - share_log)) -le 1 ] &&
        [ $((share_log - share_trace)) -le 1 ] || fail "$run: the log says $share_log%, the trace $share_trace%"
    echo "$run: submission calls took ${share_log:-?}% of the host time between syncs"
}

# Dear submissions, nothing else between syncs: nearly all of that time is in the calls a graph removes.
for style in api driver; do
    STANDIN_SUBMIT_US=200 observe_run "dear.$style" $style 20 30
    [ -n "$share_log" ] && [ "$share_log" -gt 70 ] || fail "dear.$style: share ${share_log:-?}%, expected above 70%"
    # Every launch is between syncs (the set-up copies sync), each taking what the stand-in charged or more.
    each=$(sed -n 's/.* info: ceiling: .*; 600 calls, \([0-9.]*\) us each).*/\1/p' "$WORK/dear.$style.log")
    [ -n "$each" ] && awk -v us="$each" 'BEGIN { exit !(us >= 200) }' ||
        fail "dear.$style: not 600 calls of 200 us or more: ${each:-?} us each"
    expect_in "$WORK/dear.$style.log" "verdict: submission-bound: submission calls took"
    expect_in "$WORK/dear.$style.trace" '"node_calls":600,'
done

# Start-up in the first iteration (200 ms): that span is left out, the other 29 iterations' 580 calls count.
STANDIN_SUBMIT_US=200 observe_run warmup api 20 30 0 200000
[ -n "$share_log" ] && [ "$share_log" -gt 70 ] || fail "warmup: share ${share_log:-?}%, expected above 70%"
grep -qE "info: ceiling: .*; 580 calls, [0-9.]+ us each; start-up left out: 1 thread's first span, 2[0-9][0-9]\.[0-9] ms\)" \
    "$WORK/warmup.log" || fail "warmup: the first span is not said to be left out: $(grep ceiling "$WORK/warmup.log")"
expect_in "$WORK/warmup.trace" '"node_calls":580,'
expect_in "$WORK/warmup.trace" '"warmup_spans":1}'
expect_in "$WORK/warmup.report" "start-up left out: 1 thread's first span"
# The loops above have no such span: nothing is left out.
expect_not_in "$WORK/dear.api.log" "start-up left out"

# The host's own work between syncs (a 4 ms sleep each iteration): graphs can gain little.
observe_run busy api 20 30 4000
[ -n "$share_log" ] && [ "$share_log" -lt 10 ] || fail "busy: share ${share_log:-?}%, expected below 10%"
expect_in "$WORK/busy.log" "verdict: graphs can gain little here: submission calls took only"
expect_in "$WORK/busy.report" "verdict: graphs can gain little here"

# A sync-free loop ending in its first sync (sync_free): its span begins with its first launch, all 20002 count.
with_shim REPRISE_MODE=observe REPRISE_TRACE="$WORK/free.trace" "$top_builddir/tests/scenarios/sync_free" > /dev/null \
    2> "$WORK/free.log" || fail "sync_free exited $?"
expect_in "$WORK/free.trace" '"node_calls":20002,'
expect_not_in "$WORK/free.log" "graphs can gain little"

# Off and auto time nothing: no ceiling anywhere (auto's held-back calls would not tell).
for mode in off auto; do
    with_shim REPRISE_MODE=$mode REPRISE_STATS=1 REPRISE_TRACE="$WORK/$mode.trace" "$prog" api 20 30 \
        > /dev/null 2> "$WORK/$mode.log" || fail "$mode exited $?"
    expect_not_in "$WORK/$mode.log" "ceiling"
    expect_not_in "$WORK/$mode.trace" '"ceiling"'
done
finish
