#!/bin/sh
# SPDX-License-Identifier: MIT
# Priorities inside the shim's graphs (tests/scenarios/priorities: a stream created with priority -3, launches
# with a priority attribute through cudaLaunchKernelExC and cuLaunchKernelEx, plain launches on both streams).
# With STANDIN_PRIORITY_LOG=1 the stand-in says the priority each kernel ran at: a plain launch at its stream's,
# one with the attribute at the attribute's; a graph's kernel node at its node's priority when the graph was
# instantiated with CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY, else at the priority of the stream it is
# launched on; a captured launch's node gets its launch's priority, else its stream's, as CUDA's capture gives.
# Under auto (the fast path's graph, built from held-back launches) and robust (re-captured), for two seeds:
# the same output as without the shim, the region replayed, and every kernel run as often at each priority as
# without the shim (a graph instantiated without the flag runs them all at -3).
. "${top_srcdir:-.}/tests/lib.sh"
PROG="$top_builddir/tests/scenarios/priorities"
[ -x "$PROG" ] || { echo "$PROG is not built" >&2; exit 99; }

# The kernels' runs of log $1, counted by name and priority.
runs() {
    grep '^standin: kernel ' "$1" | sort | uniq -c
}

STANDIN_PRIORITY_LOG=1 "$PROG" > "$WORK/plain.out" 2> "$WORK/plain.err" || fail "priorities without the shim exited $?"
runs "$WORK/plain.err" > "$WORK/plain.runs"
# The program's own priorities, as the stand-in runs them without a graph.
for want in "k_add_step ran at priority -3" "k_scale ran at priority -2" "k_combine ran at priority -4" \
    "k_scale ran at priority 0" "k_axpy ran at priority -1" "k_axpy ran at priority -3"; do
    grep -q "^ *30 standin: kernel $want\$" "$WORK/plain.runs" || fail "without the shim: not 30 runs of $want"
done
for seed in 1 2; do
    for mode in auto robust; do
        replay=auto
        [ $mode = auto ] || replay=robust
        name=$mode.$seed
        with_shim REPRISE_REPLAY=$replay REPRISE_TRIAL=0 REPRISE_LOG=info STANDIN_SEED=$seed STANDIN_PRIORITY_LOG=1 \
            "$PROG" > "$WORK/$name.out" 2> "$WORK/$name.err" || fail "$mode (seed $seed) exited $?"
        cmp -s "$WORK/plain.out" "$WORK/$name.out" || fail "$mode (seed $seed): output differs from the run without the shim"
        runs "$WORK/$name.err" > "$WORK/$name.runs"
        if cmp -s "$WORK/plain.runs" "$WORK/$name.runs"; then
            echo "$mode (seed $seed): every kernel ran at its priority"
        else
            fail "$mode (seed $seed): kernels ran at other priorities than without the shim (- without, + with):"
            diff "$WORK/plain.runs" "$WORK/$name.runs" | grep '^[<>]' | sed 's/^</-/; s/^>/+/' >&2
        fi
    done
    expect_in "$WORK/auto.$seed.err" "replayed as a graph"
    expect_in "$WORK/robust.$seed.err" "replayed on the robust path"
done
finish
