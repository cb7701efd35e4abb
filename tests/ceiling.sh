#!/bin/sh
# SPDX-License-Identifier: MIT
# The ceiling (observe mode): the share of the host time between syncs spent
# inside the calls a graph would remove, in the exit summary's log line, the
# trace's exit event and `reprise report`.  The shim times the host on
# CLOCK_MONOTONIC; these runs give it the stand-in's virtual host clock
# (tests/lib.sh's with_clock), which moves only by what the stand-in was
# asked to spend, so every share below is exact on a machine however
# loaded.  STANDIN_SUBMIT_US=200 makes each submission cost 200 us: a
# launch loop is then submission-bound (all of its time between syncs in
# the calls, 600 calls of 200.00 us each), through the runtime's door and
# the driver's.  The same loop whose host works 4 ms before each sync, its
# submissions at 10 us, is not (5%): graphs can gain little there.  A first
# iteration 200 ms longer than the rest (a JIT's compiles) is left out as
# start-up, and said so; without that rule the dear loop's share would read
# 38% (120 ms of 320 ms).  A sync-free loop's launches count (its span
# begins with its first launch).  Off and auto time nothing.  And once on
# the machine's own clock, what no load can change: 600 calls (or 580, the
# first span left out as start-up when the machine made it long) of 200 us
# or more each.
. "${top_srcdir:-.}/tests/lib.sh"
prog="$top_builddir/tests/bench/held_back_loop"
[ -x "$prog" ] || { echo "no $prog: build it (make check)" >&2; exit 99; }
[ -x "$REPRISE" ] || { echo "no $REPRISE: build first" >&2; exit 99; }

# Runs held_back_loop (arguments $2...) in observe mode as $1 on the virtual host clock (with $clock set to
# with_shim: on the machine's): $WORK/$1.log, .trace, .report; sets share_log, share_trace (in percent) and
# share_report from the three, and ceiling to the log's line from "took".
observe_run() {
    run=$1
    shift
    ${clock:-with_clock} REPRISE_MODE=observe REPRISE_TRACE="$WORK/$run.trace" "$prog" "$@" > "$WORK/$run.out" \
        2> "$WORK/$run.log" || fail "$run: held_back_loop $* exited $?"
    "$REPRISE" report "$WORK/$run.trace" > "$WORK/$run.report" || fail "$run: report exited $?"
    share_log=$(sed -n 's/.* info: ceiling: submission calls took \([0-9]*\)% of the host time between syncs (.*/\1/p' \
        "$WORK/$run.log")
    share_trace=$(sed -n 's/.*"ev":"exit".*"ceiling":{"share":\([0-9.]*\),.*/\1/p' "$WORK/$run.trace" |
        awk '{ printf "%.0f", $1 * 100 }')
    share_report=$(sed -n 's/^  ceiling: submission calls took \([0-9]*\)% of the host time between syncs (.*/\1/p' \
        "$WORK/$run.report")
    ceiling=$(sed -n 's/.* info: ceiling: submission calls \(took .*\): a graph can save at most about that$/\1/p' \
        "$WORK/$run.log")
    [ -n "$share_log" ] || { fail "$run: no ceiling line in the log"; sed 's/^/  | /' "$WORK/$run.log" | tail -8 >&2; }
    [ -n "$share_trace" ] || fail "$run: no ceiling in the trace's exit event"
    [ -n "$share_report" ] || fail "$run: no ceiling line in the report"
    [ "$share_log" = "$share_report" ] || fail "$run: the log says $share_log%, the report $share_report%"
    # The trace's share is rounded by awk, the log's by printf: they may differ by one.
    [ -n "$share_trace" ] && [ -n "$share_log" ] && [ $((share_trace - share_log)) -le 1 ] &&
        [ $((share_log - share_trace)) -le 1 ] || fail "$run: the log says $share_log%, the trace $share_trace%"
    echo "$run: submission calls ${ceiling:-took ?}"
}

# Passes if run $1's ceiling line (from "took") is $2.
expect_ceiling() {
    [ "$ceiling" = "$2" ] || fail "$1: the ceiling reads '$ceiling', expected '$2'"
}

# Dear submissions, nothing else between syncs: all of that time is in the calls a graph removes, each call
# taking what the stand-in charged, every launch between syncs (the set-up copies sync).
for style in api driver; do
    STANDIN_SUBMIT_US=200 observe_run "dear.$style" $style 20 30
    expect_ceiling "dear.$style" "took 100% of the host time between syncs (120.0 ms of 120.0 ms; 600 calls, 200.00 us each)"
    expect_in "$WORK/dear.$style.log" "verdict: submission-bound: submission calls took"
    expect_in "$WORK/dear.$style.trace" '"node_calls":600,'
done

# Start-up in the first iteration (200 ms): that span is left out, the other 29 iterations' 580 calls count.
STANDIN_SUBMIT_US=200 observe_run warmup api 20 30 0 200000
expect_ceiling warmup "took 100% of the host time between syncs (116.0 ms of 116.0 ms; 580 calls, 200.00 us each; start-up left out: 1 thread's first span, 204.0 ms)"
expect_in "$WORK/warmup.trace" '"node_calls":580,'
expect_in "$WORK/warmup.trace" '"warmup_spans":1}'
expect_in "$WORK/warmup.report" "start-up left out: 1 thread's first span"
# The loops above have no such span: nothing is left out.
expect_not_in "$WORK/dear.api.log" "start-up left out"

# The host's own work between syncs (4 ms each iteration, 20 submissions of 10 us): graphs can gain little.
STANDIN_SUBMIT_US=10 observe_run busy api 20 30 4000
expect_ceiling busy "took 5% of the host time between syncs (6.0 ms of 126.0 ms; 600 calls, 10.00 us each)"
expect_in "$WORK/busy.log" "verdict: graphs can gain little here: submission calls took only"
expect_in "$WORK/busy.report" "verdict: graphs can gain little here"

# The machine's own clock, where a loaded machine can make any span long: what it cannot change is that each
# call took the 200 us the stand-in slept or more, and that all 600 count unless the first span (20 of them)
# was left out as start-up, which the line then says.
STANDIN_SUBMIT_US=200 clock=with_shim observe_run real api 20 30
each=$(echo "$ceiling" | sed -n 's/.*; \(600\|580\) calls, \([0-9.]*\) us each.*/\2/p')
[ -n "$each" ] && awk -v us="$each" 'BEGIN { exit !(us >= 200) }' ||
    fail "real: not 600 calls of 200 us or more: $ceiling"
case $ceiling in
    *"; 600 calls, "*) expect_not_in "$WORK/real.log" "start-up left out" ;;
    *"; 580 calls, "*) expect_in "$WORK/real.log" "start-up left out: 1 thread's first span" ;;
esac

# A sync-free loop ending in its first sync (sync_free): its span begins with its first launch, all 20002 count.
with_clock REPRISE_MODE=observe REPRISE_TRACE="$WORK/free.trace" STANDIN_SUBMIT_US=1 \
    "$top_builddir/tests/scenarios/sync_free" > /dev/null 2> "$WORK/free.log" || fail "sync_free exited $?"
expect_in "$WORK/free.trace" '"node_calls":20002,'
expect_in "$WORK/free.log" "ceiling: submission calls took 100% of the host time between syncs"
expect_not_in "$WORK/free.log" "graphs can gain little"

# Off and auto time nothing: no ceiling anywhere (auto's held-back calls would not tell).
for mode in off auto; do
    with_shim REPRISE_MODE=$mode REPRISE_STATS=1 REPRISE_TRACE="$WORK/$mode.trace" "$prog" api 20 30 \
        > /dev/null 2> "$WORK/$mode.log" || fail "$mode exited $?"
    expect_not_in "$WORK/$mode.log" "ceiling"
    expect_not_in "$WORK/$mode.trace" '"ceiling"'
done
finish
