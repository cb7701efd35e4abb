#!/bin/sh
# SPDX-License-Identifier: MIT
# On a real GPU, an eager PyTorch program whose regions hold a library's
# driver-API work: kernels/torch/side_stream.py runs an MLP (cuBLAS GEMMs,
# launched through the driver API) on a non-blocking stream, .item() ending
# each iteration.  Without the shim, with auto (the GEMMs come through the
# driver's front door: graphed with the rest on the fast path) and with
# REPRISE_REPLAY=robust (captured with the rest), stdout (checksums of every
# iteration) and exit status must be the same, and the log must show the
# regions replayed on the path asked for (timings, the median_us and host_calib_us lines,
# are not compared).  Skips (77) when python3 has no torch or sees no CUDA device.
#
# GPU_SUITE_KEEP=DIR copies every output and log to DIR (tools/dev/gpu-suite).
. "${top_srcdir:-.}/tests/lib.sh"
script="$top_srcdir/kernels/torch/side_stream.py"
require_torch

status=0
$LIMIT "$PYTHON" "$script" > "$WORK/plain.out" 2> "$WORK/plain.err" || status=$?
[ "$status" -eq 0 ] || { tail -5 "$WORK/plain.err" >&2; fail "side_stream.py fails without the shim (exit $status)"; finish; }
grep -q '^checksum ' "$WORK/plain.out" || fail "side_stream.py printed no checksum"
grep -vE '^(median_us|host_calib_us) ' "$WORK/plain.out" > "$WORK/plain.results"

for replay in auto robust; do
    status=0
    $LIMIT env LD_PRELOAD="$SHIM${LD_PRELOAD:+:$LD_PRELOAD}" REPRISE_MODE=auto REPRISE_REPLAY=$replay REPRISE_LOG=info \
        REPRISE_STATS=1 "$PYTHON" "$script" > "$WORK/$replay.out" 2> "$WORK/$replay.log" || status=$?
    [ "$status" -eq 0 ] || { fail "side_stream.py with REPRISE_REPLAY=$replay exits $status"; tail -5 "$WORK/$replay.log" >&2; }
    grep -vE '^(median_us|host_calib_us) ' "$WORK/$replay.out" > "$WORK/$replay.results"
    if cmp -s "$WORK/plain.results" "$WORK/$replay.results"; then
        echo "ok: REPRISE_REPLAY=$replay: the same checksums as without the shim"
    else
        fail "side_stream.py with REPRISE_REPLAY=$replay prints other results"
        diff "$WORK/plain.results" "$WORK/$replay.results" | head -6 >&2
    fi
    if [ "$replay" = robust ]; then
        expect_in "$WORK/$replay.log" "replayed on the robust path"
    else
        expect_in "$WORK/$replay.log" "replayed as a graph"
        expect_not_in "$WORK/$replay.log" "takes the robust path"
    fi
    grep -E 'info: (region [0-9]+: (replayed|graph|not graphed|moving|fell)|a capture)' "$WORK/$replay.log" |
        sed 's/^reprise\[[0-9:]*\] info: /    /' | sort | uniq -c | sort -rn | head -6
    grep -E 'info: region [0-9]+ \(thread' "$WORK/$replay.log" | sed 's/^reprise\[[0-9:]*\] info: /    /' |
        grep -v ' 0 replays' | head -4
done
finish
