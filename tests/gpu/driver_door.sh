#!/bin/sh
# SPDX-License-Identifier: MIT
# On a real GPU, the shim's driver front door: programs built with nvcc's
# default static CUDA runtime (kernels/apps/NAME.static, make gpu-programs),
# whose work reaches the shim only through libcuda's driver API, run without
# the shim, then preloaded with REPRISE_MODE=off and REPRISE_MODE=auto
# (REPRISE_LOG=info, the log to a file).  For every program:
#
#   - stdout is byte-identical in the three runs (for the timing programs,
#     bench_loop, bench_suite and overhead_loop, every line but the timings:
#     median_us, ns_per_launch, ns_per_launch_mean), and the exit status is
#     the same (bad_launch's failing launches are part of its stdout);
#   - for the launch-bound programs (launch_loop, launch_loop_ptds,
#     bench_loop, bench_suite's loop workloads) the auto log says that a
#     region was "replayed as a graph".
#
# bench_suite.static runs a few workloads, eager and its own hand-written
# graph (its stream capture, under the shim too).  It also runs `reprise
# check` on launch_loop.static and shows its output; only its exit status
# (0) is asserted, not its wording.  Skips (77) without the static programs
# or without a GPU.  GPU_SUITE_KEEP=DIR copies every output and log to DIR.
. "${top_srcdir:-.}/tests/lib.sh"
APPS="$top_builddir/kernels/apps"

# NAME:ARGS (commas for spaces):GRAPHED (yes: the auto log must say "replayed as a graph").
runs="launch_loop::yes launch_loop_ptds::yes launch_api::no two_streams::no bad_launch::no
overhead_loop:20000:no bench_loop:eager,100,300:yes bench_loop:graph,100,300:no host_flag_wait::no cg_blas::no cg_blas:graph:no
bench_suite:loop100_small,eager,300:yes bench_suite:loop20_empty,eager,300:yes bench_suite:loop400_small,eager,100:yes
bench_suite:loop100_small,graph,300:no bench_suite:fork3,eager,300:no bench_suite:jacobi,eager,500:no
bench_suite:syncfree,eager,10000:no bench_suite:pingpong,eager,300:no"

for entry in $runs; do
    name=${entry%%:*}
    [ -x "$APPS/$name.static" ] || skip "$APPS/$name.static is not built (make gpu-programs)"
done
command -v nvidia-smi > /dev/null 2>&1 || skip "nvidia-smi not found: no GPU here"
nvidia-smi -L > "$WORK/gpus" 2>&1 || skip "nvidia-smi -L failed: no GPU here ($(head -1 "$WORK/gpus"))"

# The static programs must need no libcudart.so (make gpu-programs checks it too).
for entry in $runs; do
    name=${entry%%:*}
    if command -v readelf > /dev/null 2>&1 && readelf -d "$APPS/$name.static" | grep -q 'NEEDED.*libcudart'; then
        fail "$name.static NEEDS a libcudart.so: not a static-runtime build"
    fi
done

# A time limit on each run, before `env LD_PRELOAD=...`, so that the shim is preloaded into the program alone.
LIMIT=
command -v timeout > /dev/null 2>&1 && LIMIT="timeout 120"

# cg_blas.static needs libcublas.so.13, libcublasLt.so.13, libcusparse.so.12 (as in library_and_flag.sh):
# where its rpath does not find them, the toolkit's or python3's nvidia wheels' folders, for its runs alone.
library_path_for "$APPS/cg_blas.static"

# The stdout lines compared: all but the timings.
compared() {
    grep -vE '^(median_us|ns_per_launch|ns_per_launch_mean) ' "$1"
}

# run NAME LABEL ARGS...: runs NAME.static ARGS (LABEL plain: no shim; off or auto: preloaded in that mode,
# REPRISE_LOG=info, the log to $out.log); stdout, stderr and exit status to $out.out, .err, .status.
run() {
    name=$1 label=$2
    shift 2
    set -- "$APPS/$name.static" "$@"
    [ "$label" = plain ] ||
        set -- LD_PRELOAD="$SHIM${LD_PRELOAD:+:$LD_PRELOAD}" REPRISE_MODE="$label" REPRISE_LOG=info \
            REPRISE_LOG_FILE="$out.$label.log" "$@"
    [ "$name" = cg_blas ] && [ -n "$LIBPATH" ] &&
        set -- LD_LIBRARY_PATH="$LIBPATH${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$@"
    status=0
    $LIMIT env "$@" > "$out.$label.out" 2> "$out.$label.err" || status=$?
    echo "$status" > "$out.$label.status"
    [ "$label" = plain ] || [ -f "$out.$label.log" ] || : > "$out.$label.log"
}

n=0
for entry in $runs; do
    name=${entry%%:*}
    rest=${entry#*:}
    args=$(echo "${rest%:*}" | tr ',' ' ')
    graphed=${rest##*:}
    n=$((n + 1))
    out="$WORK/$n.$name"
    what="$name.static${args:+ $args}"
    failures_before=$failures
    # shellcheck disable=SC2086 # args are words
    run "$name" plain $args
    status=$(cat "$out.plain.status")
    if [ "$status" -eq 77 ]; then
        skip "$what exits 77 without the shim: no usable GPU ($(tail -1 "$out.plain.err"))"
    fi
    if [ "$status" -ne 0 ]; then
        fail "$what fails without the shim (exit $status): the program, not the shim, is wrong"
        sed 's/^/  | /' "$out.plain.err" "$out.plain.out" | tail -20 >&2
        continue
    fi
    compared "$out.plain.out" > "$out.plain.cmp"
    for mode in off auto; do
        # shellcheck disable=SC2086
        run "$name" $mode $args
        got=$(cat "$out.$mode.status")
        if [ "$got" != "$status" ]; then
            case "$got" in
            124 | 137) why="killed by timeout after 120 s" ;;
            *) why="without the shim $status" ;;
            esac
            fail "$what with REPRISE_MODE=$mode exits $got ($why)"
            sed 's/^/  | /' "$out.$mode.err" | tail -10 >&2
            grep -E 'warning|error' "$out.$mode.log" | tail -6 | sed 's/^/  | /' >&2
        fi
        compared "$out.$mode.out" > "$out.$mode.cmp"
        if ! cmp -s "$out.plain.cmp" "$out.$mode.cmp"; then
            fail "$what: stdout with REPRISE_MODE=$mode differs from the run without the shim (< no shim, > $mode)"
            diff "$out.plain.cmp" "$out.$mode.cmp" | head -16 | sed 's/^/  | /' >&2
        fi
    done
    replays=$(grep -c 'replayed as a graph' "$out.auto.log")
    regions=$(grep -E 'info: region [0-9]+:' "$out.auto.log" | sed 's/.*info: region \([0-9]*\):.*/\1/' | sort -u | wc -l)
    if [ "$graphed" = yes ] && [ "$replays" -eq 0 ]; then
        fail "$what: the auto log never says a region was 'replayed as a graph' ($regions region(s) named)"
        grep -E 'info: (region|sync-free|verdict)|warning' "$out.auto.log" | head -8 | sed 's/^/  | /' >&2
    fi
    checked="stdout$(cmp -s "$out.plain.out" "$out.plain.cmp" || echo ' (timings left out)') identical ($(wc -l < "$out.plain.cmp") lines), exit $status, with no shim, off, auto"
    [ "$graphed" = yes ] && checked="$checked; auto replayed as a graph"
    if [ "$failures" -eq "$failures_before" ]; then
        echo "ok: $what: $checked"
    else
        echo "FAILED: $what ($((failures - failures_before)) failure(s) above)" >&2
    fi
    # What auto did, for the record.
    grep -E 'info: (region [0-9]+: (graph built|replayed|fell back|not graphed)|sync-free|verdict)' "$out.auto.log" |
        sed 's/^reprise\[[0-9:]*\] info: /    /' | sort | uniq -c | sort -rn | head -5
done

# The scenarios written against the driver API only (tests/scenarios/driver_*.c; make gpu-programs), their
# kernels loaded by name from a module: the same output with no shim and under auto, replayed as graphs.
export SCENARIO_MODULE="$top_builddir/kernels/all_kernels.fatbin"
for p in driver_loop driver_mixed mixed_door; do
    bin="$top_builddir/tests/scenarios/$p.gpu"
    [ -x "$bin" ] && [ -f "$SCENARIO_MODULE" ] || { fail "$bin or $SCENARIO_MODULE is not built (make gpu-programs)"; continue; }
    "$bin" > "$WORK/$p.plain" 2>&1 || fail "$p.gpu exits $? without the shim"
    env LD_PRELOAD="$SHIM" REPRISE_MODE=auto REPRISE_LOG=info REPRISE_TRIAL=0 "$bin" > "$WORK/$p.auto" \
        2> "$WORK/$p.auto.log" || fail "$p.gpu exits $? under auto"
    cmp -s "$WORK/$p.plain" "$WORK/$p.auto" || { fail "$p.gpu: auto prints otherwise"; diff "$WORK/$p.plain" "$WORK/$p.auto" | head -4 >&2; }
    expect_in "$WORK/$p.auto.log" "replayed as a graph"
    echo "ok: $p.gpu (driver API only$([ $p = mixed_door ] && echo ', with runtime launches')): identical under auto, replayed"
done

# reprise run + reprise report on a static program: its region graphed and replayed, as a dynamic one's.
status=0
"$REPRISE" run --trace "$WORK/static.trace" -- "$APPS/launch_loop.static" > "$WORK/run.out" 2> "$WORK/run.err" ||
    status=$?
[ "$status" -eq 0 ] || fail "reprise run -- launch_loop.static exits $status"
"$REPRISE" report "$WORK/static.trace" > "$WORK/report.out" 2>&1 || fail "reprise report of launch_loop.static's trace"
echo "reprise report (reprise run -- launch_loop.static):"
sed 's/^/    /' "$WORK/report.out" | head -8
awk '$4 == "graphed" && $6 > 0 { found = 1 } END { exit !found }' "$WORK/report.out" ||
    fail "reprise report shows no graphed region with replays for launch_loop.static"

# reprise check on a static program: shown, its wording not asserted; it must exit 0.
echo "reprise check $APPS/launch_loop.static:"
status=0
"$REPRISE" check "$APPS/launch_loop.static" > "$WORK/check.out" 2>&1 || status=$?
sed 's/^/    /' "$WORK/check.out"
if [ "$status" -eq 0 ]; then
    echo "ok: reprise check launch_loop.static exits 0"
else
    fail "reprise check launch_loop.static exits $status, expected 0"
fi
finish
