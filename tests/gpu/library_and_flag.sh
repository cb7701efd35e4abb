#!/bin/sh
# SPDX-License-Identifier: MIT
# On a real GPU, issue 12's two programs (kernels/apps/, make gpu-programs)
# run without the shim, then preloaded with REPRISE_MODE=off, auto, and auto
# with REPRISE_REPLAY=robust (each with REPRISE_LOG=info, the log and a trace
# to files, under `timeout 60`); stdout must be byte-identical and the exit
# status 0 in all four runs.  Then:
#
#   host_flag_wait (the host spins on mapped memory that the last of 5
#   kernels writes, no CUDA call until it changes): the auto run takes at
#   most twice the wall time of the run without the shim; its log shows a
#   fallback `fell back after K of M calls (deferral_timeout...)` (and its
#   trace a fallback event with that reason), and each region that timed out
#   twice in a row backs off for 16 sightings, then for twice as many after
#   each timeout more: its back-offs grow, and its timeouts in the 2000
#   iterations are at most 2 + log2(2000 / 16) + 1 = 10.
#
#   cg_blas (a CG solver: its own one-thread kernels, cuBLAS level-1 routines
#   with device scalars and a cuSPARSE SpMV on one blocking stream): the auto
#   and robust logs show its region(s), and neither they nor the program say
#   INTERNAL_ERROR; it prints which regions were graphed, on which path.
#
# Skips (77) without the programs or without a GPU: it never passes without
# one.  GPU_SUITE_KEEP=DIR copies every output, log and trace to DIR
# (tools/dev/gpu-suite).
. "${top_srcdir:-.}/tests/lib.sh"
APPS="$top_builddir/kernels/apps"
programs="host_flag_wait cg_blas"

for name in $programs; do
    [ -x "$APPS/$name.gpu" ] || skip "$APPS/$name.gpu is not built (make gpu-programs)"
done
command -v nvidia-smi > /dev/null 2>&1 || skip "nvidia-smi not found: no GPU here"
nvidia-smi -L > "$WORK/gpus" 2>&1 || skip "nvidia-smi -L failed: no GPU here ($(head -1 "$WORK/gpus"))"

# A time limit on each run, before `env LD_PRELOAD=...` so that the shim is preloaded into the program alone.
LIMIT=
command -v timeout > /dev/null 2>&1 && LIMIT="timeout 60"

# Milliseconds since the epoch (GNU date; whole seconds where %N is not understood).
now_ms() {
    ns=$(date +%s%N)
    case "$ns" in
    *[!0-9]*) echo $(($(date +%s) * 1000)) ;;
    *) echo $((ns / 1000000)) ;;
    esac
}

# cg_blas needs libcublas.so.13, libcublasLt.so.13 and libcusparse.so.12, found through its rpath to
# $CUDA_HOME/lib64 of the build machine.  Where they are not there, look for them in the toolkit and in
# python3's nvidia wheels (PyTorch's cuBLAS and cuSPARSE), and give their folders to cg_blas's runs alone.
library_path_for "$APPS/cg_blas.gpu"
if [ -n "$missing" ]; then
    still=$(LD_LIBRARY_PATH="$LIBPATH${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" missing_libs "$APPS/cg_blas.gpu")
    if [ -n "$still" ]; then
        fail "cg_blas.gpu cannot find $(echo "$still" | paste -s -d ' ' -) (not in \$CUDA_HOME/lib64, /usr/local/cuda/lib64 or python3's nvidia wheels): set LD_LIBRARY_PATH"
        programs=host_flag_wait
    fi
fi
echo "cg_blas.gpu loads:"
LD_LIBRARY_PATH="$LIBPATH${LD_LIBRARY_PATH:+${LIBPATH:+:}$LD_LIBRARY_PATH}" ldd "$APPS/cg_blas.gpu" 2> /dev/null |
    grep -E 'libcudart|libcublas|libcusparse' | sed 's/^[[:space:]]*/    /;s/ (0x[0-9a-f]*)$//'

# run NAME LABEL [VAR=VALUE...]: runs kernels/apps/NAME.gpu under the time limit, without the shim if
# LABEL is plain, else preloaded with VAR=VALUE..., REPRISE_LOG=info, the log in $WORK/NAME.LABEL.log and
# the trace in $WORK/NAME.LABEL.trace; its stdout, stderr, exit status and wall time in milliseconds go to
# $WORK/NAME.LABEL.out, .err, .status and .ms.
run() {
    name=$1 label=$2
    shift 2
    out="$WORK/$name.$label"
    [ "$label" = plain ] ||
        set -- LD_PRELOAD="$SHIM${LD_PRELOAD:+:$LD_PRELOAD}" REPRISE_LOG=info REPRISE_LOG_FILE="$out.log" \
            REPRISE_TRACE="$out.trace" "$@"
    [ "$name" = cg_blas ] && [ -n "$LIBPATH" ] &&
        set -- LD_LIBRARY_PATH="$LIBPATH${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$@"
    status=0
    began=$(now_ms)
    $LIMIT env "$@" "$APPS/$name.gpu" > "$out.out" 2> "$out.err" || status=$?
    ended=$(now_ms)
    echo "$status" > "$out.status"
    echo $((ended - began)) > "$out.ms"
}

# The log's lines without the "reprise[PID:THREAD] info: " prefix, indented.
decisions() {
    sed 's/^reprise\[[0-9:]*\] [a-z]*: /    /'
}

# What the trace $1 says of the graphs: one line per region graphed (path, size) and its exit summary.
graphs_of() {
    sed -n 's/.*"ev":"graph_built".*"region":\([0-9]*\),\(.*\),"path":"\([a-z]*\)".*/    region \1: graph built on the \3 path (\2)/p' "$1" |
        sed 's/"\([a-z]*\)":/\1 /g;s/,/, /g'
    sed -n 's/.*"ev":"region_summary".*"region":\([0-9]*\),"thread":\([0-9]*\),"calls":\([0-9]*\),"state":"\([a-z]*\)","sightings":\([0-9]*\),"replays":\([0-9]*\),"recaptures":\([0-9]*\).*/    region \1 (thread \2, \3 calls): \4 at exit, \5 occurrences, \6 replays (\7 re-captured)/p' "$1"
}

for name in $programs; do
    failures_before=$failures
    run "$name" plain
    status=$(cat "$WORK/$name.plain.status")
    if [ "$status" -eq 77 ]; then
        skip "$name exits 77 without the shim: no usable GPU ($(tail -1 "$WORK/$name.plain.err"))"
    fi
    if [ "$status" -ne 0 ]; then
        fail "$name fails without the shim (exit $status): the program, not the shim, is wrong"
        sed 's/^/  | /' "$WORK/$name.plain.err" "$WORK/$name.plain.out" | tail -20 >&2
        continue
    fi
    run "$name" off REPRISE_MODE=off
    run "$name" auto REPRISE_MODE=auto
    run "$name" robust REPRISE_MODE=auto REPRISE_REPLAY=robust
    for label in off auto robust; do
        out="$WORK/$name.$label"
        status=$(cat "$out.status")
        if [ "$status" -ne 0 ]; then
            case "$status" in
            124 | 137) why="killed by timeout after 60 s" ;;
            3) why="host_flag_wait's own 20 s time limit on the flag: it would hang" ;;
            *) why="without the shim 0" ;;
            esac
            fail "$name ($label) exits $status ($why)"
            sed 's/^/  | /' "$out.err" | tail -8 >&2
            [ -f "$out.log" ] && grep -E 'warning|error|fell back' "$out.log" | tail -6 | sed 's/^/  | /' >&2
        fi
        if ! cmp -s "$WORK/$name.plain.out" "$out.out"; then
            fail "$name's stdout ($label) differs from the run without the shim"
            diff "$WORK/$name.plain.out" "$out.out" | head -12 | sed 's/^/  | /' >&2
        fi
        expect_count "$out.trace" '"ev":"exit"' 1
    done
    echo "$name: wall ms: no shim $(cat "$WORK/$name.plain.ms"), off $(cat "$WORK/$name.off.ms"), auto $(cat "$WORK/$name.auto.ms"), robust $(cat "$WORK/$name.robust.ms"); loop us:$(for l in plain off auto robust; do printf ' %s %s' $l "$(sed -n 's/.*loop_us \([0-9]*\).*/\1/p' "$WORK/$name.$l.err")"; done)"

    case "$name" in
    host_flag_wait)
        log="$WORK/$name.auto.log"
        plain_ms=$(cat "$WORK/$name.plain.ms") auto_ms=$(cat "$WORK/$name.auto.ms")
        if [ "$auto_ms" -gt $((2 * plain_ms)) ]; then
            fail "$name under auto took $auto_ms ms, more than twice its $plain_ms ms without the shim"
        else
            echo "ok: $name under auto: $auto_ms ms, within twice its $plain_ms ms without the shim"
        fi
        plain_us=$(sed -n 's/.*loop_us \([0-9]*\).*/\1/p' "$WORK/$name.plain.err")
        auto_us=$(sed -n 's/.*loop_us \([0-9]*\).*/\1/p' "$WORK/$name.auto.err")
        [ -n "$plain_us" ] && [ -n "$auto_us" ] && [ "$auto_us" -gt $((2 * plain_us)) ] &&
            echo "note: $name's loop alone took $auto_us us under auto, more than twice its $plain_us us without the shim (not a failure: the whole run is what is compared)"
        grep -n 'fell back after [0-9]* of [0-9]* calls (deferral_timeout' "$log" > "$WORK/$name.timeouts"
        if [ ! -s "$WORK/$name.timeouts" ]; then
            fail "$name: the auto log shows no 'fell back after K of M calls (deferral_timeout' line"
        else
            sed -n 's/.*region \([0-9]*\): fell back after.*/\1/p' "$WORK/$name.timeouts" | sort -un > "$WORK/$name.timed_out"
            while read -r region; do
                times=$(grep -c "region $region: fell back after [0-9]* of [0-9]* calls (deferral_timeout" "$log")
                sed -n "s/.*region $region: fell back after .*backing off for \([0-9]*\) sightings.*/\1/p" "$log" \
                    > "$WORK/$name.backoffs"
                if [ "$times" -gt 10 ]; then
                    fail "$name: region $region fell back $times times with deferral_timeout, more than 10 (its back-offs do not grow)"
                elif [ "$times" -ge 2 ] && [ "$(head -1 "$WORK/$name.backoffs")" != 16 ]; then
                    fail "$name: region $region timed out $times times, and its first timeout back-off is not 16 sightings ($(head -1 "$WORK/$name.backoffs"))"
                elif ! sort -nc "$WORK/$name.backoffs" 2>/dev/null || [ "$(sort -nu "$WORK/$name.backoffs" | wc -l)" != "$(wc -l < "$WORK/$name.backoffs")" ]; then
                    fail "$name: region $region's timeout back-offs do not grow: $(tr '\n' ' ' < "$WORK/$name.backoffs")"
                else
                    echo "ok: $name: region $region fell back $times time(s) with deferral_timeout, back-offs $(tr '\n' ' ' < "$WORK/$name.backoffs")"
                fi
            done < "$WORK/$name.timed_out"
        fi
        grep '"ev":"fallback"' "$WORK/$name.auto.trace" | grep -q '"reason":"deferral_timeout"' ||
            fail "$name: the auto trace has no fallback event with reason deferral_timeout"
        for label in auto robust; do
            echo "  $label:"
            grep -E 'info: region [0-9]+: (graph|replayed|fell back|not graphed|moving)' \
                "$WORK/$name.$label.log" | decisions | head -8
        done
        ;;
    cg_blas)
        for label in auto robust; do
            log="$WORK/$name.$label.log"
            grep -q 'info: region [0-9]' "$log" || fail "$name ($label): the log shows no region"
            expect_not_in "$log" INTERNAL_ERROR
            expect_not_in "$WORK/$name.$label.err" INTERNAL_ERROR
            echo "  $label:"
            graphs_of "$WORK/$name.$label.trace" > "$WORK/$name.$label.graphs"
            if grep -q 'graph built' "$WORK/$name.$label.graphs"; then
                cat "$WORK/$name.$label.graphs"
            else
                echo "    no region graphed"
                grep -E '"ev":"region_summary"' "$WORK/$name.$label.trace" | head -3 | sed 's/^/    /'
            fi
            grep -E 'info: (region [0-9]+: (driver-API|moving|fell back|not graphed)|a capture)|warning:' "$log" |
                decisions | sort | uniq -c | sort -rn | head -6
        done
        ;;
    esac
    if [ "$failures" -eq "$failures_before" ]; then
        echo "ok: $name: the same stdout and exit status 0 without the shim and with off, auto, auto+robust"
    else
        echo "FAILED: $name ($((failures - failures_before)) failure(s) above)" >&2
    fi
done
finish
