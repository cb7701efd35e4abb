#!/bin/sh
# SPDX-License-Identifier: MIT
# Programmatic edges on a real GPU (issue 40, section 3): kernels/apps/pdl_edges.gpu and pdl_edges.static (make
# gpu-programs), whose kernels let their dependents start early and write late, so that an edge too weak (a
# programmatic edge where the program asked for a full one) or a missing one changes a sum.  Each runs without
# the shim, then under REPRISE_MODE=auto (REPRISE_TRIAL=0, REPRISE_LOG=debug to a file), under timeout:
#
#   - exit status 0 and stdout byte-identical to the run without the shim (the program checks every
#     iteration's sum against a CPU reference itself: "waited: 0 of N iterations' sums differ");
#   - the iteration's region replayed as a graph: the exit summary's replays at least half the iterations;
#   - that graph's edges as the driver reports them (cuGraphGetEdges_v2, the shim's debug line "graph of C
#     calls on 1 streams: C nodes, C-1 edges (P programmatic)"): P is the program's programmatic dependent
#     launches per iteration (its first line says how many of its C calls), every other edge full.
#
# Negative control, without the shim: `pdl_edges.gpu unwaited`, whose programmatic dependent launches do not
# wait for their primary, must see sums differ: this GPU does start a dependent before its primary's writes,
# so an edge too weak would show.  Skips (77) without the programs, without a GPU, or on one without
# programmatic dependent launch (before sm_90).  PDL_EDGES_ITERATIONS (default 200) sets the iterations.
# GPU_SUITE_KEEP=DIR copies every output and log to DIR (tools/dev/gpu-suite).
. "${top_srcdir:-.}/tests/lib.sh"
APPS="$top_builddir/kernels/apps"
ITERATIONS=${PDL_EDGES_ITERATIONS:-200}
require_gpu_programs "$APPS/pdl_edges.gpu" "$APPS/pdl_edges.static"
LIMIT=
command -v timeout > /dev/null 2>&1 && LIMIT="timeout 120"

status=0
$LIMIT "$APPS/pdl_edges.gpu" unwaited "$ITERATIONS" > "$WORK/unwaited.out" 2> "$WORK/unwaited.err" || status=$?
[ $status = 77 ] && skip "pdl_edges: $(tail -1 "$WORK/unwaited.err")"
[ $status = 0 ] || fail "pdl_edges.gpu unwaited exited $status: $(tail -1 "$WORK/unwaited.err")"
if grep -q '^unwaited: 0 of' "$WORK/unwaited.out"; then
    fail "negative control: no sum differed with programmatic dependent launches that do not wait: this GPU ran" \
        "each after its primary's writes, and this test cannot see an edge too weak"
else
    echo "ok: negative control: $(grep '^unwaited:' "$WORK/unwaited.out") (programmatic dependent launches that do not wait)"
fi

for v in gpu static; do
    prog="$APPS/pdl_edges.$v"
    status=0
    $LIMIT "$prog" waited "$ITERATIONS" > "$WORK/$v.plain.out" 2> "$WORK/$v.plain.err" || status=$?
    if [ $status != 0 ]; then
        fail "pdl_edges.$v without the shim exited $status: $(tail -1 "$WORK/$v.plain.err")"
        continue
    fi
    log="$WORK/$v.auto.log"
    status=0
    $LIMIT env LD_PRELOAD="$PRELOAD${LD_PRELOAD:+:$LD_PRELOAD}" REPRISE_MODE=auto REPRISE_TRIAL=0 REPRISE_LOG=debug \
        REPRISE_STATS=1 REPRISE_LOG_FILE="$log" "$prog" waited "$ITERATIONS" > "$WORK/$v.auto.out" \
        2> "$WORK/$v.auto.err" || status=$?
    touch "$log"
    [ $status = 0 ] || fail "pdl_edges.$v under auto exited $status$([ $status = 124 ] && echo ' (timed out: a hang)'):" \
        "$(tail -1 "$WORK/$v.auto.err")"
    if cmp -s "$WORK/$v.plain.out" "$WORK/$v.auto.out"; then
        echo "ok: pdl_edges.$v: the same output under auto as without the shim ($(tail -1 "$WORK/$v.auto.out"))"
    else
        fail "pdl_edges.$v: the output under auto differs from the run without the shim"
        diff "$WORK/$v.plain.out" "$WORK/$v.auto.out" | head -6 >&2
    fi
    calls=$(sed -n 's/^per iteration: \([0-9]*\) calls.*/\1/p' "$WORK/$v.plain.out")
    pdl=$(sed -n 's/^per iteration: .*(\([0-9]*\) programmatic dependent launches).*/\1/p' "$WORK/$v.plain.out")
    counted=$(grep -o "graph of $calls calls on 1 streams: [0-9]* nodes, [0-9]* edges ([0-9]* programmatic)" "$log" |
        head -1)
    expected="graph of $calls calls on 1 streams: $calls nodes, $((calls - 1)) edges ($pdl programmatic)"
    if [ "$counted" = "$expected" ]; then
        echo "ok: pdl_edges.$v: $counted, as the program asked ($pdl programmatic dependent launches)"
    else
        fail "pdl_edges.$v: want \"$expected\" in the log, found: $(grep -o 'graph of .* edges (.*)' "$log" |
            sort | uniq -c | head -3 | paste -s -d ';' -)"
    fi
    replays=$(replays_in "$log")
    [ "$replays" -ge $((ITERATIONS / 2)) ] ||
        fail "pdl_edges.$v: $replays replays under auto, fewer than half the $ITERATIONS iterations"
    grep -E 'info: region [0-9]+ \(' "$log" | sed "s/^reprise\[[0-9:]*\] info: /    $v: /" | cut -c1-150 | head -4
done
finish
