#!/bin/sh
# SPDX-License-Identifier: MIT
# Issue 25 on a real GPU ("graph what real programs repeat"): the project's own two programs of it
# (kernels/apps/, make gpu-programs), each run without the shim, then preloaded with REPRISE_MODE=off and
# REPRISE_MODE=auto (REPRISE_LOG=info, the log and a trace to files), under timeout:
#
#   train_lt.gpu, train_lt.static      a training step of an MLP on cuBLASLt (five GEMMs that cuBLASLt
#                                      launches through the driver API, on Hopper with programmatic
#                                      dependent launch), 17 kernels of its own, two of them on the legacy
#                                      stream, one sync a step; eager, ISSUE25_TRAIN_ARGS (default 300 steps)
#   decode_loop.gpu, decode_loop.static a decode loop: 53 calls an iteration whose attention grid and copy
#                                      and memset sizes grow by one step every iteration, one sync;
#                                      eager, ISSUE25_DECODE_ARGS (default 400 tokens)
#   pdl_chain.gpu, pdl_chain.static    12 kernels of its own a step launched with programmatic dependent
#                                      launch (cudaLaunchKernelEx), each reading its primary's output; eager 300
#
# and each program's hand-written graph mode (train_lt.gpu graph: the step captured once; decode_loop.gpu
# graph: captured every iteration and cudaGraphExecUpdate'd) without the shim and under auto.  Asserts:
#
#   - stdout (every step's loss bits, or every token; checksums; the programs' own checks) is byte-identical
#     with no shim, off and auto, and in the graph mode to the eager mode's; exit status 0 everywhere;
#   - under auto the main region replayed: the trace's exit summary (region_summary) has a region of at least
#     MIN calls (train_lt 20: the step's own 17 launches and 3 copies; decode_loop 40) with at least half as
#     many replays as the program has steps (or, launched in segments from some occurrence on, the trace's
#     segmented event, its segments that many replays each, summed), and the log says that region "replayed as
#     a graph" or "replayed on the robust path".
#
# It prints, per run, the program's us_per_iter, and from the auto log the launch attributes the shim names
# (a held-back programmatic dependent launch is named once; pdl_chain must show one) and each region's summary.
# Skips (77) without the programs or without a GPU.  GPU_SUITE_KEEP=DIR copies every output and log to DIR.
. "${top_srcdir:-.}/tests/lib.sh"
APPS="$top_builddir/kernels/apps"
TRAIN_ARGS=${ISSUE25_TRAIN_ARGS:-eager 300}
DECODE_ARGS=${ISSUE25_DECODE_ARGS:-eager 400}

require_gpu_programs "$APPS/train_lt.gpu" "$APPS/train_lt.static" "$APPS/decode_loop.gpu" "$APPS/decode_loop.static"
LIMIT=
command -v timeout > /dev/null 2>&1 && LIMIT="timeout 120"
# train_lt needs libcublasLt.so.13: where its rpath does not find it, the toolkit's or python3's nvidia wheels'.
library_path_for "$APPS/train_lt.gpu"

# run PROG LABEL ARGS...: runs PROG ARGS (LABEL none: no shim; off or auto: preloaded in that mode, REPRISE_LOG=info,
# the log and the trace to files) into $WORK/PROG.WORD.LABEL.{out,err,status,log,trace} (WORD: ARGS' first word).
run() {
    prog=$1 label=$2
    shift 2
    base="$WORK/$prog.$1.$label"
    set -- "$APPS/$prog" "$@"
    [ "$label" = none ] ||
        set -- LD_PRELOAD="$PRELOAD${LD_PRELOAD:+:$LD_PRELOAD}" REPRISE_MODE="$label" REPRISE_LOG=info \
            REPRISE_LOG_FILE="$base.log" REPRISE_TRACE="$base.trace" "$@"
    [ -n "$LIBPATH" ] && set -- LD_LIBRARY_PATH="$LIBPATH${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$@"
    status=0
    $LIMIT env "$@" > "$base.out" 2> "$base.err" < /dev/null || status=$?
    echo "$status" > "$base.status"
    touch "$base.log" "$base.trace"
}

# The program's own loop time, from its stderr.
us_of() {
    sed -n 's/^us_per_iter \([0-9.]*\)$/\1/p' "$1.err" | head -1
}

# check_same REF BASE WHAT: fails unless BASE exited 0 and printed REF's stdout.
check_same() {
    st=$(cat "$2.status")
    if [ "$st" -ne 0 ]; then
        fail "$3: exit $st, expected 0"
        tail -8 "$2.err" | sed 's/^/  | /' >&2
        grep -aE '\] (warning|error): ' "$2.log" 2> /dev/null | tail -6 | sed 's/^/  | /' >&2
    fi
    if ! cmp -s "$1.out" "$2.out"; then
        fail "$3: stdout differs from the run without the shim in eager mode (< that run, > this one)"
        diff "$1.out" "$2.out" | head -12 | sed 's/^/  | /' >&2
    fi
}

# check_replayed BASE WHAT MIN_CALLS MIN_REPLAYS: the main region (most calls among those replayed) of BASE's trace.
check_replayed() {
    sed -n 's/.*"ev":"region_summary".*"region":\([0-9]*\),"thread":\([0-9]*\),"calls":\([0-9]*\),"state":"\([a-z_]*\)","sightings":\([0-9]*\),"replays":\([0-9]*\),.*/\1 \3 \6 \4 \5/p' \
        "$1.trace" > "$1.regions"
    echo "  $2: regions at exit (id, calls, replays, state, occurrences):"
    sed 's/^/    /' "$1.regions" | head -12
    main=$(awk -v min="$3" '$3 > 0 && $2 >= min { if ($2 > best) { best = $2; line = $0 } } END { print line }' "$1.regions")
    if [ -z "$main" ]; then
        fail "$2: no region of at least $3 calls replayed (the main region is not graphed)"
        grep -aE 'info: region [0-9]+: (fell back|not graphed|graph)|launch attribute|\] warning: ' "$1.log" |
            sort | uniq -c | sort -rn | head -8 | cut -c1-220 | sed 's/^/  | /' >&2
        return
    fi
    # shellcheck disable=SC2086 # main is words
    set -- "$1" "$2" "$3" "$4" $main
    if ! grep -qaE "info: region $5: replayed (as a graph|on the robust path)" "$1.log"; then
        fail "$2: the log never says region $5 replayed"
    fi
    # Launched in segments from some occurrence on (the trace's segmented event): its segments, the regions of
    # at most segment_calls calls, replay in its place, each at least MIN_REPLAYS times.
    segmented=$(grep '"ev":"segmented"' "$1.trace" | grep "\"region\":$5," | head -1 |
        sed -n 's/.*"calls":\([0-9]*\),"segment_calls":\([0-9]*\).*/\1 \2/p')
    if [ "$7" -lt "$4" ] && [ -n "$segmented" ]; then
        # shellcheck disable=SC2086 # segmented is words
        set -- "$@" $segmented
        pieces=$(( (${10} + ${11} - 1) / ${11} ))
        # A segment's region may take several places (a decoder's layers alike): their replays are summed.
        replayed=$(awk -v each="${11}" '$2 <= each { n += $3 } END { print n + 0 }' "$1.regions")
        if [ "$replayed" -lt $((pieces * $4)) ]; then
            fail "$2: the main region ($5, $6 calls) was launched in $pieces segments of ${11} calls, which replayed $replayed times in all, expected at least $((pieces * $4))"
        else
            echo "  $2: main region $5: $6 calls, launched in $pieces segments of ${11} calls (the GPU's wait or a slow host), replayed $replayed times in all ($((pieces * $4)) needed)"
        fi
        return
    fi
    if [ "$7" -lt "$4" ]; then
        fail "$2: the main region ($5, $6 calls) replayed $7 times, expected at least $4"
    fi
    echo "  $2: main region $5: $6 calls, $7 replays ($4 needed)"
}

# One program: PROG MIN_CALLS STEPS EAGER_ARGS (words), then GRAPH (yes: its graph mode too).
program() {
    prog=$1 min_calls=$2 steps=$3 args=$4 graph=$5
    before=$failures
    # shellcheck disable=SC2086 # args are words
    run "$prog" none $args
    ref="$WORK/$prog.${args%% *}.none"
    st=$(cat "$ref.status")
    [ "$st" -eq 77 ] && skip "$prog exits 77 without the shim: $(tail -1 "$ref.err")"
    if [ "$st" -ne 0 ]; then
        fail "$prog $args fails without the shim (exit $st): the program, not the shim"
        tail -12 "$ref.err" | sed 's/^/  | /' >&2
        return
    fi
    line="$prog $args: none $(us_of "$ref") us"
    for mode in off auto; do
        # shellcheck disable=SC2086
        run "$prog" $mode $args
        check_same "$ref" "$base" "$prog $args under $mode"
        line="$line, $mode $(us_of "$base") us"
    done
    if [ "$graph" = yes ]; then
        gargs="graph${args#eager}"
        for mode in none auto; do
            # shellcheck disable=SC2086
            run "$prog" $mode $gargs
            check_same "$ref" "$base" "$prog $gargs ($mode)"
            line="$line, graph $mode $(us_of "$base") us"
        done
        grep -a 'executable-graph updates' "$WORK/$prog.graph.none.err" | sed 's/^/  /'
    fi
    echo "$line (per iteration)"
    auto="$WORK/$prog.${args%% *}.auto"
    attrs=$(grep -aoE 'with launch attribute [A-Z_0-9]+' "$auto.log" | sed 's/.* //' | sort -u | paste -s -d ' ' -)
    echo "  launch attributes the auto log names: ${attrs:-none}"
    check_replayed "$auto" "$prog $args" "$min_calls" $((steps / 2))
    [ "$failures" -eq "$before" ] && echo "ok: $prog: stdout identical (none, off, auto$([ "$graph" = yes ] && echo ', graph, graph under auto')), main region replayed"
}

train_steps=$(echo "$TRAIN_ARGS" | awk '{ print ($2 == "" ? 300 : $2) }')
decode_steps=$(echo "$DECODE_ARGS" | awk '{ print ($2 == "" ? 400 : $2) }')
program train_lt.gpu 20 "$train_steps" "$TRAIN_ARGS" yes
program train_lt.static 20 "$train_steps" "$TRAIN_ARGS" no
program decode_loop.gpu 40 "$decode_steps" "$DECODE_ARGS" yes
program decode_loop.static 40 "$decode_steps" "$DECODE_ARGS" no
# The program's own programmatic dependent launches (cuBLASLt 13.0 launched none on the H200): held back and
# graphed with programmatic edges, through the runtime's door (.gpu) and the driver's (.static).
for v in gpu static; do
    program pdl_chain.$v 13 300 "eager 300" "$([ $v = gpu ] && echo yes || echo no)"
    grep -qa 'with launch attribute CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION (a programmatic dependent launch): held back' \
        "$WORK/pdl_chain.$v.eager.auto.log" || fail "pdl_chain.$v: the auto log does not name a held-back programmatic dependent launch"
done
finish
