#!/bin/sh
# SPDX-License-Identifier: MIT
# Auto mode against the stand-in: every scenario program, preloaded with
# REPRISE_MODE=auto, prints exactly what the H200 printed without the shim
# (tests/standin/expected/NAME.out), for several scheduler seeds; and the
# engine makes the decision each scenario is there to provoke (replayed,
# patched, fell back because ..., not graphed because ...), as its log says.
. "${top_srcdir:-.}/tests/lib.sh"
SCEN="$top_builddir/tests/scenarios"
EXPECTED="$top_srcdir/tests/standin/expected"

# Every run under the shim has a time limit, so that a program the shim makes hang (host_flag_wait, whose
# host waits for the GPU through memory, if held-back work were never submitted) fails instead of stalling.
LIMIT=
command -v timeout > /dev/null 2>&1 && LIMIT="timeout 60"
# with_shim, under the time limit (timeout runs a program, not with_shim, a shell function).  host_flag_wait's
# runs need the watchdog, whose bound tests/lib.sh sets at 10 s: 100 ms for them (each times out twice).
limited_shim() {
    case "$*" in
        *host_flag_wait*) set -- REPRISE_DEFERRAL_TIMEOUT_US=100000 "$@" ;;
    esac
    $LIMIT env LD_PRELOAD="$PRELOAD${LD_PRELOAD:+:$LD_PRELOAD}" "$@"
}

# NAME: the log line each scenario must show (a fixed string), with every region worth a graph.
# host_flag_wait's region is held back while the host spins on memory: the watchdog must submit it.
expectations='
alternating_args|region 2: replayed as a graph (3 calls in one launch, 3 nodes patched)
capture_status|region 2: replayed as a graph
d2h_each|region 2: replayed as a graph
event_timing|region 2: replayed as a graph
fork_join|graph built (16 nodes on 3 streams)
host_flag_wait|(deferral_timeout
host_func|replayed as a graph
launch_loop|region 2: replayed as a graph
legacy_stream|region 2: replayed as a graph
own_graph|(program_graph: cudaStreamBeginCapture)
pageable_h2d|region 2: replayed as a graph
per_thread|region 2: replayed as a graph
per_thread_threads|fell back after 4 of 4 calls (other_thread: cudaEventSynchronize)
query_sync|fell back after
symbol_update|replayed as a graph
sync_free|sync-free loop: the calls repeat every
two_shapes|replayed as a graph
growing|region 2: replayed as a graph
two_threads|replayed as a graph
malloc_in_loop|replayed as a graph
'

while IFS='|' read -r name line; do
    [ -n "$name" ] || continue
    prog="$SCEN/$name"
    [ -x "$prog" ] || { fail "$prog is not built"; continue; }
    for seed in 1 2 3; do
        limited_shim REPRISE_MODE=auto REPRISE_MIN_REGION_CALLS=1 REPRISE_TRIAL=0 REPRISE_LOG=info REPRISE_STATS=1 STANDIN_SEED=$seed \
            "$prog" > "$WORK/$name.$seed.out" 2> "$WORK/$name.$seed.log" || fail "$name (seed $seed) exited $?"
        if ! cmp -s "$EXPECTED/$name.out" "$WORK/$name.$seed.out"; then
            fail "$name (seed $seed): auto mode's output differs from the H200's without the shim"
            diff "$EXPECTED/$name.out" "$WORK/$name.$seed.out" | head -10 >&2
        fi
    done
    expect_in "$WORK/$name.1.log" "$line"
    # With the default policy too (short regions pass through): same results.
    limited_shim "$prog" > "$WORK/$name.default.out" 2> /dev/null || fail "$name with defaults exited $?"
    cmp -s "$EXPECTED/$name.out" "$WORK/$name.default.out" || fail "$name: default auto mode's output differs"
    echo "$name: ok"
done <<EOF
$expectations
EOF

# The robust path (REPRISE_REPLAY=robust: re-capture each occurrence, cudaGraphExecUpdate): same results, and
# the decision each scenario provokes there.  REPRISE_TRIAL=0: every occurrence on the robust path,
# unmeasured (how fast it is on the stand-in means nothing; the trial is checked below).
robust_expectations='
alternating_args|region 2: replayed on the robust path
capture_status|region 2: replayed on the robust path
d2h_each|region 2: replayed on the robust path
event_timing|region 2: replayed on the robust path
fork_join|region 2: replayed on the robust path
host_flag_wait|(deferral_timeout
host_func|region 2: replayed on the robust path
launch_loop|region 2: replayed on the robust path
legacy_stream|not graphed: REPRISE_REPLAY=robust, and it starts on the legacy stream, which cannot be captured
own_graph|(program_graph: cudaStreamBeginCapture)
pageable_h2d|region 2: replayed on the robust path
per_thread|the robust path takes no region on the per-thread default stream: a capture of that stream could be ended only by its own thread
per_thread_threads|not graphed: REPRISE_REPLAY=robust, and it starts on the per-thread default stream, whose capture no other thread could end
query_sync|fell back after
symbol_update|replayed on the robust path
sync_free|region 1: replayed on the robust path
two_shapes|region 3: replayed on the robust path
growing|region 2: replayed on the robust path
two_threads|region 2: replayed on the robust path
malloc_in_loop|replayed on the robust path
'
# Runs scenario $1 on the robust path with scheduler seed $2: stdout to $3.out, the log to $3.log.
robust_run() {
    limited_shim REPRISE_REPLAY=robust REPRISE_TRIAL=0 REPRISE_MIN_REGION_CALLS=1 REPRISE_LOG=info STANDIN_SEED=$2 \
        "$SCEN/$1" > "$3.out" 2> "$3.log"
}
while IFS='|' read -r name line; do
    [ -n "$name" ] || continue
    for seed in 1 2; do
        robust_run "$name" "$seed" "$WORK/$name.robust.$seed" || fail "$name (robust, seed $seed) exited $?"
        if ! cmp -s "$EXPECTED/$name.out" "$WORK/$name.robust.$seed.out"; then
            fail "$name (robust, seed $seed): output differs from the H200's without the shim"
            diff "$EXPECTED/$name.out" "$WORK/$name.robust.$seed.out" | head -10 >&2
        fi
    done
    expect_in "$WORK/$name.robust.1.log" "$line"
    expect_not_in "$WORK/$name.robust.1.log" "its graph pays"
    expect_not_in "$WORK/$name.robust.1.log" "its graph does not pay"
    echo "$name (robust): ok"
done <<EOF
$robust_expectations
EOF
# Several host threads keep the robust path (issue 15): each of two_threads' threads replays its own region there.
# A capture begins only while no other thread's call that could touch it is in flight, so on a slow host (the
# sanitizers' builds, two cores shared) one thread's every capture can meet the other's calls: up to two more
# runs, and the test fails only if none shows both threads replaying.
both_replayed() {
    for thread in 2 3; do
        grep -q "^reprise\[[0-9]*:$thread\] info: region 2: replayed on the robust path" "$1" || return 1
    done
}
log="$WORK/two_threads.robust.1.log"
for attempt in 2 3; do
    both_replayed "$log" && break
    log="$WORK/two_threads.robust.again$attempt.log"
    robust_run two_threads 1 "$WORK/two_threads.robust.again$attempt" || fail "two_threads (robust, run $attempt) exited $?"
    cmp -s "$EXPECTED/two_threads.out" "$WORK/two_threads.robust.again$attempt.out" ||
        fail "two_threads (robust, run $attempt): output differs from the H200's without the shim"
done
both_replayed "$log" || fail "two_threads (robust): a thread's region was not replayed on the robust path in 3 runs"

# The robust path's trial (REPRISE_TRIAL=2): occurrences alternate between passing through and the
# robust path, and a region that does not gain passes through for a while.  Whichever way it decides, the
# results are the same as without the shim, and a region replayed on the robust path gets a verdict.
while IFS='|' read -r name line; do
    [ -n "$name" ] || continue
    for seed in 1 2; do
        limited_shim REPRISE_REPLAY=robust REPRISE_TRIAL=2 REPRISE_MIN_REGION_CALLS=1 REPRISE_LOG=info \
            STANDIN_SEED=$seed "$SCEN/$name" > "$WORK/$name.trial.$seed.out" 2> "$WORK/$name.trial.$seed.log" ||
            fail "$name (trial, seed $seed) exited $?"
        cmp -s "$EXPECTED/$name.out" "$WORK/$name.trial.$seed.out" ||
            fail "$name (trial, seed $seed): output differs from the H200's without the shim"
    done
    case $line in
        *"replayed on the robust path")
            grep -qE 'region [0-9]+: its graph (pays|does not pay) \(robust path' "$WORK/$name.trial.1.log" ||
                fail "$name (trial): no region's trial came to a verdict" ;;
    esac
    echo "$name (trial): ok"
done <<EOF
$robust_expectations
EOF

# host_flag_wait (issue 12, case 1): the host waits for the GPU through mapped memory, with no CUDA call.
# Held-back work it waits for is submitted by the watchdog (above: the same output, deferral_timeout in the
# log), on both paths; a region that timed out twice in a row backs off for 16 sightings, doubling with each
# timeout after (without that it would time out again after every short back-off: about 90 times in 200
# iterations), so 200 iterations see at most 2 + log2(200 / 16) + 1 of them; the trace names the fallback too.
for log in "$WORK/host_flag_wait.1.log" "$WORK/host_flag_wait.robust.1.log"; do
    expect_in "$log" "backing off for 16 sightings: its held-back work timed out 2 times in a row"
    n=$(grep -c '(deferral_timeout' "$log")
    [ "$n" -ge 2 ] && [ "$n" -le 6 ] ||
        fail "$log: $n deferral_timeout fallbacks, expected 2 to 6 (timeout back-offs of 16, 32, 64, 128 sightings)"
done
limited_shim REPRISE_MIN_REGION_CALLS=1 REPRISE_TRACE="$WORK/flag.json" "$SCEN/host_flag_wait" > "$WORK/flag.out" 2> /dev/null ||
    fail "host_flag_wait with a trace exited $?"
cmp -s "$EXPECTED/host_flag_wait.out" "$WORK/flag.out" || fail "host_flag_wait with a trace: output differs"
grep '"ev":"fallback"' "$WORK/flag.json" | grep -q '"reason":"deferral_timeout"' ||
    fail "$WORK/flag.json: no fallback event with \"reason\":\"deferral_timeout\""

# The trial's verdicts, made certain by giving the stand-in's calls a host cost, on both paths: a dear
# cudaGraphExecUpdate (STANDIN_GRAPH_UPDATE_US, robust path) or cudaGraphLaunch (STANDIN_GRAPH_LAUNCH_US,
# fast path) makes the graph lose; dear submissions (STANDIN_SUBMIT_US; a graph launch is one) make it win.
# On the virtual host clock (tests/lib.sh's with_clock) the trial times those costs alone: on the machine's,
# a descheduled occurrence could sway a median of two.
for case in "robust STANDIN_GRAPH_UPDATE_US" "auto STANDIN_GRAPH_LAUNCH_US"; do
    set -- $case
    replay=$1 dear=$2
    for name in launch_loop fork_join; do
        run="$WORK/$name.$replay"
        with_clock REPRISE_REPLAY=$replay REPRISE_TRIAL=2 REPRISE_MIN_REGION_CALLS=1 REPRISE_LOG=info REPRISE_STATS=1 \
            REPRISE_TRACE="$run.loses.json" env $dear=2000 "$SCEN/$name" > "$run.loses.out" 2> "$run.loses.log" ||
            fail "$name ($replay, losing trial) exited $?"
        cmp -s "$EXPECTED/$name.out" "$run.loses.out" || fail "$name ($replay, losing trial): output differs"
        # Said once at info; after its back-off the region is tried again (and loses again).
        expect_count "$run.loses.log" "region 2: its graph does not pay (" 1
        expect_in "$run.loses.log" "us passed through): passing through until it is stable again (2 sightings)"
        expect_in "$run.loses.log" "fallbacks: not_paying "
        expect_not_in "$run.loses.log" "its graph pays"
        n=$(grep '"ev":"payoff"' "$run.loses.json" | grep -c '"region":2,.*"pays":false')
        [ "$n" -ge 2 ] || fail "$name ($replay, losing trial): $n verdicts in the trace, expected a trial again after the back-off"

        with_clock REPRISE_REPLAY=$replay REPRISE_TRIAL=2 REPRISE_MIN_REGION_CALLS=1 REPRISE_LOG=info REPRISE_STATS=1 \
            STANDIN_SUBMIT_US=1000 "$SCEN/$name" > "$run.wins.out" 2> "$run.wins.log" ||
            fail "$name ($replay, winning trial) exited $?"
        cmp -s "$EXPECTED/$name.out" "$run.wins.out" || fail "$name ($replay, winning trial): output differs"
        expect_count "$run.wins.log" "region 2: its graph pays (" 1
        expect_not_in "$run.wins.log" "not_paying"
    done
    path=$replay
    [ "$replay" = auto ] && path=fast
    expect_in "$WORK/launch_loop.$replay.wins.log" "its graph pays ($path path: "
done

# A trace asked for, the log left at its default: the per-region summary goes to the trace only.
with_shim REPRISE_MIN_REGION_CALLS=1 REPRISE_TRACE="$WORK/quiet.json" "$SCEN/launch_loop" > "$WORK/quiet.out" 2> "$WORK/quiet.err" ||
    fail "launch_loop with a trace exited $?"
[ ! -s "$WORK/quiet.err" ] || { fail "the shim wrote to stderr with only a trace asked for"; head -3 "$WORK/quiet.err" >&2; }
expect_in "$WORK/quiet.json" '"ev":"region_summary"'

# REPRISE_EXCLUDE_KERNELS keeps a region's kernels out of graphs; the results stay the same.
prog="$SCEN/launch_loop"
with_shim REPRISE_MIN_REGION_CALLS=1 REPRISE_LOG=info REPRISE_STATS=1 REPRISE_EXCLUDE_KERNELS='k_scale, k_add*' \
    "$prog" > "$WORK/excluded.out" 2> "$WORK/excluded.log" || fail "launch_loop with exclusions exited $?"
cmp -s "$EXPECTED/launch_loop.out" "$WORK/excluded.out" || fail "launch_loop with exclusions: output differs"
expect_in "$WORK/excluded.log" "which REPRISE_EXCLUDE_KERNELS names"
expect_not_in "$WORK/excluded.log" "replayed as a graph"
# ... on the robust path too.
with_shim REPRISE_REPLAY=robust REPRISE_MIN_REGION_CALLS=1 REPRISE_LOG=info REPRISE_EXCLUDE_KERNELS='k_scale' \
    "$prog" > "$WORK/excluded-robust.out" 2> "$WORK/excluded-robust.log" || fail "launch_loop (robust, excluded) exited $?"
cmp -s "$EXPECTED/launch_loop.out" "$WORK/excluded-robust.out" || fail "launch_loop (robust, excluded): output differs"
expect_in "$WORK/excluded-robust.log" "it launches k_scale, which REPRISE_EXCLUDE_KERNELS names"
expect_not_in "$WORK/excluded-robust.log" "replayed on the robust path"
# REPRISE_EXCLUDE_STREAMS by kind (two_threads' streams are non-blocking) ...
with_shim REPRISE_MIN_REGION_CALLS=1 REPRISE_LOG=info REPRISE_EXCLUDE_STREAMS=non_blocking "$SCEN/two_threads" \
    > "$WORK/streams.out" 2> "$WORK/streams.log" || fail "two_threads with excluded streams exited $?"
cmp -s "$EXPECTED/two_threads.out" "$WORK/streams.out" || fail "two_threads with excluded streams: output differs"
expect_in "$WORK/streams.log" "(non_blocking, priority 0), which REPRISE_EXCLUDE_STREAMS names"
expect_not_in "$WORK/streams.log" "replayed as a graph"
with_shim REPRISE_MIN_REGION_CALLS=1 REPRISE_LOG=info REPRISE_EXCLUDE_STREAMS=legacy,per_thread,blocking,high_priority \
    "$SCEN/two_threads" > /dev/null 2> "$WORK/streams-kept.log" || fail "two_threads with other kinds excluded exited $?"
expect_in "$WORK/streams-kept.log" "replayed as a graph"
# ... and by the id the log gives when it finds the region.
with_shim REPRISE_MIN_REGION_CALLS=1 REPRISE_LOG=info "$prog" > /dev/null 2> "$WORK/ids.log" || fail "launch_loop exited $?"
id=$(sed -n 's/.*region 2: [0-9]* calls on stream \([0-9]*\) (.*/\1/p' "$WORK/ids.log" | head -1)
[ -n "$id" ] || fail "the log does not name region 2's stream by id"
with_shim REPRISE_MIN_REGION_CALLS=1 REPRISE_LOG=info REPRISE_EXCLUDE_STREAMS="$id" "$prog" \
    > "$WORK/by-id.out" 2> "$WORK/by-id.log" || fail "launch_loop with stream $id excluded exited $?"
cmp -s "$EXPECTED/launch_loop.out" "$WORK/by-id.out" || fail "launch_loop with stream $id excluded: output differs"
expect_in "$WORK/by-id.log" "it uses stream $id ("
expect_not_in "$WORK/by-id.log" "replayed as a graph"
# A profiler attached: auto steps aside, unless told to ignore it.
with_shim REPRISE_MIN_REGION_CALLS=1 REPRISE_LOG=info NSYS_PROFILING_SESSION_ID=7 \
    "$prog" > "$WORK/profiled.out" 2> "$WORK/profiled.log" || fail "launch_loop under a profiler exited $?"
cmp -s "$EXPECTED/launch_loop.out" "$WORK/profiled.out" || fail "launch_loop under a profiler: output differs"
expect_count "$WORK/profiled.log" "a profiler is attached (NSYS_PROFILING_SESSION_ID is set): graphing nothing" 1
expect_not_in "$WORK/profiled.log" "replayed as a graph"
with_shim REPRISE_MIN_REGION_CALLS=1 REPRISE_LOG=info NSYS_PROFILING_SESSION_ID=7 REPRISE_PROFILER=ignore \
    "$prog" > "$WORK/ignored.out" 2> "$WORK/ignored.log" || fail "launch_loop, profiler ignored, exited $?"
expect_in "$WORK/ignored.log" "replayed as a graph"
finish
