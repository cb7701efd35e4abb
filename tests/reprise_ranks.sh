#!/bin/sh
# SPDX-License-Identifier: MIT
# Ranks (issue 16): RANK / LOCAL_RANK / WORLD_SIZE in the log's prefix and the trace's config event, a bad
# value warned about, %r in paths, `reprise run` giving each process of a launcher its own trace, and
# `reprise report TRACE...`: one table for the job, the ranks whose decisions differ, one Chrome timeline.
. "${top_srcdir:-.}/tests/lib.sh"
[ -x "$REPRISE" ] || { echo "no $REPRISE: build first" >&2; exit 99; }
REPRISE_ABS=$(cd "$(dirname "$REPRISE")" && pwd)/reprise
TRACES="$top_srcdir/tests/traces"
LOOP="$TESTS_BIN/scenarios/launch_loop"
GRAPH="REPRISE_MIN_REGION_CALLS=1 REPRISE_TRIAL=0"

# The rank in each log line's prefix; no rank, no change.
with_shim RANK=1 LOCAL_RANK=1 WORLD_SIZE=2 REPRISE_LOG=info REPRISE_TRACE="$WORK/r1.trace" "$LOOP" > /dev/null 2> "$WORK/r1.log" ||
    fail "launch_loop with RANK=1 exited $?"
grep -qE '^reprise\[[0-9]+:[0-9]+ rank 1\] info: reprise [0-9.]+ in launch_loop: config ' "$WORK/r1.log" ||
    fail "no 'reprise[PID:THREAD rank 1] info:' prefix: $(head -1 "$WORK/r1.log")"
[ "$(grep -cvE '^reprise\[[0-9]+:[0-9]+ rank 1\] [a-z]+: ' "$WORK/r1.log")" -eq 0 ] ||
    fail "log lines without the rank: $(grep -vE '^reprise\[[0-9]+:[0-9]+ rank 1\] ' "$WORK/r1.log" | head -3)"
env -u RANK -u LOCAL_RANK -u WORLD_SIZE LD_PRELOAD="$PRELOAD" REPRISE_LOG=info "$LOOP" > /dev/null 2> "$WORK/none.log"
grep -qE '^reprise\[[0-9]+:[0-9]+\] info: reprise ' "$WORK/none.log" || fail "without a rank the prefix changed: $(head -1 "$WORK/none.log")"
expect_not_in "$WORK/none.log" " rank "
# LOCAL_RANK alone is the rank; RANK wins over it.
env -u RANK LD_PRELOAD="$PRELOAD" LOCAL_RANK=3 REPRISE_LOG=info REPRISE_TRACE="$WORK/l3.trace" "$LOOP" > /dev/null 2> "$WORK/l3.log"
grep -qE '^reprise\[[0-9]+:[0-9]+ rank 3\] info: ' "$WORK/l3.log" || fail "LOCAL_RANK=3 alone is not the rank: $(head -1 "$WORK/l3.log")"
with_shim RANK=5 LOCAL_RANK=1 REPRISE_LOG=info "$LOOP" > /dev/null 2> "$WORK/r5.log"
grep -qE '^reprise\[[0-9]+:[0-9]+ rank 5\] info: ' "$WORK/r5.log" || fail "RANK=5 LOCAL_RANK=1 is not rank 5: $(head -1 "$WORK/r5.log")"

# The config event (the trace's first) carries rank, local_rank and world_size; without them, none.
head -1 "$WORK/r1.trace" > "$WORK/r1.config"
expect_in "$WORK/r1.config" '"ev":"config"'
expect_in "$WORK/r1.config" '"rank":1,"local_rank":1,"world_size":2,'
head -1 "$WORK/l3.trace" > "$WORK/l3.config"
expect_in "$WORK/l3.config" '"rank":3,"local_rank":3,'
expect_not_in "$WORK/l3.config" '"world_size"'
env -u RANK -u LOCAL_RANK -u WORLD_SIZE LD_PRELOAD="$PRELOAD" REPRISE_TRACE="$WORK/none.trace" "$LOOP" > /dev/null
head -1 "$WORK/none.trace" > "$WORK/none.config"
expect_not_in "$WORK/none.config" '"rank"'
expect_not_in "$WORK/none.config" '"world_size"'
if command -v python3 > /dev/null 2>&1; then
    python3 - "$WORK/r1.trace" << 'PY' || fail "the config event of rank 1 does not parse as rank 1 of 2"
import json, sys
ev = json.loads(open(sys.argv[1]).readline())
sys.exit(not (ev["ev"] == "config" and ev["rank"] == 1 and ev["local_rank"] == 1 and ev["world_size"] == 2))
PY
fi

# A bad value: ignored, with one warning naming the variable and the value; the others still count.
for bad in x -1 1x ' 1' '' 99999999999; do
    with_shim RANK="$bad" WORLD_SIZE=2 REPRISE_TRACE="$WORK/bad.trace" "$LOOP" > /dev/null 2> "$WORK/bad.log" ||
        fail "RANK='$bad' made launch_loop exit $?"
    expect_count "$WORK/bad.log" "warning: RANK=$bad is not valid (expected a non-negative integer); ignored" 1
    [ "$(wc -l < "$WORK/bad.log")" -eq 1 ] || fail "RANK='$bad': not one line of log: $(cat "$WORK/bad.log")"
    expect_not_in "$WORK/bad.log" " rank "
    head -1 "$WORK/bad.trace" > "$WORK/bad.config"
    expect_not_in "$WORK/bad.config" '"rank"'
    expect_in "$WORK/bad.config" '"world_size":2,'
    rm -f "$WORK/bad.trace"
done
with_shim RANK=2 LOCAL_RANK=abc "$LOOP" > /dev/null 2> "$WORK/badlocal.log"
expect_count "$WORK/badlocal.log" "rank 2] warning: LOCAL_RANK=abc is not valid (expected a non-negative integer); ignored" 1
env -u LOCAL_RANK LD_PRELOAD="$PRELOAD" RANK=y WORLD_SIZE=z "$LOOP" > /dev/null 2> "$WORK/two.log"
[ "$(grep -c 'is not valid (expected a non-negative integer); ignored' "$WORK/two.log")" -eq 2 ] ||
    fail "RANK=y WORLD_SIZE=z: not two warnings: $(cat "$WORK/two.log")"

# %r in the trace and log paths: the rank, else the pid.
with_shim RANK=4 REPRISE_LOG=info REPRISE_TRACE="$WORK/p.%r.trace" REPRISE_LOG_FILE="$WORK/p.%r.log" "$LOOP" > /dev/null
[ -s "$WORK/p.4.trace" ] || fail "REPRISE_TRACE=p.%r.trace with RANK=4 wrote no p.4.trace: $(ls "$WORK")"
[ -s "$WORK/p.4.log" ] || fail "REPRISE_LOG_FILE=p.%r.log with RANK=4 wrote no p.4.log: $(ls "$WORK")"
env -u RANK -u LOCAL_RANK LD_PRELOAD="$PRELOAD" REPRISE_TRACE="$WORK/q.%r.trace" sh -c "exec $LOOP" > /dev/null
[ "$(ls "$WORK" | grep -cE '^q\.[0-9]+\.trace$')" -eq 1 ] || fail "q.%r.trace without a rank is not q.PID.trace: $(ls "$WORK")"

# reprise run gives each process its own trace and log (.%p), keeps paths that have %p or %r, and the
# processes a launcher starts inherit the shim: a stand-in for torchrun, two ranks of launch_loop.
got=$(reprise_run --trace "$WORK/t.trace" --log-file "$WORK/l" -- sh -c 'echo "$REPRISE_TRACE $REPRISE_LOG_FILE"' 2> /dev/null)
[ "$got" = "$WORK/t.%p.trace $WORK/l.%p" ] || fail "reprise run --trace t.trace --log-file l set '$got'"
got=$(reprise_run --trace "$WORK/t.%r.json" --log-file "$WORK/a.d/x.%p.log" -- sh -c 'echo "$REPRISE_TRACE $REPRISE_LOG_FILE"' 2> /dev/null)
[ "$got" = "$WORK/t.%r.json $WORK/a.d/x.%p.log" ] || fail "reprise run changed paths with %r or %p: '$got'"
got=$(reprise_run --trace "$WORK/a.d/t" --log-file /dev/stderr -- sh -c 'echo "$REPRISE_TRACE $REPRISE_LOG_FILE"' 2> /dev/null)
[ "$got" = "$WORK/a.d/t.%p /dev/stderr" ] || fail "reprise run: a dot in a folder or /dev/stderr: '$got'"
got=$(reprise_run --trace "$WORK/.hidden" --log-file "$WORK/100%%p" -- sh -c 'echo "$REPRISE_TRACE $REPRISE_LOG_FILE"' 2> /dev/null)
[ "$got" = "$WORK/.hidden.%p $WORK/100%%p.%p" ] || fail "reprise run: a dot file or %%p: '$got'"
mkdir "$WORK/job"
reprise_run --trace "$WORK/job/job.trace" -- sh -c "
    env RANK=0 LOCAL_RANK=0 WORLD_SIZE=2 $GRAPH '$LOOP' > /dev/null &
    env RANK=1 LOCAL_RANK=1 WORLD_SIZE=2 $GRAPH REPRISE_MIN_REPEATS=1000 '$LOOP' > /dev/null &
    wait; exit 3"
rc=$?
[ "$rc" -eq 3 ] || fail "the launcher's exit status 3 came back as $rc"
# Three traces: the launcher's (sh: no CUDA work) and one per rank.
[ "$(ls "$WORK/job" | grep -cE '^job\.[0-9]+\.trace$')" -eq 3 ] || fail "not three job.PID.trace files: $(ls "$WORK/job")"
"$REPRISE" report --chrome-trace "$WORK/job.json" "$WORK"/job/job.*.trace > "$WORK/job.report" 2> "$WORK/job.err" ||
    fail "report of the job exited $?"
# The launcher (dash) leaves by _exit: its trace has no exit event, and says so; the ranks' are complete.
[ "$(grep -c 'reprise: note: .* has no exit event' "$WORK/job.err")" -le 1 ] && [ "$(grep -vc 'has no exit event' "$WORK/job.err")" -eq 0 ] ||
    fail "the job gave other notes: $(cat "$WORK/job.err")"
expect_in "$WORK/job.report" "job: 3 traces, 3 processes, 2 with a rank (world size 2)"
expect_in "$WORK/job.report" "rank 0: trace $WORK/job/job."
expect_in "$WORK/job.report" ": launch_loop, mode auto, local rank 1"
expect_in "$WORK/job.report" "  rank     pid region thread  calls state       iterations  replays calls_saved  fallbacks"
expect_in "$WORK/job.report" "rank 1 differs: no region found, while the other ranks' regions replay"
expect_count "$WORK/job.report" " differs: " 1
expect_count "$WORK/job.report" "  <- differs" 1
awk '$1 == 1 && $3 == "-" && $6 == "no_regions" && / <- differs$/ { found = 1 } END { exit !found }' "$WORK/job.report" ||
    fail "rank 1's row is not marked: $(cat "$WORK/job.report")"
awk '$1 == 0 && $6 == "graphed" && $8 > 0 && !/differs/ { found = 1 } END { exit !found }' "$WORK/job.report" ||
    fail "rank 0 has no graphed region with replays, unmarked"
grep -qE '^rank 0: 1 region, 1 replaying, [0-9]+ iterations, [1-9][0-9]* replays' "$WORK/job.report" ||
    fail "no totals line for rank 0: $(cat "$WORK/job.report")"
grep -qE '^process [0-9]+: 0 regions, .* \(not compared: no CUDA work, or not a rank\)$' "$WORK/job.report" ||
    fail "the launcher is weighed with the ranks: $(cat "$WORK/job.report")"
expect_in "$WORK/job.report" "launch time saved across the job: about "
# The Chrome trace: one file, each rank on its own process track (pid = rank), the launcher on its pid's.
if command -v python3 > /dev/null 2>&1; then
    python3 - "$WORK/job.json" << 'PY' || fail "the job's Chrome trace has not one process track per rank"
import json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
names = {e["pid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
assert names[0].startswith("rank 0: launch_loop (pid "), names
assert names[1].startswith("rank 1: launch_loop (pid "), names
others = [p for p in names if p not in (0, 1)]
assert len(others) == 1 and names[others[0]].startswith("process %d: sh" % others[0]), names
tracks = {e["pid"] for e in events}
assert tracks == set(names), (tracks, names)
spans = [e for e in events if e["ph"] == "X"]
assert spans and all(e["pid"] == 0 for e in spans), spans  # only rank 0 has regions
configs = [e["pid"] for e in events if e.get("cat") == "config"]
assert set(configs) == set(names), configs
PY
else
    expect_in "$WORK/job.json" '"name":"process_name","pid":0,'
    expect_in "$WORK/job.json" '"name":"process_name","pid":1,'
fi

# A rank that finds the region but never replays it (its kernels excluded): it differs, its row is marked.
with_shim RANK=0 $GRAPH REPRISE_TRACE="$WORK/ex.0.trace" "$LOOP" > /dev/null
with_shim RANK=1 $GRAPH REPRISE_EXCLUDE_KERNELS='*' REPRISE_TRACE="$WORK/ex.1.trace" "$LOOP" > /dev/null
"$REPRISE" report "$WORK/ex.0.trace" "$WORK/ex.1.trace" > "$WORK/ex.report" || fail "report of ex.*.trace exited $?"
expect_in "$WORK/ex.report" "rank 1 differs: its regions never replay, while the other ranks' do"
expect_not_in "$WORK/ex.report" "rank 0 differs"
awk '$1 == 1 && $3 ~ /^[0-9]+$/ && $8 == 0 && / <- differs$/ { found = 1 } END { exit !found }' "$WORK/ex.report" ||
    fail "rank 1's region row is not marked: $(cat "$WORK/ex.report")"
awk '$1 == 0 && $3 ~ /^[0-9]+$/ && /differs/ { found = 1 } END { exit found }' "$WORK/ex.report" || fail "rank 0's row is marked"

# Three ranks, the third in observe mode: it differs in replays, regions and mode; the two others agree.
for r in 0 1 2; do
    mode=auto; [ "$r" = 2 ] && mode=observe
    env LD_PRELOAD="$PRELOAD" RANK=$r WORLD_SIZE=3 REPRISE_MODE=$mode REPRISE_MIN_REGION_CALLS=1 REPRISE_TRIAL=0 \
        REPRISE_TRACE="$WORK/three.$r.trace" "$LOOP" > /dev/null || fail "rank $r of three exited $?"
done
"$REPRISE" report "$WORK/three.2.trace" "$WORK/three.0.trace" "$WORK/three.1.trace" > "$WORK/three.report" ||
    fail "report of three ranks exited $?"
expect_in "$WORK/three.report" "rank 2 differs: no region found, while the other ranks' regions replay; 0 regions replaying, most 1; 0 regions, most 1; mode observe, most auto"
expect_count "$WORK/three.report" " differs: " 1
# Ranks in order, whatever the order of the traces.
[ "$(grep -E '^rank [0-9]: trace' "$WORK/three.report" | cut -c1-6 | tr '\n' ' ')" = "rank 0 rank 1 rank 2 " ] ||
    fail "ranks not in order: $(cat "$WORK/three.report")"
# Two alike ranks: nothing differs; a missing rank is named.
"$REPRISE" report "$WORK/three.0.trace" "$WORK/three.1.trace" > "$WORK/two.report" || fail "report of two ranks exited $?"
expect_in "$WORK/two.report" "the 2 ranks decided alike"
expect_in "$WORK/two.report" "(world size 3; no trace of rank 2)"
expect_not_in "$WORK/two.report" "differs"
# Processes without ranks: labelled by pid, compared all the same.
env -u RANK -u LOCAL_RANK LD_PRELOAD="$PRELOAD" $GRAPH REPRISE_TRACE="$WORK/np.a.trace" "$LOOP" > /dev/null
env -u RANK -u LOCAL_RANK LD_PRELOAD="$PRELOAD" REPRISE_MODE=observe REPRISE_TRACE="$WORK/np.b.trace" "$LOOP" > /dev/null
"$REPRISE" report "$WORK/np.a.trace" "$WORK/np.b.trace" > "$WORK/np.report" || fail "report of two processes exited $?"
grep -qE "^process [0-9]+ differs: no region found, while the other processes' regions replay; mode observe$" "$WORK/np.report" ||
    fail "the observing process does not differ: $(cat "$WORK/np.report")"
awk '$1 == "-" && $6 == "graphed"' "$WORK/np.report" | grep -q . || fail "no row without a rank"

# A rank whose communication library's calls passed through says how many, as its trace's exit event counts them.
NCCL_PROG="$TESTS_BIN/standin/driver_library_nccl"
for r in 0 1; do
    with_shim RANK=$r $GRAPH REPRISE_TRACE="$WORK/comm.$r.trace" "$NCCL_PROG" > /dev/null ||
        fail "driver_library_nccl as rank $r exited $?"
done
"$REPRISE" report "$WORK/comm.0.trace" "$WORK/comm.1.trace" > "$WORK/comm.report" || fail "report of comm.*.trace exited $?"
for r in 0 1; do
    n=$(sed -n 's/.*"ev":"exit".*"communication_calls":\([0-9]*\),.*/\1/p' "$WORK/comm.$r.trace")
    [ -n "$n" ] && [ "$n" -gt 0 ] || fail "rank $r's exit event counts no communication library call: '$n'"
    grep -qE "^rank $r: .* calls intercepted \($n of a communication library, passed through\)" "$WORK/comm.report" ||
        fail "the report does not say rank $r's $n communication library calls passed through: $(cat "$WORK/comm.report")"
done

# The recorded traces under tests/traces: the job's report as recorded; one trace's as before several were taken.
(cd "$TRACES" && "$REPRISE_ABS" report rank0.trace rank1.trace) > "$WORK/fixed-job.report" 2>&1
cmp -s "$TRACES/job.report" "$WORK/fixed-job.report" ||
    fail "the report of tests/traces/rank0.trace rank1.trace changed: $(diff "$TRACES/job.report" "$WORK/fixed-job.report" | head -10)"
(cd "$WORK" && cp "$TRACES/one.trace" . && "$REPRISE_ABS" report --chrome-trace one.json one.trace) > "$WORK/one.report" 2>&1
cmp -s "$TRACES/one.report" "$WORK/one.report" ||
    fail "one trace's report changed: $(diff "$TRACES/one.report" "$WORK/one.report" | head -10)"
cmp -s "$TRACES/one.json" "$WORK/one.json" || fail "one trace's Chrome trace changed"
# Several traces, one bad: one line, "reprise: error: ...".
expect_error 2 report "$TRACES/rank0.trace" "$WORK/missing.trace"
expect_error 2 report --bogus "$TRACES/rank0.trace" "$TRACES/rank1.trace"
finish
