# SPDX-License-Identifier: MIT
# Shared by the shell tests: where things are, and small assertions.
# Automake's test driver sets top_builddir and top_srcdir (Makefile.am).
: "${top_builddir:=.}" "${top_srcdir:=.}"
SHIM="${REPRISE_TEST_SHIM:-$top_builddir/.libs/libreprise.so}"
# The shim as LD_PRELOAD names it: in a sanitizer build (configure --enable-asan or --enable-tsan), after the
# sanitizer's runtime (SANITIZER_PRELOAD, from Makefile.am), which a program not built with it (a shell) must load
# before libc, and which ASan wants first.
PRELOAD="${SANITIZER_PRELOAD:+$SANITIZER_PRELOAD:}$SHIM"
TESTS_BIN="$top_builddir/tests"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/reprise-test.XXXXXX")
trap 'keep_work; rm -rf "$WORK"' EXIT
failures=0

# The watchdog's bound without a GPU: CI's two loaded cores deschedule a thread for milliseconds, which the
# default (REPRISE_DEFERRAL_TIMEOUT_US=2000) takes for a program waiting on memory: it falls back, results stay
# the same but the logs that tests read do not.  100 ms was not enough either: beside two CPU hogs at a load of
# 15, a 300 us sleep here overslept by 94 ms (issue 27), and the watchdog may fire after half its bound.  So the
# longest bound there is (10 s): no program of these tests waits for the GPU through memory but those of the
# watchdog's own tests, which set their own.  With a GPU, the default.
# Segments likewise: a region is cut when its host is slow between calls or when the sync after its launch waits
# long (policy/cuts.c), both timed on the host's clock, where the stand-in's kernels run on the CPU and a loaded
# machine deschedules the host: token_regions was cut beside two fuzzers (session 16) and its trials starved.
# The tests of segments (tests/cuts.sh) run on the stand-in's virtual clock and set their own.
if ! { command -v nvidia-smi > /dev/null 2>&1 && nvidia-smi -L > /dev/null 2>&1; }; then
    : "${REPRISE_DEFERRAL_TIMEOUT_US:=10000000}" "${REPRISE_MAX_SEGMENTS:=1}"
    export REPRISE_DEFERRAL_TIMEOUT_US REPRISE_MAX_SEGMENTS
fi

# The governor off (REPRISE_GOVERNOR=on is the shim's default), with or without a GPU: once a program has run
# for 10 epochs of 100 ms it probes, and its epochs stepped aside replay nothing, so the replays and fallbacks
# that the tests count would depend on how long the run took (a loaded machine, a sanitizer build).  The
# governor's own tests (tests/governor.sh) and the fuzzers' FUZZ_GOVERNOR runs set it on.
: "${REPRISE_GOVERNOR:=off}"
export REPRISE_GOVERNOR

# Prints a failure and counts it.
fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

# Passes if file $1 contains the fixed string $2.
expect_in() {
    grep -qF -- "$2" "$1" || { fail "$1 does not contain: $2"; sed 's/^/  | /' "$1" | head -20 >&2; }
}

# Passes if file $1 does not contain the fixed string $2.
expect_not_in() {
    ! grep -qF -- "$2" "$1" || fail "$1 contains: $2"
}

# Passes if file $1 contains the fixed string $2 exactly $3 times.
expect_count() {
    n=$(grep -oF -- "$2" "$1" | wc -l)
    [ "$n" -eq "$3" ] || fail "$1 contains '$2' $n times, expected $3"
}

# The replays of every region in the exit summary of log $1 (REPRISE_LOG=info), summed.
replays_in() {
    sed -n 's/.*calls): [0-9]* occurrences, \([0-9]*\) replays.*/\1/p' "$1" | awk '{n += $1} END {print n + 0}'
}

# Runs a program with the shim preloaded and REPRISE_* from the arguments before --.
with_shim() {
    env LD_PRELOAD="$PRELOAD${LD_PRELOAD:+:$LD_PRELOAD}" "$@"
}

# The stand-in's virtual host clock (standin/host_clock.c), preloaded before the shim: CLOCK_MONOTONIC, the
# shim's clock, moves only by the host costs asked for (STANDIN_SUBMIT_US, STANDIN_GRAPH_LAUNCH_US,
# STANDIN_GRAPH_UPDATE_US, a program's standin_host_work), spent on it without sleeping.  What the shim decides
# from host time (the ceiling, a region's pace, a graph's trial) is then what the test set, however loaded the
# machine: tests assert on such decisions only under it.  For programs whose timed calls come from one thread.
HOST_CLOCK="$top_builddir/standin/.libs/libstandin_clock.so"
CLOCK_PRELOAD="${SANITIZER_PRELOAD:+$SANITIZER_PRELOAD:}$HOST_CLOCK:$SHIM"
# with_shim on the virtual host clock.
with_clock() {
    [ -f "$HOST_CLOCK" ] || { echo "no $HOST_CLOCK: build it (make check)" >&2; exit 99; }
    env LD_PRELOAD="$CLOCK_PRELOAD${LD_PRELOAD:+:$LD_PRELOAD}" "$@"
}

# Fuzz tests: runs "sh SCRIPT --worker $WORK SEED..." (SCRIPT LABEL FIRST SEEDS JOBS BATCH: BATCH seeds a
# call, JOBS at a time), whose workers leave $WORK/SEED.fail for a failing seed and $WORK/stats.* lines; then
# gathers the stats into $WORK/stats, sets failed and passed, prints the first failing seeds' reports and fails.
run_seed_workers() {
    echo "$2: seeds $3..$(($3 + $4 - 1)) ($4), $5 at a time"
    seq "$3" $(($3 + $4 - 1)) | xargs -n "$6" -P "$5" sh "$1" --worker "$WORK"
    cat "$WORK"/stats.* > "$WORK/stats"
    failed=$(ls "$WORK" | grep -c '\.fail$')
    passed=$(($4 - failed))
    [ "$failed" -gt 0 ] || return 0
    ls "$WORK" | grep '\.fail$' | sort -n | head -10 | while read -r f; do cat "$WORK/$f" >&2; done
    [ "$failed" -gt 10 ] && echo "(and $((failed - 10)) more failing seeds)" >&2
    fail "$failed of $4 seeds printed different results: $(ls "$WORK" | grep '\.fail$' | sort -n |
        sed 's/\.fail$//' | tr '\n' ' ')"
}

# Fuzz tests under FUZZ_GOVERNOR (the auto runs switched between the engine and stepping aside every few host
# syncs): the engine's coverage is not what they test, but the governor must have stepped aside in half the $1
# seeds, whose workers listed those where it did in $WORK/governor.*.
check_governor_fuzz() {
    governed=$(cat "$WORK"/governor.* 2> /dev/null | wc -l)
    echo "governor (REPRISE_GOVERNOR_EPOCH_SYNCS=$FUZZ_GOVERNOR): stepped aside in $governed of $1 seeds; the" \
        "engine's coverage is not checked"
    [ $((governed * 2)) -ge "$1" ] || fail "the governor stepped aside in only $governed of $1 seeds"
}

# Fuzz tests, to show the comparison can fail: sets caught to the first "seed N, STANDIN_SEED=S" (program
# seeds $4..$5, scheduler seeds 1-3) for which "$1 $2 N" prints other than $WORK/N.$3 (seeds without that
# file are passed over); empty if none does.
find_racy_seed() {
    caught=
    for seed in $(seq "$4" "$5"); do
        [ -f "$WORK/$seed.$3" ] || continue
        for s in 1 2 3; do
            STANDIN_SEED=$s "$1" "$2" "$seed" > "$WORK/racy" 2>&1
            if ! cmp -s "$WORK/racy" "$WORK/$seed.$3"; then
                caught="seed $seed, STANDIN_SEED=$s"
                return
            fi
        done
    done
}

# Stand-in tests: runs program $2 (name $1) with STANDIN_SEED unset and then each seed from $4 on, and fails
# unless it exits 0, prints the same every time, and prints what tests/standin/expected/$1.out recorded on
# an H200 (tests/gpu/standin-vs-gpu.sh); a difference shows $3 lines of the diff.
same_as_gpu() {
    name=$1 prog=$2 shown=$3
    shift 3
    expected="$top_srcdir/tests/standin/expected/$name.out"
    if ! "$prog" > "$WORK/$name.1" 2>&1; then
        fail "$name exited with $?"
        return
    fi
    for seed in "$@"; do
        STANDIN_SEED=$seed "$prog" > "$WORK/$name.out" 2>&1
        cmp -s "$WORK/$name.1" "$WORK/$name.out" || fail "$name: seed $seed changed the output"
    done
    if [ ! -f "$expected" ]; then
        fail "$name: no $expected (record it with tests/gpu/standin-vs-gpu.sh --record)"
    elif ! diff -u "$expected" "$WORK/$name.1" > "$WORK/diff"; then
        fail "$name: stand-in differs from the H200 (- GPU, + stand-in):"
        head -"$shown" "$WORK/diff" >&2
    else
        echo "$name: same as on the H200"
    fi
}

# The reprise command's tests: the command, and expect_error RC ARGS... (reprise ARGS exits RC and says
# one line, "reprise: error: ...", on stderr).
REPRISE="$top_builddir/tools/reprise/reprise"
expect_error() {
    expected_rc=$1
    shift
    "$REPRISE" "$@" > "$WORK/bad.out" 2> "$WORK/bad.err"
    rc=$?
    [ "$rc" -eq "$expected_rc" ] || fail "reprise $*: exit status $rc, expected $expected_rc"
    [ "$(wc -l < "$WORK/bad.err")" -eq 1 ] || fail "reprise $*: not one line on stderr"
    expect_in "$WORK/bad.err" "reprise: error: "
}

# Runs `reprise run ARGS...`; in a sanitizer build with the sanitizer's runtime appended to LD_PRELOAD, where
# reprise run leaves it after the shim it puts first: a program not built with the sanitizer (a shell) then
# still loads it before libc (tests/sanitizer_options.sh lets ASan come second).
reprise_run() {
    env LD_PRELOAD="${LD_PRELOAD:-}${SANITIZER_PRELOAD:+${LD_PRELOAD:+:}$SANITIZER_PRELOAD}" "$REPRISE" run "$@"
}

# Skips the test (exit 77: a GPU test without a GPU, or without what it needs), saying why.
skip() {
    echo "SKIP: $*" >&2
    exit 77
}

# GPU tests: skips unless every program named ($1...) is built (make gpu-programs) and nvidia-smi lists a GPU.
require_gpu_programs() {
    for prog in "$@"; do
        [ -x "$prog" ] || skip "$prog is not built (make gpu-programs)"
    done
    command -v nvidia-smi > /dev/null 2>&1 || skip "nvidia-smi not found: no GPU here"
    nvidia-smi -L > "$WORK/gpus" 2>&1 || skip "nvidia-smi -L failed: no GPU here ($(head -1 "$WORK/gpus"))"
}

# PyTorch tests: skips unless $PYTHON (default python3) imports torch and torch sees a CUDA device; then sets
# LIMIT, a time limit to put before `env LD_PRELOAD=...` (so that the shim is preloaded into Python and its
# children only), and Python's environment.
require_torch() {
    PYTHON=${PYTHON:-python3}
    command -v "$PYTHON" > /dev/null 2>&1 || skip "no $PYTHON"
    "$PYTHON" -c 'import torch; assert torch.cuda.is_available()' > "$WORK/probe" 2>&1 ||
        skip "$PYTHON has no torch, or torch sees no CUDA device: $(tail -1 "$WORK/probe")"
    LIMIT=
    command -v timeout > /dev/null 2>&1 && LIMIT="timeout 180"
    export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
}

# GPU tests: the libraries program $1 does not find (ldd's "not found"), one name a line.
missing_libs() {
    ldd "$1" 2>&1 | sed -n 's/^[[:space:]]*\([^[:space:]]*\) => not found.*/\1/p'
}

# GPU tests: sets LIBPATH to the folders holding the libraries program $1 does not find through its rpath
# (cuBLAS and cuSPARSE of the build machine's $CUDA_HOME/lib64), looked for in the toolkit and in python3's
# nvidia wheels (PyTorch's), for its runs alone, and says so; empty when it finds them all.
library_path_for() {
    LIBPATH=
    missing=$(missing_libs "$1")
    [ -n "$missing" ] || return 0
    wheels=$(timeout 30 python3 -c 'import os, nvidia
print(" ".join(os.path.join(p, d, "lib") for p in nvidia.__path__ for d in sorted(os.listdir(p))))' 2> /dev/null)
    for lib in $missing; do
        for dir in ${CUDA_HOME:+$CUDA_HOME/lib64} /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib \
            $wheels /opt/torch/.venv/lib/python3*/site-packages/nvidia/*/lib; do
            [ -f "$dir/$lib" ] || continue
            case ":$LIBPATH:" in
            *":$dir:"*) ;;
            *) LIBPATH="${LIBPATH:+$LIBPATH:}$dir" ;;
            esac
            break
        done
    done
    echo "$(basename "$1") does not find $(echo "$missing" | paste -s -d ' ' -) by itself; its runs get LD_LIBRARY_PATH=$LIBPATH"
}

# At exit, whatever the way out: with GPU_SUITE_KEEP set (tools/dev/gpu-suite), copies what the test wrote there.
keep_work() {
    [ -n "${GPU_SUITE_KEEP:-}" ] || return 0
    mkdir -p "$GPU_SUITE_KEEP" && cp -R "$WORK"/. "$GPU_SUITE_KEEP"/
}

# Ends the test with the right exit status.
finish() {
    if [ "$failures" -ne 0 ]; then
        echo "$failures failure(s)" >&2
        exit 1
    fi
    exit 0
}

[ -f "$SHIM" ] || { echo "no $SHIM: build first" >&2; exit 99; }
