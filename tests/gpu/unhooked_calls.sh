#!/bin/sh
# SPDX-License-Identifier: MIT
# On a real GPU, runtime functions the shim does not hook, between a loop's
# launches (kernels/apps/unhooked_calls.gpu, make gpu-programs: 2D copies
# to and from a CUDA array, a managed-memory prefetch, an allocation from a
# pool, a 3D peer copy): the runtime makes their work through the driver,
# which the shim takes as a boundary (design.md, "Runtime functions the
# shim does not hook").  The program runs without the shim, then under
# REPRISE_MODE=off, auto, auto with REPRISE_REPLAY=robust, and auto with
# regions from 2 calls and no trial (short, which graphs its pairs of
# launches), each under `timeout 60`: stdout byte-identical, exit status 0.
# In the short run each pair replays, and every eighth iteration a replay
# is cut after its first launch by one of these calls, each in turn: the
# log must say so for at least 3 different driver functions the runtime
# made their work with (the held launch is submitted from inside the
# runtime's call, which must not hang).  Skips (77) without the program or
# a GPU.
#
# GPU_SUITE_KEEP=DIR copies every output and log to DIR (tools/dev/gpu-suite).
. "${top_srcdir:-.}/tests/lib.sh"
PROG="$top_builddir/kernels/apps/unhooked_calls.gpu"
[ -x "$PROG" ] || skip "$PROG is not built (make gpu-programs)"
command -v nvidia-smi > /dev/null 2>&1 && nvidia-smi -L > /dev/null 2>&1 || skip "no GPU here"
LIMIT=
command -v timeout > /dev/null 2>&1 && LIMIT="timeout 60"

status=0
$LIMIT "$PROG" > "$WORK/plain.out" 2> "$WORK/plain.err" || status=$?
[ $status = 77 ] && skip "unhooked_calls: no usable GPU"
[ $status = 0 ] || fail "unhooked_calls without the shim exited $status: $(tail -1 "$WORK/plain.err")"

for run in off auto robust short; do
    mode=auto replay=auto min_calls=4 trial=4
    [ $run = off ] && mode=off
    [ $run = robust ] && replay=robust
    [ $run = short ] && min_calls=2 trial=0
    status=0
    $LIMIT env LD_PRELOAD="$SHIM" REPRISE_MODE=$mode REPRISE_REPLAY=$replay REPRISE_MIN_REGION_CALLS=$min_calls \
        REPRISE_TRIAL=$trial REPRISE_LOG=info REPRISE_STATS=1 "$PROG" > "$WORK/$run.out" 2> "$WORK/$run.log" ||
        status=$?
    if [ $status = 0 ] && cmp -s "$WORK/plain.out" "$WORK/$run.out"; then
        echo "ok: unhooked_calls: the same output with $run as without the shim"
    else
        fail "unhooked_calls under $run: exit $status$([ $status = 124 ] && echo ' (timed out: a hang)'), output $(
            cmp -s "$WORK/plain.out" "$WORK/$run.out" && echo same || echo different)"
        diff "$WORK/plain.out" "$WORK/$run.out" | head -6 >&2
        tail -3 "$WORK/$run.log" >&2
    fi
done
# The driver functions that cut a replay after its first launch, one a line.
sed -n 's/.*fell back after 1 of 2 calls (hidden_work: \([A-Za-z0-9_]*\)).*/\1/p' "$WORK/short.log" | sort -u > "$WORK/cut_by"
if [ "$(wc -l < "$WORK/cut_by")" -ge 3 ]; then
    echo "ok: unhooked_calls: replays cut after their first launch by the runtime's $(paste -s -d ' ' "$WORK/cut_by")"
else
    fail "unhooked_calls: the short run's replays were cut after their first launch by fewer than 3 driver functions ($(paste -s -d ' ' "$WORK/cut_by")): $(grep 'fell back' "$WORK/short.log" | cut -c1-140 | sort | uniq -c | head -4)"
fi
grep -E 'info: region [0-9]+ \(' "$WORK/short.log" | sed 's/^reprise\[[0-9:]*\] info: /    short: /' | cut -c1-150 | head -8
finish
