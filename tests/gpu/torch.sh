#!/bin/sh
# SPDX-License-Identifier: MIT
# On a real GPU, the shim is invisible to an unmodified eager PyTorch program
# (kernels/torch/tiny_ops.py): run without the shim, then preloaded with
# REPRISE_MODE=off, observe and auto, its stdout (checksums) and exit status
# are the same every time, and in observe mode the trace counts kernel
# launches (> 0).  Prints which runtime functions PyTorch called.  Skips (77)
# when python3 has no torch or torch sees no CUDA device.
#
# GPU_SUITE_KEEP=DIR copies every output and trace to DIR (tools/dev/gpu-suite).
. "${top_srcdir:-.}/tests/lib.sh"
script="$top_srcdir/kernels/torch/tiny_ops.py"
require_torch

status=0
$LIMIT "$PYTHON" "$script" > "$WORK/plain.out" 2> "$WORK/plain.err" || status=$?
[ "$status" -ne 77 ] || skip "tiny_ops.py skipped: $(tail -1 "$WORK/plain.err")"
if [ "$status" -ne 0 ]; then
    fail "tiny_ops.py fails without the shim (exit $status)"
    tail -20 "$WORK/plain.err" | sed 's/^/  | /' >&2
    finish
fi
grep -q '^checksum items ' "$WORK/plain.out" || fail "tiny_ops.py printed no checksum"

for mode in off observe auto; do
    mkdir -p "$WORK/$mode"
    status=0
    $LIMIT env LD_PRELOAD="$SHIM${LD_PRELOAD:+:$LD_PRELOAD}" REPRISE_MODE=$mode \
        REPRISE_TRACE="$WORK/$mode/trace.%p" "$PYTHON" "$script" > "$WORK/$mode.out" 2> "$WORK/$mode.err" || status=$?
    [ "$status" -eq 0 ] || { fail "tiny_ops.py with REPRISE_MODE=$mode exits $status, without the shim 0"; tail -20 "$WORK/$mode.err" | sed 's/^/  | /' >&2; }
    if ! cmp -s "$WORK/plain.out" "$WORK/$mode.out"; then
        fail "tiny_ops.py's output with REPRISE_MODE=$mode differs from the run without the shim"
        diff "$WORK/plain.out" "$WORK/$mode.out" | head -20 | sed 's/^/  | /' >&2
    fi
done

# observe: one trace per process (%p); sum the launch functions' calls over all of them.
cat "$WORK"/observe/trace.* > "$WORK/observe.trace" 2> /dev/null || true
expect_in "$WORK/observe.trace" '"ev":"exit"'
grep '"ev":"exit"' "$WORK/observe.trace" | sed -n 's/.*"calls":{\([^}]*\)}.*/\1/p' | tr ',' '\n' |
    sed -n 's/^"\([^"]*\)":\([0-9]*\)$/\1 \2/p' |
    awk '{ n[$1] += $2 } END { for (k in n) print k, n[k] }' | sort > "$WORK/calls"
launches=$(awk '$1 ~ /^(__cudaLaunchKernel|cudaLaunchKernel|cudaLaunchKernelExC|cudaLaunchCooperativeKernel)(_ptsz)?$/ { s += $2 } END { print s + 0 }' "$WORK/calls")
processes=$(grep -c '"ev":"exit"' "$WORK/observe.trace")
[ "$failures" -ne 0 ] || echo "ok: tiny_ops.py: same output and status without the shim and with off, observe, auto"
echo "observe: $processes process(es) traced, $launches kernel launches through the runtime"
echo "runtime functions PyTorch called (observe):"
sed 's/^/  /' "$WORK/calls"
[ "$launches" -gt 0 ] || fail "observe counted no kernel launches in tiny_ops.py"
# 50 iterations of 100 elementwise ops: at least 5000 launches when all are seen.
[ "$launches" -ge 5000 ] || echo "note: fewer launches than the 5000 elementwise ops: some go around the runtime" >&2
finish
