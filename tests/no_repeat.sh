#!/bin/sh
# SPDX-License-Identifier: MIT
# Why nothing was graphed (issue 25, item 4): no_repeat's sequences are never the same twice (each iteration's
# kernels follow the bits of its number), so nothing is graphed; the exit summary, the trace and `reprise report`
# say so, naming the first call that differs between two neighbouring sequences, what differs and both values,
# instead of calling the program a good candidate; observe mode says it too.  A loop whose sequences recur too
# rarely is said to; a program that is graphed gets the usual verdict.  no_repeat_driver, the same through the
# driver API only, is named so in both modes.
. "${top_srcdir:-.}/tests/lib.sh"
SCEN="$top_builddir/tests/scenarios"
REPRISE="$top_builddir/tools/reprise/reprise"
[ -x "$REPRISE" ] || { echo "no $REPRISE: build first" >&2; exit 99; }
LIMIT=
command -v timeout > /dev/null 2>&1 && LIMIT="timeout 60"
WHY="sequences of about 9 calls never repeat: the first difference between two neighbouring ones is call 2, cudaLaunchKernel: its kernel k_scale then k_axpy"

$LIMIT "$SCEN/no_repeat" > "$WORK/plain.out" || fail "no_repeat exited $?"
for mode in auto observe; do
    REPRISE_MODE=$mode REPRISE_STATS=1 REPRISE_TRACE="$WORK/$mode.trace" $LIMIT env LD_PRELOAD="$PRELOAD" \
        "$SCEN/no_repeat" > "$WORK/$mode.out" 2> "$WORK/$mode.log" || fail "no_repeat under $mode exited $?"
    cmp -s "$WORK/plain.out" "$WORK/$mode.out" || fail "no_repeat under $mode printed something else"
    expect_in "$WORK/$mode.log" "info: verdict: launch-bound and sync-delimited: 8.3 launches per host sync (434 launches, 52 syncs); graphs would suit it if its sequences of calls repeated often enough, and they do not"
    expect_in "$WORK/$mode.log" "info: verdict: $WHY"
    expect_not_in "$WORK/$mode.log" "good candidate"
    expect_count "$WORK/$mode.trace" '"ev":"no_repeat"' 1
    expect_in "$WORK/$mode.trace" '"call":2,"field":"target","api":"cudaLaunchKernel","kernel":"k_scale","what":"kernel","before":"k_scale","after":"k_axpy","before_calls":9,"after_calls":9,"compared":47,"recurred":0'
    "$REPRISE" report "$WORK/$mode.trace" > "$WORK/$mode.report" 2>&1 || fail "report of $mode's trace exited $?"
    expect_not_in "$WORK/$mode.report" "good candidate"
    expect_count "$WORK/$mode.report" "$WHY" 1 # said once: the exit event's verdict line that says it is left out
    expect_in "$WORK/$mode.report" "verdict: launch-bound and sync-delimited"
done
expect_in "$WORK/auto.report" "why nothing was graphed (thread 1): $WHY"
expect_in "$WORK/observe.report" "why nothing would be graphed (thread 1): $WHY"
expect_in "$WORK/auto.trace" '"ev":"graphs_summary","t_us"'
expect_in "$WORK/auto.trace" '"built":0,'

# The same through the driver API only (nvcc's default static runtime): the launches differ only in the CUfunction
# they pass, which observe mode names too (before session 16 it counted driver launches without their kernel, and
# called this program a good candidate).
DRIVER_WHY="sequences of about 9 calls never repeat: the first difference between two neighbouring ones is call 2, cuLaunchKernel: its kernel k_scale then k_axpy"
$LIMIT "$SCEN/no_repeat_driver" > "$WORK/driver.plain.out" || fail "no_repeat_driver exited $?"
for mode in auto observe; do
    REPRISE_MODE=$mode REPRISE_STATS=1 $LIMIT env LD_PRELOAD="$PRELOAD" "$SCEN/no_repeat_driver" \
        > "$WORK/driver.$mode.out" 2> "$WORK/driver.$mode.log" || fail "no_repeat_driver under $mode exited $?"
    cmp -s "$WORK/driver.plain.out" "$WORK/driver.$mode.out" || fail "no_repeat_driver under $mode printed something else"
    expect_in "$WORK/driver.$mode.log" "info: verdict: $DRIVER_WHY"
    expect_not_in "$WORK/driver.$mode.log" "good candidate"
done

# Each sequence seen three times (every 16 iterations): auto records one but builds no graph (REPRISE_RECORDINGS=2);
# observe counts them as auto does.
for mode in auto observe; do
    NO_REPEAT_PERIOD=16 REPRISE_MODE=$mode REPRISE_STATS=1 $LIMIT env LD_PRELOAD="$PRELOAD" "$SCEN/no_repeat" \
        > /dev/null 2> "$WORK/rare.$mode.log" || fail "no_repeat every 16 under $mode exited $?"
    expect_in "$WORK/rare.$mode.log" "info: verdict: sequences of about 9 calls repeat too rarely to graph (32 of 47 were seen before): the first difference between two neighbouring ones is call 2, cudaLaunchKernel: its kernel k_scale then k_axpy"
done
# Every 4 iterations: graphed, and said to be a good candidate as before; no sequence said not to repeat.
for mode in auto observe; do
    NO_REPEAT_PERIOD=4 REPRISE_MODE=$mode REPRISE_STATS=1 REPRISE_TRACE="$WORK/often.$mode.trace" $LIMIT \
        env LD_PRELOAD="$PRELOAD" "$SCEN/no_repeat" > /dev/null 2> "$WORK/often.$mode.log" ||
        fail "no_repeat every 4 under $mode exited $?"
    expect_in "$WORK/often.$mode.log" "a good candidate for graphs"
    expect_not_in "$WORK/often.$mode.log" "repeat"
    expect_not_in "$WORK/often.$mode.trace" '"ev":"no_repeat"'
done
grep -Eq '"ev":"graphs_summary".*"built":[1-9]' "$WORK/often.auto.trace" || fail "no_repeat every 4: no graph built"
finish
