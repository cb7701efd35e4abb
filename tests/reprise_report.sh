#!/bin/sh
# SPDX-License-Identifier: MIT
# `reprise report`: a summary per region of a real trace, a trace cut
# mid-line, bad files, and the Chrome trace timeline.
. "${top_srcdir:-.}/tests/lib.sh"
[ -x "$REPRISE" ] || { echo "no $REPRISE: build first" >&2; exit 99; }

# A real trace: query_sync graphs regions and falls back (mismatch; which other reasons depends on the region
# predicted, so sync_inside and the rest are left to tests/traces/one.trace).
with_shim REPRISE_MIN_REGION_CALLS=1 REPRISE_TRIAL=0 REPRISE_RECORDINGS=1 REPRISE_TRACE="$WORK/q.trace" "$TESTS_BIN/scenarios/query_sync" > /dev/null ||
    fail "query_sync exited $?"
"$REPRISE" report "$WORK/q.trace" > "$WORK/q.report" 2> "$WORK/q.err" || fail "report exited $?"
expect_in "$WORK/q.report" "process "
expect_in "$WORK/q.report" "query_sync"
expect_in "$WORK/q.report" "calls_saved"
expect_in "$WORK/q.report" "mismatch 1"
expect_in "$WORK/q.report" "launch time saved: about"
expect_in "$WORK/q.report" "x 4.00 us a launch"
expect_in "$WORK/q.report" "runtime calls intercepted"
expect_in "$WORK/q.report" "verdict: "
[ -s "$WORK/q.err" ] && fail "a complete trace gave notes: $(cat "$WORK/q.err")"
# A program written against the driver API only (as a static runtime is): its driver calls are counted,
# its regions graphed, as a runtime program's.
with_shim REPRISE_TRIAL=0 REPRISE_TRACE="$WORK/d.trace" "$TESTS_BIN/scenarios/driver_loop" > /dev/null ||
    fail "driver_loop exited $?"
"$REPRISE" report "$WORK/d.trace" > "$WORK/d.report" 2>&1 || fail "report of driver_loop exited $?"
expect_in "$WORK/d.report" "0 runtime calls intercepted"
grep -Eq ' [1-9][0-9]* driver calls from outside the runtime' "$WORK/d.report" ||
    fail "the report of a driver-only program counts no driver call: $(grep 'at exit' "$WORK/d.report")"
expect_in "$WORK/d.report" "driver calls: cuLaunchKernel "
# Its graphs are invalidated as it ends (it destroys its stream and unloads its module): learnt again, then.
awk '($4 == "graphed" || $4 == "learning") && $6 > 0 { found = 1 } END { exit !found }' "$WORK/d.report" ||
    fail "the report of driver_loop shows no graphed region with replays"
# The fallback counts are the trace's fallback events, per region and reason.
n_events=$(grep -c '"ev":"fallback"' "$WORK/q.trace")
n_report=$(awk '/^ *[0-9]+ +[0-9]+ +[0-9]+ /{ for (i = 11; i <= NF; i++) if ($i ~ /^[0-9]+,?;?$/) s += $i } END { print s + 0 }' "$WORK/q.report")
[ "$n_events" -eq "$n_report" ] || fail "$n_events fallback events, the report counts $n_report"

# The watchdog's fallbacks (host_flag_wait: the host spins on mapped memory) are the region's own thread's:
# one row for the region, in a timeout back-off, its timeouts counted there (not on the watchdog's thread): 2 to 6
# in 200 iterations (back-offs of 16, 32, 64 and 128 sightings after the second).
with_shim REPRISE_DEFERRAL_TIMEOUT_US=2000 REPRISE_TRACE="$WORK/f.trace" "$TESTS_BIN/scenarios/host_flag_wait" > /dev/null ||
    fail "host_flag_wait exited $?"
"$REPRISE" report "$WORK/f.trace" > "$WORK/f.report" || fail "report of host_flag_wait's trace exited $?"
[ "$(awk '$1 == 1 && $2 ~ /^[0-9]+$/' "$WORK/f.report" | wc -l)" -eq 1 ] ||
    fail "host_flag_wait's region 1 is not one row of the report: $(cat "$WORK/f.report")"
awk '$1 == 1 && $2 ~ /^[0-9]+$/ { exit !($4 == "backoff" && $(NF - 1) == "deferral_timeout" && $NF >= 2 && $NF <= 6) }' \
    "$WORK/f.report" || fail "host_flag_wait's region 1 is not in a timeout back-off with 2 to 6 timeouts: $(cat "$WORK/f.report")"

# A robust path that does not pay (made dear on the stand-in): its verdicts count as not_paying fallbacks.
with_shim REPRISE_REPLAY=robust REPRISE_TRIAL=2 REPRISE_MIN_REGION_CALLS=1 STANDIN_GRAPH_UPDATE_US=2000 \
    REPRISE_TRACE="$WORK/p.trace" "$TESTS_BIN/scenarios/launch_loop" > /dev/null || fail "launch_loop exited $?"
n_payoff=$(grep '"ev":"payoff"' "$WORK/p.trace" | grep -c '"pays":false')
"$REPRISE" report "$WORK/p.trace" > "$WORK/p.report" || fail "report of a robust trace exited $?"
expect_in "$WORK/p.report" "not_paying $n_payoff"

# The time saved follows --launch-us and the calls saved.
with_shim REPRISE_TRACE="$WORK/s.trace" "$TESTS_BIN/scenarios/sync_free" > /dev/null || fail "sync_free exited $?"
saved=$(sed -n 's/.*"calls_saved":\([0-9]*\).*/\1/p' "$WORK/s.trace" | awk '{ s += $1 } END { print s }')
"$REPRISE" report --launch-us 2 "$WORK/s.trace" > "$WORK/s.report" || fail "report --launch-us exited $?"
expect_in "$WORK/s.report" "($saved calls not submitted one by one x 2.00 us a launch"
expect_in "$WORK/s.report" "sync-free loop"

# No regions: why.  launch_loop's regions (3 launches between syncs) are shorter than REPRISE_MIN_REGION_CALLS (4 by
# default): the report says sequences were seen, but shorter, with the option's value from the trace's config event.
with_shim REPRISE_TRACE="$WORK/short.trace" "$TESTS_BIN/scenarios/launch_loop" > /dev/null || fail "launch_loop exited $?"
"$REPRISE" report "$WORK/short.trace" > "$WORK/short.report" || fail "report of short regions exited $?"
expect_in "$WORK/short.report" "no regions: sequences of calls were seen, but shorter than REPRISE_MIN_REGION_CALLS=4 (from the trace's config event)"
with_shim REPRISE_MIN_REGION_CALLS=5000 REPRISE_TRACE="$WORK/short2.trace" "$TESTS_BIN/scenarios/query_sync" > /dev/null ||
    fail "query_sync exited $?"
"$REPRISE" report "$WORK/short2.trace" > "$WORK/short2.report" || fail "report of short regions exited $?"
expect_in "$WORK/short2.report" "but shorter than REPRISE_MIN_REGION_CALLS=5000 (from the trace's config event)"
with_shim REPRISE_MODE=observe REPRISE_TRACE="$WORK/observe.trace" "$TESTS_BIN/scenarios/launch_loop" > /dev/null 2>&1 ||
    fail "launch_loop in observe mode exited $?"
"$REPRISE" report "$WORK/observe.trace" > "$WORK/observe.report" || fail "report of observe mode exited $?"
expect_in "$WORK/observe.report" "no regions (mode observe: only auto looks for regions)"
grep -v '"ev":"exit"' "$WORK/short.trace" > "$WORK/short-noexit.trace"
"$REPRISE" report "$WORK/short-noexit.trace" > "$WORK/short-noexit.report" 2> /dev/null || fail "report without exit exited $?"
expect_in "$WORK/short-noexit.report" "no regions (nothing repeated, as far as the trace goes: it has no exit event"

# A trace cut mid-line: reported up to the cut, with a note.
size=$(wc -c < "$WORK/q.trace")
head -c $((size - 100)) "$WORK/q.trace" > "$WORK/cut.trace"
"$REPRISE" report "$WORK/cut.trace" > "$WORK/cut.report" 2> "$WORK/cut.err" || fail "report of a cut trace exited $?"
expect_in "$WORK/cut.err" "reprise: note: "
expect_in "$WORK/cut.err" "is truncated"
expect_in "$WORK/cut.report" "calls_saved"
expect_not_in "$WORK/cut.report" "runtime calls intercepted"
# A trace without its exit event (killed program): a note too.
grep -v '"ev":"exit"' "$WORK/q.trace" > "$WORK/noexit.trace"
"$REPRISE" report "$WORK/noexit.trace" > /dev/null 2> "$WORK/noexit.err" || fail "report without exit exited $?"
expect_in "$WORK/noexit.err" "no exit event"

# Bad files: one line, "reprise: error: ...", non-zero status.
expect_error 2 report "$WORK/missing.trace"
expect_error 2 report "$WORK"
: > "$WORK/empty.trace"; expect_error 2 report "$WORK/empty.trace"
printf '{"ev":"conf' > "$WORK/stub.trace"; expect_error 2 report "$WORK/stub.trace"
{ echo 'not json'; cat "$WORK/q.trace"; } > "$WORK/garbage.trace"; expect_error 2 report "$WORK/garbage.trace"
# An object whose "ev" the shim never writes is not an event, named by its line; a file whose only line is whole
# JSON but no event is not a trace (not a trace "cut short").
{ head -1 "$WORK/q.trace"; echo '{"ev":"bogus"}'; tail -1 "$WORK/q.trace"; } > "$WORK/bogus.trace"
expect_error 2 report "$WORK/bogus.trace"
expect_in "$WORK/bad.err" "bogus.trace:2: not a reprise trace event: \"ev\":\"bogus\" is not an event the shim writes"
echo '{"ev":"bogus"}' > "$WORK/bogus1.trace"; expect_error 2 report "$WORK/bogus1.trace"
expect_in "$WORK/bad.err" "bogus1.trace:1: not a reprise trace: \"ev\":\"bogus\" is not an event the shim writes"
for end in '\n' ''; do
    printf "{\"name\":\"x\"}$end" > "$WORK/other.json"; expect_error 2 report "$WORK/other.json"
    expect_in "$WORK/bad.err" "other.json:1: not a reprise trace: the object has no \"ev\""
    expect_not_in "$WORK/bad.err" "cut short"
    printf "hello$end" > "$WORK/hello.txt"; expect_error 2 report "$WORK/hello.txt"
    expect_in "$WORK/bad.err" "hello.txt:1: not a reprise trace: the line is not JSON"
done
# Every event the shim writes (its trace_event calls) is one the reader knows.
for ev in $(grep -rhoE 'trace_event\("[a-z_]+"' "$top_srcdir/shim" "$top_srcdir/policy" | sed 's/.*("//; s/"$//' | sort -u); do
    grep -q "\"$ev\"" "$top_srcdir/tools/reprise/trace_read.c" || fail "tools/reprise/trace_read.c does not know the event $ev"
done
expect_error 2 report
expect_error 2 report --bogus "$WORK/q.trace"
expect_error 2 report --launch-us x "$WORK/q.trace"
expect_error 2 report --chrome-trace "$WORK/no/such/dir.json" "$WORK/q.trace"
if [ -r "$WORK/q.trace" ] && [ "$(id -u)" -ne 0 ]; then
    cp "$WORK/q.trace" "$WORK/locked.trace"; chmod 000 "$WORK/locked.trace"; expect_error 2 report "$WORK/locked.trace"
fi

# The Chrome trace: JSON, instants and region spans, per process and thread.
"$REPRISE" report --chrome-trace "$WORK/q.json" "$WORK/q.trace" > /dev/null || fail "--chrome-trace exited $?"
expect_in "$WORK/q.json" '{"displayTimeUnit":"ms","traceEvents":['
expect_in "$WORK/q.json" '"ph":"X"'
expect_in "$WORK/q.json" '"ph":"i"'
expect_in "$WORK/q.json" '"name":"process_name"'
expect_in "$WORK/q.json" '"cat":"fallback"'
if command -v python3 > /dev/null 2>&1; then
    python3 -m json.tool "$WORK/q.json" > /dev/null || fail "--chrome-trace output is not JSON"
    "$REPRISE" report --chrome-trace "$WORK/cut.json" "$WORK/cut.trace" > /dev/null 2>&1
    python3 -m json.tool "$WORK/cut.json" > /dev/null || fail "--chrome-trace of a cut trace is not JSON"
fi
finish
