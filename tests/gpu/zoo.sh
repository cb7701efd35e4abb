#!/bin/bash
# SPDX-License-Identifier: MIT
# The zoo (issue 24, item 6; issue 40): outside programs, unmodified, on a real GPU.
#
#     bash tests/gpu/zoo.sh [BUILD_DIR]          (from the repository root; default: $top_builddir, else build)
#
# Each member runs without the shim (none), then preloaded with REPRISE_MODE=off, REPRISE_MODE=auto and
# auto with REPRISE_REPLAY=robust (robust), each under `timeout` (a hang fails), with REPRISE_LOG=info and
# the log to a file (REPRISE_LOG_FILE, one per process), stdout to a file.  A shim run passes when its
# exit status is the run's without the shim (0), its stdout is byte-identical to it, timing lines (those
# beginning "median_us " or "host_calib_us ") left out: the members print token ids, values with repr or
# %.17g, and checksums of their final state; and, under auto and robust, its log shows what ZOO_EXPECT asks
# of the shim (below).  "Regions replayed" counts the log's first replays
# ("region N: replayed as a graph" or "replayed on the robust path", one per region and process).  The
# time per step is the program's own median (its "median_us" line, on stdout or stderr).
#
# The members (kernels/torch/ and kernels/apps/, make gpu-programs; ZOO_RUNS below says how often each runs):
#
#   hf_compile_tf32off zoo_generate.py static_user: hf_static_compile's program as issue 40's user ran it (where it
#                      crashed under the shim): TF32 off, a 12-token prompt, generate() with no attention mask, 3
#                      calls to warm up and 3 timed, each under inference_mode; 5 runs under auto and 5 under robust
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
# A member passes when every shim run is identical to the run without the shim, exits 0, and under auto and
# robust shows what ZOO_EXPECT (below) says the shim does with it: at least N regions replayed, or, where the
# shim steps aside (a program on the legacy stream under robust, PyTorch's own graphs), a log that followed
# the program's repeats.  On a machine with a GPU nothing may be missing: a member that is not built, whose
# script or $PYTHON is missing, or that skips itself (exit 77 without the shim) fails, except where
# ZOO_MAY_SKIP (below) allows it, for the reason it names; a zoo in which no member passed fails.  Environment:
#
#   ZOO_MEMBERS="a b"   only those members
#   ZOO_REPEAT=N        every member N times in each shim mode
#   ZOO_JOBS=N          members run N at a time (default 3: about 8 minutes in all on the H200, hf_compile_tf32off's
#                       11 runs the longest lane; 1: one process at a time, the cleanest timings, about 24)
#   ZOO_BUDGET=S        seconds for the whole zoo (default 540, or tools/dev/gpu-suite's part limit less 25):
#                       a run that would start too late is "not run" and fails, and the table still prints;
#                       the estimate of the whole (ZOO_RUNS' seconds, members in their lanes) is printed first
#   ZOO_PLAIN_TWICE=1   a second run without the shim first (none.2), compared as the shim runs are: a
#                       difference there says the program itself is not deterministic on this machine
#   ZOO_FRESH_CACHE=1   every run its own empty Inductor, Triton and CuPy caches (default: one per member,
#                       so the runs after the first load the first one's compiled kernels and choices)
#   PYTHON              the Python (default python3)
#
# Every run of a member shares XLA_FLAGS=--xla_gpu_deterministic_ops=true (added to any set),
# XLA_PYTHON_CLIENT_PREALLOCATE=false, CUBLAS_WORKSPACE_CONFIG=:4096:8, and, for cg_blas-style programs,
# library_path_for's LD_LIBRARY_PATH to cuBLAS and cuSPARSE.  It prints each member's details, then each
# verdict, then the table last: program, mode, identical, exit status, regions replayed, what was expected,
# time per step, wall seconds.  Exit status: 1 if a member failed or none passed, 77 without a GPU
# (nvidia-smi -L fails), else 0.  With OUT set it writes $OUT/zoo-table.txt and, unless run by
# tools/dev/gpu-suite (GPU_SUITE_KEEP, which keeps every file itself), $OUT/zoo-files.tar.gz: every run's
# stdout, stderr and log.  tests/zoo_verdicts.sh tests these verdicts without a GPU (fake members).
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
set -u
if [ $# -gt 0 ]; then
    top_builddir=$(cd "$1" && pwd) || exit 2
fi
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
# What users get: the governor as the shim defaults it (on), not as tests/lib.sh sets it for the tests (off);
# REPRISE_GOVERNOR=off in the environment measures the engine alone.
: "${REPRISE_GOVERNOR:=on}"
. "$top_srcdir/tests/lib.sh"
CACHE=$(mktemp -d "${TMPDIR:-/tmp}/reprise-zoo-cache.XXXXXX")
trap 'rm -rf "$CACHE"; keep_work; rm -rf "$WORK"' EXIT

APPS="$top_builddir/kernels/apps"
PYDIR="$top_srcdir/kernels/torch"
PYTHON=${PYTHON:-python3}
# The members, longest first (the order they start in and the table's), compiling members apart from each other:
# runs in each shim mode (off, auto, robust), the seconds one run may take, the seconds the first run (without
# the shim: it compiles) and each other run take on the H200, 3 members at a time (docs/bench/*/zoo-table.txt: for
# the budget), what a step is, and the command: py SCRIPT ARGS (kernels/torch/, run by $PYTHON) or app PROGRAM
# (kernels/apps/).  hf_compile_tf32off has no off run (hf_static_compile's cover it); the crash programs of
# issue 24 run more than once in each mode (hf_static_compile twice, to leave room for issue 40's runs).
ZOO_RUNS='
hf_compile_tf32off  0 5 5  300 50 40  token      py zoo_generate.py static_user
hf_static_compile   2 2 2  300 45 38  token      py zoo_generate.py static
jax_eager           3 3 3  120 10 5   iteration  py zoo_jax.py eager
compile_ro          1 1 1  240 35 30  step       py zoo_compile.py reduce-overhead
hf_dynamic          1 1 1  120 35 31  token      py zoo_generate.py dynamic
compile_default     1 1 1  240 35 30  step       py zoo_compile.py default
hf_static_eager     1 1 1  120 30 25  token      py zoo_generate.py static_eager
pcg_ilu             3 3 3   60  2  2  iteration  app pcg_ilu.gpu
pcg_ilu_static      3 3 3   60  2  2  iteration  app pcg_ilu.static
jax_jit             1 1 1  120 10  5  iteration  py zoo_jax.py jit
triton_loop         1 1 1  120 12  8  iteration  py triton_loop.py eager
cupy_loop           1 1 1  120  8  3  iteration  py cupy_loop.py eager
lt_gemm             1 1 1   60  2  2  iteration  app lt_gemm.gpu
lt_gemm_static      1 1 1   60  2  2  iteration  app lt_gemm.static
train_lt            1 1 1   60  2  2  step       app train_lt.gpu
train_lt_static     1 1 1   60  2  2  step       app train_lt.static
decode_loop         1 1 1   60  2  2  token      app decode_loop.gpu
'
# What the shim must show in every run of a member under auto and under robust, from its log (REPRISE_LOG=info,
# every process's), beside stdout identical to the run without the shim and exit status 0:
#   N      at least N regions replayed: "region K: replayed as a graph" or "replayed on the robust path" lines
#          (each region's first replay, in each process)
#   aside  no replay asked: the shim steps aside (why: the last column), but its log must show that it followed
#          the program's repeats (at least one "region K: " line: seen alike, recorded, graph built, not graphed,
#          fell back, does not pay...), so that a shim that saw nothing cannot pass
#   none   no region replayed at all: the program's repeats run in graphs of its own (compile_ro: PyTorch's CUDA
#          graphs), around which the shim finds nothing worth a graph (H100, 2026-12-07: no region line either)
# Measured: regions replayed a run on the H200 (2026-12-02, two zoo tables in docs/bench/); "legacy stream": the
# robust path captures, and a capture cannot take the legacy stream ("not graphed: REPRISE_REPLAY=robust, and it
# starts on the legacy stream", or "fell back ... cannot take part in a capture"), where PyTorch and these
# programs work.
ZOO_EXPECT='
hf_compile_tf32off  1     aside  as hf_static_compile (issue 40: identical under auto and robust in 5 of 5 runs)
hf_static_compile   1     aside  auto 2-8 (the eager work around the graphs PyTorch launches); robust 0: legacy stream
jax_eager           aside 3      auto 0-6 (0 in 2 of 6 runs): not asked; robust 6-19 (streams XLA creates)
compile_ro          none  none   auto and robust 0, no region followed: the steps run in graphs PyTorch captures itself
hf_dynamic          1     aside  auto 1; robust 0: legacy stream
compile_default     1     aside  auto 4; robust 0: legacy stream
hf_static_eager     1     aside  auto 4; robust 0: legacy stream
pcg_ilu             2     aside  auto 3; robust 0: legacy stream
pcg_ilu_static      2     aside  auto 3; robust 0: legacy stream
jax_jit             2     4      auto 8-9, robust 18-22
triton_loop         1     aside  auto 2; robust 0: legacy stream
cupy_loop           1     1      auto 3, robust 1 (its own created stream)
lt_gemm             1     aside  auto 2; robust 0: legacy stream (k_probe on it in both phases)
lt_gemm_static      1     aside  auto 2; robust 0: legacy stream
train_lt            1     aside  auto 1-4 (segments); robust 0: legacy stream (its loss and probe)
train_lt_static     1     aside  auto 1; robust 0: legacy stream
decode_loop         1     1      auto 1, robust 1 (a created non-blocking stream)
'
# The members that may skip (exit 77 without the shim) on a machine with a GPU, and only when their stderr's
# last line matches the pattern (an ERE); fields apart by " | ".
ZOO_MAY_SKIP='
jax_eager | ^zoo_jax: (no jax|JAX has no GPU backend) | JAX, or its GPU backend (the jax[cuda] wheels), not installed
jax_jit   | ^zoo_jax: (no jax|JAX has no GPU backend) | JAX, or its GPU backend (the jax[cuda] wheels), not installed
'
ALL_MEMBERS=$(echo "$ZOO_RUNS" | awk 'NF { print $1 }' | paste -s -d ' ' -)
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

# Sets, for member $1 (its ZOO_RUNS row): CMD (the command, an array), REP_OFF, REP_AUTO and REP_ROBUST (runs
# in each shim mode; ZOO_REPEAT: each that), LIMIT (seconds for one run), EST_FIRST and EST (seconds the first
# run and each other take: for the budget), UNIT (what a step is), NATIVE (the program's file name in
# kernels/apps/) or SCRIPT (the Python script's path); false if there is no such member.
member() {
    local row kind
    row=$(echo "$ZOO_RUNS" | awk -v n="$1" '$1 == n')
    [ -n "$row" ] || return 1
    set -- $row
    REP_OFF=$2 REP_AUTO=$3 REP_ROBUST=$4 LIMIT=$5 EST_FIRST=$6 EST=$7 UNIT=$8 kind=$9
    shift 9
    NATIVE='' SCRIPT=''
    if [ "$kind" = app ]; then
        NATIVE=$1
        CMD=("$APPS/$1")
    else
        SCRIPT=$PYDIR/$1
        shift
        CMD=("$PYTHON" "$SCRIPT" "$@")
    fi
    if [ -n "${ZOO_REPEAT:-}" ]; then
        REP_OFF=$ZOO_REPEAT REP_AUTO=$ZOO_REPEAT REP_ROBUST=$ZOO_REPEAT
    fi
    return 0
}

# What member $1 must show in each run under mode $2 (auto or robust): a number of regions replayed, or aside
# (ZOO_EXPECT); empty if the table has no row for it.
expected() {
    echo "$ZOO_EXPECT" | awk -v n="$1" -v m="$2" '$1 == n { print (m == "auto" ? $2 : $3) }'
}

# Why member $1 is expected to do what ZOO_EXPECT says (its last column).
expected_why() {
    echo "$ZOO_EXPECT" | awk -v n="$1" '$1 == n { $1 = $2 = $3 = ""; sub(/^ +/, ""); print }'
}

# Field $2 (2: the pattern, 3: why) of member $1's ZOO_MAY_SKIP row; empty if it may not skip.
may_skip() {
    echo "$ZOO_MAY_SKIP" | awk -F ' [|] ' -v n="$1" -v f="$2" '{ sub(/ +$/, "", $1) } $1 == n { print $f }'
}

# The expectation $1 (a number, aside or none) in words.
wanted_words() {
    case "$1" in
    aside) echo "steps aside, its log following the repeats" ;;
    none) echo "replays nothing (the program's own graphs)" ;;
    *) echo "at least $1 region(s) replayed a run" ;;
    esac
}

# The zoo's estimated seconds: each member's runs one after another (ZOO_RUNS' seconds), members started in
# order as one of the JOBS lanes frees up, as below.
estimate() {
    local name plain=0
    [ "${ZOO_PLAIN_TWICE:-0}" = 1 ] && plain=1
    for name in $MEMBERS; do
        member "$name"
        echo $((EST_FIRST + EST * (REP_OFF + REP_AUTO + REP_ROBUST + plain)))
    done | awk -v jobs="$JOBS" '{ best = 1; for (i = 2; i <= jobs; i++) if (lane[i] < lane[best]) best = i
        lane[best] += $1 } END { m = 0; for (i in lane) if (lane[i] > m) m = lane[i]; print m }'
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

# A region's first replay in the log, on either path.
REPLAYED='info: region [0-9]+: replayed (as a graph|on the robust path)'

# The stdout of run $1 (a path without .out) without its timing lines, into $1.cmp.
comparable() {
    grep -avE '^(median_us|host_calib_us) ' "$1.out" > "$1.cmp"
}

# The program's own median step time: the first "median_us X" on stdout or stderr.
median_of() {
    sed -n 's/^median_us \([0-9.]*\).*/\1/p' "$1.out" "$1.err" 2> /dev/null | head -1
}

# Writes a table row: MEMBER_INDEX SEQ NAME MODE IDENTICAL EXIT REGIONS WANTED TIME WALL NOTE.
row() {
    local file
    file=$WORK/rows/$(printf '%02d-%02d' "$1" "$2")
    printf '%s|%s|%s|%s|%s|%s|%s|%s\n' "$3" "$4" "$5" "$6" "$7" "$8" "$9" "${10}" > "$file"
    [ -n "${11}" ] && echo "${11}" > "$file.note"
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
        envs+=("LD_PRELOAD=$PRELOAD${LD_PRELOAD:+:$LD_PRELOAD}" REPRISE_LOG=info "REPRISE_LOG_FILE=$base.log.%p")
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

# Whether run $1 (a path without extension) in mode $2 showed what member $3 must show there (ZOO_EXPECT), its
# REGIONS replayed counted; if not, UNMET says what is missing.  Only auto and robust expect anything.
met_expectation() {
    local want followed
    UNMET=
    case "$2" in
    auto | robust) want=$(expected "$3" "$2") ;;
    *) return 0 ;;
    esac
    if [ "$want" = none ]; then
        [ "$REGIONS" -eq 0 ] && return 0
        UNMET="$REGIONS region(s) replayed, expected none: the program's own graphs hold its repeats (ZOO_EXPECT)"
    elif [ "$want" = aside ]; then
        followed=$(grep -acE 'info: region [0-9]+: ' "$1.log" 2> /dev/null)
        [ "${followed:-0}" -gt 0 ] && return 0
        UNMET="its log shows no region: the shim followed none of the program's repeats"
    else
        [ "$REGIONS" -ge "$want" ] && return 0
        UNMET="$REGIONS region(s) replayed, expected at least $want (ZOO_EXPECT)"
    fi
    return 1
}

# Writes member $1's verdict when it cannot run (not built, no script, no Python, skipped itself without the
# shim: $2 says which): SKIP where ZOO_MAY_SKIP allows it and its skip line ($3) matches, else FAIL; and its row
# ($4: its index) if $5 (the row's note) is set.
cannot_run() {
    local pattern
    pattern=$(may_skip "$1" 2)
    if [ -n "$pattern" ] && [ -n "$3" ] && echo "$3" | grep -qE -- "$pattern"; then
        echo "SKIP: $2 (allowed: $(may_skip "$1" 3))" > "$WORK/verdicts/$1"
    else
        echo "FAIL: $2: on a machine with a GPU every member must run (only ZOO_MAY_SKIP's may skip, for its reason)" \
            > "$WORK/verdicts/$1"
    fi
    [ -n "${5:-}" ] && row "$4" 0 "$1" none - "not run" - - - - "$5"
    return 0
}

# Runs every run of member $1 (index $2 in the table), serially; leaves its verdict in $WORK/verdicts/NAME
# ("PASS|FAIL|SKIP: reason"), its rows in $WORK/rows and its details in $WORK/NAME.report.
run_member() {
    local name=$1 idx=$2 seq=0 bad=0 runs=0 mode r reps label base ref_status us identical note words wanted
    trap '[ -n "$RUN_PID" ] && kill -TERM "$RUN_PID" 2> /dev/null; exit 143' TERM INT
    member "$name"
    local report="$WORK/$name.report"
    {
        echo "--- $name: ${CMD[*]##*/} (runs under off, auto, robust: $REP_OFF, $REP_AUTO, $REP_ROBUST;" \
            "limit ${LIMIT}s a run)"
        echo "    expected: auto $(wanted_words "$(expected "$name" auto)");" \
            "robust $(wanted_words "$(expected "$name" robust)")"
        echo "    why: $(expected_why "$name")"
    } > "$report"
    if [ -n "$NATIVE" ] && [ ! -x "$APPS/$NATIVE" ]; then
        cannot_run "$name" "$APPS/$NATIVE is not built (make gpu-programs)" "" "$idx" "not built"
        return 0
    fi
    if [ -n "$SCRIPT" ] && [ ! -f "$SCRIPT" ]; then
        cannot_run "$name" "$SCRIPT is missing" "" "$idx" "missing"
        return 0
    fi
    if [ -n "$SCRIPT" ] && ! command -v "$PYTHON" > /dev/null 2>&1; then
        cannot_run "$name" "no $PYTHON" "" "$idx" "no $PYTHON"
        return 0
    fi
    if [ $(($(date +%s) + EST_FIRST)) -gt "$DEADLINE" ]; then
        echo "FAIL: not run: out of ZOO_BUDGET (${BUDGET}s)" > "$WORK/verdicts/$name"
        row "$idx" 0 "$name" none - "not run" - - - - "out of ZOO_BUDGET"
        return 0
    fi
    base="$WORK/$name.none"
    run_once "$name" "$base" none
    ref_status=$STATUS
    us=$(median_of "$base")
    grep -a '^zoo-note: ' "$base.err" | sed 's/^zoo-note: /    note: /' >> "$report"
    grep -a '^zoo-time: ' "$base.err" | sed 's/^zoo-time: /    without the shim: /' >> "$report"
    row "$idx" 0 "$name" none ref "$ref_status" - - "${us:+$us us/$UNIT}" "$WALL" "$(status_words "$ref_status")"
    echo "zoo: $name none: exit $ref_status, ${us:-?} us/$UNIT, ${WALL}s"
    if [ "$ref_status" -eq 77 ]; then
        words=$(grep -av '^zoo-' "$base.err" | tail -1)
        cannot_run "$name" "skipped itself without the shim: $words" "$words"
        return 0
    fi
    if [ "$ref_status" -ne 0 ]; then
        echo "FAIL: fails without the shim ($(status_words "$ref_status")): the program or its setup, not the shim" \
            > "$WORK/verdicts/$name"
        tail -15 "$base.err" | sed 's/^/  | /' >> "$report"
        return 0
    fi
    comparable "$base"
    local modes="off auto robust"
    [ "${ZOO_PLAIN_TWICE:-0}" = 1 ] && modes="none $modes"
    for mode in $modes; do
        case "$mode" in
        none) reps=1 ;;
        off) reps=$REP_OFF ;;
        auto) reps=$REP_AUTO ;;
        robust) reps=$REP_ROBUST ;;
        esac
        wanted=-
        case "$mode" in
        auto | robust) wanted=$(expected "$name" "$mode") && [ "$wanted" != aside ] && wanted=">=$wanted" ;;
        esac
        for r in $(seq 1 "$reps"); do
            seq=$((seq + 1))
            runs=$((runs + 1))
            label=$mode
            [ "$reps" -gt 1 ] && label=$mode.$r
            [ "$mode" = none ] && label=none.2
            base="$WORK/$name.$label"
            if [ $(($(date +%s) + EST)) -gt "$DEADLINE" ]; then
                row "$idx" "$seq" "$name" "$label" - "not run" - "$wanted" - - "out of ZOO_BUDGET"
                echo "    $label: not run: out of ZOO_BUDGET (${BUDGET}s)" >> "$report"
                bad=$((bad + 1))
                continue
            fi
            run_once "$name" "$base" "$mode"
            comparable "$base"
            identical=yes
            cmp -s "$WORK/$name.none.cmp" "$base.cmp" || identical=no
            REGIONS=$(grep -acE "$REPLAYED" "$base.log" 2> /dev/null)
            REGIONS=${REGIONS:-0}
            us=$(median_of "$base")
            words=$(status_words "$STATUS")
            note=$words
            [ "$identical" = no ] && note="stdout differs${words:+; $words}"
            [ "$identical" = no ] && [ "$mode" = none ] &&
                note="a second run without the shim differs: the program is not deterministic here${words:+; $words}"
            met_expectation "$base" "$mode" "$name" || note="${note:+$note; }$UNMET"
            [ "$mode" = none ] && REGIONS=-
            row "$idx" "$seq" "$name" "$label" "$identical" "$STATUS" "$REGIONS" "$wanted" "${us:+$us us/$UNIT}" "$WALL" \
                "$note"
            echo "zoo: $name $label: identical $identical, exit $STATUS, $REGIONS region(s) replayed," \
                "${us:-?} us/$UNIT, ${WALL}s"
            if [ "$identical" = no ] || [ "$STATUS" -ne "$ref_status" ] || [ -n "$UNMET" ]; then
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
        echo "PASS: off ${REP_OFF}x, auto ${REP_AUTO}x, robust ${REP_ROBUST}x: stdout identical, exit 0; auto" \
            "$(wanted_words "$(expected "$name" auto)"), robust $(wanted_words "$(expected "$name" robust)")" \
            > "$WORK/verdicts/$name"
    else
        echo "FAIL: $bad of $runs run(s) differ, fail, miss what ZOO_EXPECT asks, or were not run" > "$WORK/verdicts/$name"
    fi
}

# Every member says what the shim does with it, under auto and under robust.
for name in $ALL_MEMBERS; do
    for mode in auto robust; do
        case "$(expected "$name" "$mode")" in
        aside | none | [1-9] | [1-9][0-9]) ;;
        *) fail "ZOO_EXPECT: member $name has no expectation under $mode (a number of regions replayed, aside or none)" ;;
        esac
    done
done
[ "$failures" -eq 0 ] || finish

mkdir -p "$WORK/rows" "$WORK/verdicts"
echo "zoo: members: $(echo $MEMBERS); $JOBS at a time; budget ${BUDGET}s; shim $SHIM"
echo "zoo: $(head -1 "$WORK/gpus")"
guess=$(estimate)
echo "zoo: estimated ${guess}s on the H200 (ZOO_RUNS' seconds, $JOBS members at a time)"
[ "$guess" -gt "$BUDGET" ] && echo "zoo: that is more than ZOO_BUDGET (${BUDGET}s): the runs left when it ends are not" \
    "run, and fail; narrow ZOO_MEMBERS, or raise ZOO_BUDGET or ZOO_JOBS"
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
    printf '%-18s %-9s %-9s %-7s %-8s %-7s %-18s %7s  %s\n' program mode identical exit regions wanted time/step \
        wall_s note
    for f in "$WORK"/rows/[0-9][0-9]-[0-9][0-9]; do
        [ -f "$f" ] || continue
        IFS='|' read -r r_name r_mode r_same r_exit r_regions r_wanted r_time r_wall < "$f"
        r_note=$(cat "$f.note" 2> /dev/null)
        printf '%-18s %-9s %-9s %-7s %-8s %-7s %-18s %7s  %s\n' "$r_name" "$r_mode" "$r_same" "$r_exit" "$r_regions" \
            "$r_wanted" "${r_time:--}" "${r_wall:--}" "$r_note"
    done
} > "$WORK/table.txt"
cat "$WORK/table.txt"
if [ -n "${OUT:-}" ]; then
    mkdir -p "$OUT"
    cp "$WORK/table.txt" "$OUT/zoo-table.txt"
    [ -n "${GPU_SUITE_KEEP:-}" ] || tar -czf "$OUT/zoo-files.tar.gz" -C "$WORK" . 2> /dev/null
fi
# nvidia-smi saw a GPU: a zoo that ran nothing proves nothing.
[ "$passed" -eq 0 ] && fail "no member passed: every one skipped or failed (above)"
finish
