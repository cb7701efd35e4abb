#!/bin/bash
# SPDX-License-Identifier: MIT
# The zoo (issue 24, item 6): outside programs, unmodified, on a real GPU.
#
#     bash tests/gpu/zoo.sh [BUILD_DIR]          (from the repository root; default: $top_builddir, else build)
#
# Each member runs without the shim (none), then preloaded with REPRISE_MODE=off, REPRISE_MODE=auto and
# auto with REPRISE_REPLAY=robust (robust), each under `timeout` (a hang fails), with REPRISE_LOG=info and
# the log to a file (REPRISE_LOG_FILE, one per process), stdout to a file.  A shim run passes when its
# exit status is the run's without the shim (0) and its stdout is byte-identical to it, timing lines
# (those beginning "median_us " or "host_calib_us ") left out: the members print token ids, values with
# repr or %.17g, and checksums of their final state.  "Regions replayed" counts the log's first replays
# ("region N: replayed as a graph" or "replayed on the robust path", one per region and process).  The
# time per step is the program's own median (its "median_us" line, on stdout or stderr).
#
# The members (kernels/torch/ and kernels/apps/, make gpu-programs):
#
#   hf_static_compile  zoo_generate.py static: HF generate() of a random 8-layer Llama, static cache, its
#                      automatic torch.compile (CUDA graphs of PyTorch's own); 3 calls of 96 tokens
#   hf_static_eager    zoo_generate.py static_eager: the static cache with disable_compile=True
#   hf_dynamic         zoo_generate.py dynamic: the default dynamic cache
#   compile_default    zoo_compile.py default: torch.compile of two transformer blocks, 40 steps
#   compile_ro         zoo_compile.py reduce-overhead: the same, mode="reduce-overhead"
#   jax_eager          zoo_jax.py eager: 50 iterations of 60 un-jitted jnp operations, a value read each
#   jax_jit            zoo_jax.py jit: the same step under jax.jit, 200 iterations
#   cupy_loop          cupy_loop.py eager (libraries.sh's): CuPy ElementwiseKernels and a reduction
#   triton_loop        triton_loop.py eager (libraries.sh's): a triton.jit kernel 50 times an iteration
#   pcg_ilu            kernels/apps/pcg_ilu.gpu: ILU(0)-preconditioned CG, cuBLAS and cuSPARSE (SpSV,
#                      SpMV), the legacy stream, cudaDeviceReset() at the end; pcg_ilu_static: .static
#   lt_gemm            kernels/apps/lt_gemm.gpu: cuBLASLt bf16 GEMMs and own kernels, a sync an
#                      iteration; lt_gemm_static: .static
#   train_lt           kernels/apps/train_lt.gpu (issue 25): an MLP's training step on cuBLASLt (5 GEMMs,
#                      17 own kernels, two on the legacy stream, Adam), a sync a step; train_lt_static: .static
#   decode_loop        kernels/apps/decode_loop.gpu (issue 25): a decode loop whose attention grid and copy
#                      sizes grow by one step every iteration, 53 calls and a sync an iteration
#
# hf_static_compile, jax_eager, pcg_ilu and pcg_ilu_static (the programs that crashed under the shim) run
# three times in each shim mode; the others once.  Environment:
#
#   ZOO_MEMBERS="a b"   only those members
#   ZOO_REPEAT=N        every member N times in each shim mode
#   ZOO_JOBS=N          members run N at a time (default 3: about 6 minutes in all, hf_static_compile's
#                       10 runs the longest lane; 1: one process at a time, the cleanest timings, about 14)
#   ZOO_BUDGET=S        seconds for the whole zoo (default 540, or tools/dev/gpu-suite's part limit less 25):
#                       a run that would start too late is "not run" and fails, and the table still prints
#   ZOO_PLAIN_TWICE=1   a second run without the shim first (none.2), compared as the shim runs are: a
#                       difference there says the program itself is not deterministic on this machine
#   ZOO_FRESH_CACHE=1   every run its own empty Inductor, Triton and CuPy caches (default: one per member,
#                       so the runs after the first load the first one's compiled kernels and choices)
#   PYTHON              the Python (default python3)
#
# Every run of a member shares XLA_FLAGS=--xla_gpu_deterministic_ops=true (added to any set),
# XLA_PYTHON_CLIENT_PREALLOCATE=false, CUBLAS_WORKSPACE_CONFIG=:4096:8, and, for cg_blas-style programs,
# library_path_for's LD_LIBRARY_PATH to cuBLAS and cuSPARSE.  A member whose library is missing (it exits
# 77 without the shim: no transformers, no JAX GPU backend, no CuPy, no Triton, a program not built) is a
# skip with its reason, never a pass.  It prints each member's details, then each verdict, then the table
# last: program, mode, identical, exit status, regions replayed, time per step, wall seconds.  Exit
# status: 1 if a member failed, 77 if every member skipped (or no GPU), else 0.  With OUT set it writes
# $OUT/zoo-table.txt and, unless run by tools/dev/gpu-suite (GPU_SUITE_KEEP, which keeps every file itself),
# $OUT/zoo-files.tar.gz: every run's stdout, stderr and log.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
set -u
if [ $# -gt 0 ]; then
    top_builddir=$(cd "$1" && pwd) || exit 2
fi
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
. "$top_srcdir/tests/lib.sh"
CACHE=$(mktemp -d "${TMPDIR:-/tmp}/reprise-zoo-cache.XXXXXX")
trap 'rm -rf "$CACHE"; keep_work; rm -rf "$WORK"' EXIT

APPS="$top_builddir/kernels/apps"
PYDIR="$top_srcdir/kernels/torch"
PYTHON=${PYTHON:-python3}
# Longest first (the order they start in and the table's), compiling members apart from each other.
ALL_MEMBERS="hf_static_compile jax_eager compile_ro hf_dynamic compile_default hf_static_eager pcg_ilu pcg_ilu_static
jax_jit triton_loop cupy_loop lt_gemm lt_gemm_static train_lt train_lt_static decode_loop"
MEMBERS=${ZOO_MEMBERS:-$ALL_MEMBERS}
JOBS=${ZOO_JOBS:-3}
if [ -n "${ZOO_BUDGET:-}" ]; then
    BUDGET=$ZOO_BUDGET
elif [ -n "${PART_LIMIT:-}" ]; then
    BUDGET=$((PART_LIMIT - 25))
else
    BUDGET=540
fi
START=$(date +%s)
DEADLINE=$((START + BUDGET))
case "${XLA_FLAGS:-}" in
*xla_gpu_deterministic_ops*) XLA=$XLA_FLAGS ;;
*) XLA="${XLA_FLAGS:+$XLA_FLAGS }--xla_gpu_deterministic_ops=true" ;;
esac

command -v nvidia-smi > /dev/null 2>&1 || skip "nvidia-smi not found: no GPU here"
nvidia-smi -L > "$WORK/gpus" 2>&1 || skip "nvidia-smi -L failed: no GPU here ($(head -1 "$WORK/gpus"))"
command -v timeout > /dev/null 2>&1 || skip "no timeout command: a hang could not fail"
for name in $MEMBERS; do
    case " $(echo $ALL_MEMBERS) " in
    *" $name "*) ;;
    *) fail "ZOO_MEMBERS: no member $name (members: $(echo $ALL_MEMBERS))" ;;
    esac
done
[ "$failures" -eq 0 ] || finish

# Sets, for member $1: CMD (the command, an array), REP (runs in each shim mode), LIMIT (seconds for one run),
# EST_FIRST and EST (seconds the first run, without the shim, and each other run take on the H200: for the
# budget), UNIT (what a step is), NATIVE (the program's file name for kernels/apps/, else empty).
member() {
    CMD=() REP=1 LIMIT=120 EST_FIRST=10 EST=10 UNIT=iteration NATIVE=
    case "$1" in
    hf_static_compile) CMD=("$PYTHON" "$PYDIR/zoo_generate.py" static) REP=3 LIMIT=300 EST_FIRST=90 EST=25 UNIT=token ;;
    hf_static_eager) CMD=("$PYTHON" "$PYDIR/zoo_generate.py" static_eager) EST_FIRST=15 EST=12 UNIT=token ;;
    hf_dynamic) CMD=("$PYTHON" "$PYDIR/zoo_generate.py" dynamic) EST_FIRST=15 EST=12 UNIT=token ;;
    compile_default) CMD=("$PYTHON" "$PYDIR/zoo_compile.py" default) LIMIT=240 EST_FIRST=40 EST=12 UNIT=step ;;
    compile_ro) CMD=("$PYTHON" "$PYDIR/zoo_compile.py" reduce-overhead) LIMIT=240 EST_FIRST=40 EST=12 UNIT=step ;;
    jax_eager) CMD=("$PYTHON" "$PYDIR/zoo_jax.py" eager) REP=3 EST_FIRST=10 EST=8 ;;
    jax_jit) CMD=("$PYTHON" "$PYDIR/zoo_jax.py" jit) EST_FIRST=10 EST=8 ;;
    cupy_loop) CMD=("$PYTHON" "$PYDIR/cupy_loop.py" eager) EST_FIRST=8 EST=5 ;;
    triton_loop) CMD=("$PYTHON" "$PYDIR/triton_loop.py" eager) EST_FIRST=12 EST=8 ;;
    pcg_ilu) NATIVE=pcg_ilu.gpu REP=3 LIMIT=60 EST_FIRST=2 EST=2 ;;
    pcg_ilu_static) NATIVE=pcg_ilu.static REP=3 LIMIT=60 EST_FIRST=2 EST=2 ;;
    lt_gemm) NATIVE=lt_gemm.gpu LIMIT=60 EST_FIRST=2 EST=2 ;;
    lt_gemm_static) NATIVE=lt_gemm.static LIMIT=60 EST_FIRST=2 EST=2 ;;
    train_lt) NATIVE=train_lt.gpu LIMIT=60 EST_FIRST=2 EST=2 UNIT=step ;;
    train_lt_static) NATIVE=train_lt.static LIMIT=60 EST_FIRST=2 EST=2 UNIT=step ;;
    decode_loop) NATIVE=decode_loop.gpu LIMIT=60 EST_FIRST=2 EST=2 UNIT=token ;;
    *) return 1 ;;
    esac
    [ -n "$NATIVE" ] && CMD=("$APPS/$NATIVE")
    [ -n "${ZOO_REPEAT:-}" ] && REP=$ZOO_REPEAT
    return 0
}

now_ms() {
    ns=$(date +%s%N)
    case "$ns" in
    *[!0-9]*) echo $(($(date +%s) * 1000)) ;;
    *) echo $((ns / 1000000)) ;;
    esac
}

# pcg_ilu, lt_gemm and train_lt need cuBLAS, cuBLASLt and cuSPARSE, found through their rpath to the build machine's
# $CUDA_HOME/lib64; where they are not there, look in the toolkit and in python3's nvidia wheels, as
# library_and_flag.sh does for cg_blas.
NATIVE_LIBPATH=
case " $(echo $MEMBERS) " in
*" pcg_ilu"* | *" lt_gemm"* | *" train_lt"*)
    for prog in pcg_ilu.gpu lt_gemm.gpu train_lt.gpu; do
        [ -x "$APPS/$prog" ] || continue
        library_path_for "$APPS/$prog"
        [ -n "$LIBPATH" ] && NATIVE_LIBPATH="${NATIVE_LIBPATH:+$NATIVE_LIBPATH:}$LIBPATH"
    done
    ;;
esac

# The stdout of run $1 (a path without .out) without its timing lines, into $1.cmp.
comparable() {
    grep -avE '^(median_us|host_calib_us) ' "$1.out" > "$1.cmp"
}

# The program's own median step time: the first "median_us X" on stdout or stderr.
median_of() {
    sed -n 's/^median_us \([0-9.]*\).*/\1/p' "$1.out" "$1.err" 2> /dev/null | head -1
}

# Writes a table row: MEMBER_INDEX SEQ NAME MODE IDENTICAL EXIT REGIONS TIME WALL NOTE.
row() {
    printf '%s|%s|%s|%s|%s|%s|%s\n' "$3" "$4" "$5" "$6" "$7" "$8" "$9" > "$WORK/rows/$(printf '%02d-%02d' "$1" "$2")"
    [ -n "${10}" ] && echo "${10}" > "$WORK/rows/$(printf '%02d-%02d' "$1" "$2").note"
    return 0
}

# Runs member $1's command once as run $2 (the base of its files) in mode $3 (none, off, auto, robust), under
# timeout (at most the seconds left of the budget); sets STATUS, WALL (seconds) and LIMIT_USED.
RUN_PID=
run_once() {
    local name=$1 base=$2 mode=$3 cache="$CACHE/$1" left began
    [ "${ZOO_FRESH_CACHE:-0}" = 1 ] && cache="$CACHE/${base##*/}"
    mkdir -p "$cache"
    local -a envs=(PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 CUBLAS_WORKSPACE_CONFIG=:4096:8
        XLA_PYTHON_CLIENT_PREALLOCATE=false "XLA_FLAGS=$XLA" "TORCHINDUCTOR_CACHE_DIR=$cache/inductor"
        "TRITON_CACHE_DIR=$cache/triton" "CUPY_CACHE_DIR=$cache/cupy")
    [ -n "$NATIVE" ] && [ -n "$NATIVE_LIBPATH" ] &&
        envs+=("LD_LIBRARY_PATH=$NATIVE_LIBPATH${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
    case "$mode" in
    off | auto | robust)
        envs+=("LD_PRELOAD=$SHIM${LD_PRELOAD:+:$LD_PRELOAD}" REPRISE_LOG=info "REPRISE_LOG_FILE=$base.log.%p")
        ;;
    esac
    case "$mode" in
    off) envs+=(REPRISE_MODE=off) ;;
    auto) envs+=(REPRISE_MODE=auto REPRISE_REPLAY=auto) ;;
    robust) envs+=(REPRISE_MODE=auto REPRISE_REPLAY=robust) ;;
    esac
    left=$((DEADLINE - $(date +%s)))
    LIMIT_USED=$LIMIT
    [ "$left" -lt "$LIMIT_USED" ] && LIMIT_USED=$left
    [ "$LIMIT_USED" -lt 10 ] && LIMIT_USED=10
    began=$(now_ms)
    timeout -k 10 "$LIMIT_USED" env "${envs[@]}" "${CMD[@]}" > "$base.out" 2> "$base.err" < /dev/null &
    RUN_PID=$!
    wait "$RUN_PID"
    STATUS=$?
    RUN_PID=
    WALL=$(awk -v ms=$(($(now_ms) - began)) 'BEGIN { printf "%.1f", ms / 1000 }')
    echo "$STATUS" > "$base.status"
    if ls "$base".log.* > /dev/null 2>&1; then
        cat "$base".log.* > "$base.log"
        rm -f "$base".log.*
    fi
}

# What exit status $1 means, in words, if not 0.
status_words() {
    case "$1" in
    0) ;;
    124 | 137)
        if [ "$LIMIT_USED" -lt "$LIMIT" ]; then
            echo "timed out after ${LIMIT_USED}s, its limit cut to ZOO_BUDGET's end: too little time left, or a hang"
        else
            echo "timed out after ${LIMIT_USED}s: a hang or too slow"
        fi
        ;;
    77) echo "exit 77: skipped itself" ;;
    *) if [ "$1" -gt 128 ]; then echo "killed by SIG$(kill -l $(($1 - 128)) 2> /dev/null || echo $(($1 - 128)))"; else echo "exit $1"; fi ;;
    esac
}

# Runs every run of member $1 (index $2 in the table), serially; leaves its verdict in $WORK/verdicts/NAME
# ("PASS|FAIL|SKIP: reason"), its rows in $WORK/rows and its details in $WORK/NAME.report.
run_member() {
    local name=$1 idx=$2 seq=0 bad=0 mode r label base ref_status us regions identical note words
    trap '[ -n "$RUN_PID" ] && kill -TERM "$RUN_PID" 2> /dev/null; exit 143' TERM INT
    member "$name"
    local report="$WORK/$name.report"
    echo "--- $name: ${CMD[*]##*/} (runs in each shim mode: $REP, limit ${LIMIT}s a run)" > "$report"
    if [ -n "$NATIVE" ] && [ ! -x "$APPS/$NATIVE" ]; then
        echo "SKIP: $APPS/$NATIVE is not built (make gpu-programs)" > "$WORK/verdicts/$name"
        row "$idx" 0 "$name" none - - - - - "not built"
        return 0
    fi
    if [ -z "$NATIVE" ] && ! command -v "$PYTHON" > /dev/null 2>&1; then
        echo "SKIP: no $PYTHON" > "$WORK/verdicts/$name"
        row "$idx" 0 "$name" none - - - - - "no $PYTHON"
        return 0
    fi
    if [ $(($(date +%s) + EST_FIRST)) -gt "$DEADLINE" ]; then
        echo "FAIL: not run: out of ZOO_BUDGET (${BUDGET}s)" > "$WORK/verdicts/$name"
        row "$idx" 0 "$name" none - "not run" - - - "out of ZOO_BUDGET"
        return 0
    fi
    base="$WORK/$name.none"
    run_once "$name" "$base" none
    ref_status=$STATUS
    us=$(median_of "$base")
    grep -a '^zoo-note: ' "$base.err" | sed 's/^zoo-note: /    note: /' >> "$report"
    grep -a '^zoo-time: ' "$base.err" | sed 's/^zoo-time: /    without the shim: /' >> "$report"
    row "$idx" 0 "$name" none ref "$ref_status" - "${us:+$us us/$UNIT}" "$WALL" "$(status_words "$ref_status")"
    echo "zoo: $name none: exit $ref_status, ${us:-?} us/$UNIT, ${WALL}s"
    if [ "$ref_status" -eq 77 ]; then
        echo "SKIP: $(grep -av '^zoo-' "$base.err" | tail -1)" > "$WORK/verdicts/$name"
        return 0
    fi
    if [ "$ref_status" -ne 0 ]; then
        echo "FAIL: fails without the shim ($(status_words "$ref_status")): the program or its setup, not the shim" \
            > "$WORK/verdicts/$name"
        tail -15 "$base.err" | sed 's/^/  | /' >> "$report"
        return 0
    fi
    comparable "$base"
    local modes="off auto robust" reps
    [ "${ZOO_PLAIN_TWICE:-0}" = 1 ] && modes="none $modes"
    for mode in $modes; do
        reps=$REP
        [ "$mode" = none ] && reps=1
        for r in $(seq 1 "$reps"); do
            seq=$((seq + 1))
            label=$mode
            [ "$reps" -gt 1 ] && label=$mode.$r
            [ "$mode" = none ] && label=none.2
            base="$WORK/$name.$label"
            if [ $(($(date +%s) + EST)) -gt "$DEADLINE" ]; then
                row "$idx" "$seq" "$name" "$label" - "not run" - - - "out of ZOO_BUDGET"
                echo "    $label: not run: out of ZOO_BUDGET (${BUDGET}s)" >> "$report"
                bad=$((bad + 1))
                continue
            fi
            run_once "$name" "$base" "$mode"
            comparable "$base"
            identical=yes
            cmp -s "$WORK/$name.none.cmp" "$base.cmp" || identical=no
            regions=$(grep -acE 'info: region [0-9]+: replayed (as a graph|on the robust path)' "$base.log" 2> /dev/null)
            [ "$mode" = none ] && regions=-
            us=$(median_of "$base")
            words=$(status_words "$STATUS")
            note=$words
            [ "$identical" = no ] && note="stdout differs${words:+; $words}"
            [ "$identical" = no ] && [ "$mode" = none ] &&
                note="a second run without the shim differs: the program is not deterministic here${words:+; $words}"
            row "$idx" "$seq" "$name" "$label" "$identical" "$STATUS" "${regions:-0}" "${us:+$us us/$UNIT}" "$WALL" "$note"
            echo "zoo: $name $label: identical $identical, exit $STATUS, ${regions:-0} region(s) replayed, ${us:-?} us/$UNIT, ${WALL}s"
            if [ "$identical" = no ] || [ "$STATUS" -ne "$ref_status" ]; then
                bad=$((bad + 1))
                {
                    echo "    $label: ${note:-?}"
                    if [ "$identical" = no ]; then
                        echo "    stdout, without the shim (<) and $label (>), timing lines left out:"
                        diff "$WORK/$name.none.cmp" "$base.cmp" | head -8 | cut -c1-200 | sed 's/^/  | /'
                    fi
                    echo "    its stderr's last lines:"
                    tail -8 "$base.err" | cut -c1-200 | sed 's/^/  | /'
                    if [ -s "$base.log" ]; then
                        echo "    its log's last warnings and errors:"
                        grep -aE '\] (warning|error): ' "$base.log" | tail -6 | cut -c1-200 | sed 's/^/  | /'
                        echo "    its log's last lines:"
                        tail -4 "$base.log" | cut -c1-200 | sed 's/^/  | /'
                    fi
                } >> "$report"
            else
                grep -a '^zoo-time: ' "$base.err" | head -1 | sed "s/^zoo-time: /    $label: /" >> "$report"
            fi
        done
    done
    # What the shim decided, from the auto runs' logs (first run of each mode).
    for label in auto auto.1 robust robust.1; do
        [ -s "$WORK/$name.$label.log" ] || continue
        echo "    $label log: $(grep -acE 'info: region [0-9]+: graph (built|captured)' "$WORK/$name.$label.log") graph(s)" \
            "built or captured, $(grep -acE 'info: region [0-9]+: fell back' "$WORK/$name.$label.log") fallback(s)," \
            "$(grep -acE '\] warning: ' "$WORK/$name.$label.log") warning(s), $(grep -acE '\] error: ' "$WORK/$name.$label.log") error(s)" \
            >> "$report"
        grep -aE 'info: region [0-9]+: (fell back|not graphed)' "$WORK/$name.$label.log" |
            sed 's/^reprise\[[0-9:]*\] info: region [0-9]*: //' | sed 's/[0-9][0-9]* of [0-9][0-9]* calls/K of M calls/' |
            sort | uniq -c | sort -rn | head -3 | cut -c1-200 | sed 's/^/      /' >> "$report"
    done
    if [ "$bad" -eq 0 ]; then
        echo "PASS: off, auto and robust (each ${REP}x): stdout identical, exit 0" > "$WORK/verdicts/$name"
    else
        echo "FAIL: $bad of $((3 * REP))$([ "$modes" = "off auto robust" ] || echo ' + 1') run(s) differ, fail or were not run" \
            > "$WORK/verdicts/$name"
    fi
}

mkdir -p "$WORK/rows" "$WORK/verdicts"
echo "zoo: members: $(echo $MEMBERS); $JOBS at a time; budget ${BUDGET}s; shim $SHIM"
echo "zoo: $(head -1 "$WORK/gpus")"
trap 'kill -TERM $(jobs -p) 2> /dev/null; exit 143' TERM INT
idx=0
for name in $MEMBERS; do
    idx=$((idx + 1))
    if [ "$JOBS" -le 1 ]; then
        run_member "$name" "$idx"
    else
        while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do
            wait -n 2> /dev/null || :
        done
        run_member "$name" "$idx" &
    fi
done
wait

echo
echo "=== the zoo's members ==="
passed=0 skipped=0
for name in $MEMBERS; do
    cat "$WORK/$name.report" 2> /dev/null
done
echo
for name in $MEMBERS; do
    verdict=$(cat "$WORK/verdicts/$name" 2> /dev/null || echo "FAIL: no verdict (the member's runs were cut short)")
    echo "$name: $verdict"
    case "$verdict" in
    PASS*) passed=$((passed + 1)) ;;
    SKIP*) skipped=$((skipped + 1)) ;;
    *) failures=$((failures + 1)) ;;
    esac
done
{
    echo
    echo "=== the zoo ($(($(date +%s) - START))s; $passed passed, $failures failed, $skipped skipped) ==="
    # The times are one run each beside the other members (lt_gemm ran 7x its own time under auto beside an HF
    # member on 2026-12-03): a correctness table, not a benchmark.
    [ "$JOBS" -gt 1 ] && echo "time/step: one run each, $JOBS members at a time on one GPU: not a benchmark" \
        "(tools/dev/bench-issue25, bench-auto; ZOO_JOBS=1 for cleaner single runs)"
    printf '%-18s %-9s %-9s %-7s %-8s %-18s %7s  %s\n' program mode identical exit regions time/step wall_s note
    for f in "$WORK"/rows/[0-9][0-9]-[0-9][0-9]; do
        [ -f "$f" ] || continue
        IFS='|' read -r r_name r_mode r_same r_exit r_regions r_time r_wall < "$f"
        r_note=$(cat "$f.note" 2> /dev/null)
        printf '%-18s %-9s %-9s %-7s %-8s %-18s %7s  %s\n' "$r_name" "$r_mode" "$r_same" "$r_exit" "$r_regions" \
            "${r_time:--}" "${r_wall:--}" "$r_note"
    done
} > "$WORK/table.txt"
cat "$WORK/table.txt"
if [ -n "${OUT:-}" ]; then
    mkdir -p "$OUT"
    cp "$WORK/table.txt" "$OUT/zoo-table.txt"
    [ -n "${GPU_SUITE_KEEP:-}" ] || tar -czf "$OUT/zoo-files.tar.gz" -C "$WORK" . 2> /dev/null
fi
[ "$failures" -eq 0 ] && [ "$passed" -eq 0 ] && skip "every member skipped (above)"
finish
