#!/bin/sh
# SPDX-License-Identifier: MIT
# On a real GPU, the shim is invisible to real CUDA programs: each program of
# kernels/apps/ (make gpu-programs) runs without the shim, then preloaded with
# REPRISE_MODE=off, observe and auto; its stdout (checksums, error codes,
# counts) and its exit status must be the same every time.  In observe mode
# the trace's exit event must count exactly the launches that the program
# says it made: per launch function ("api NAME N" lines), in all, and on the
# stream(s) it used.  Skips (77) without the programs or without a GPU: it
# never passes without one.
#
# GPU_SUITE_KEEP=DIR copies every output and trace to DIR (tools/dev/gpu-suite).
. "${top_srcdir:-.}/tests/lib.sh"
APPS="$top_builddir/kernels/apps"

# Each program and the stream its launches must be counted on: legacy,
# per-thread, or "two" for two streams created by the program.
programs="launch_loop:legacy launch_loop_ptds:per-thread launch_api:legacy two_streams:two bad_launch:legacy"

for entry in $programs; do
    [ -x "$APPS/${entry%%:*}.gpu" ] || skip "$APPS/${entry%%:*}.gpu is not built (make gpu-programs)"
done
command -v nvidia-smi > /dev/null 2>&1 || skip "nvidia-smi not found: no GPU here"
nvidia-smi -L > "$WORK/gpus" 2>&1 || skip "nvidia-smi -L failed: no GPU here ($(head -1 "$WORK/gpus"))"
if ldd "$APPS/launch_loop.gpu" 2> /dev/null | grep -q 'libcudart.*not found'; then
    fail "launch_loop.gpu cannot find libcudart.so: set LD_LIBRARY_PATH to the CUDA runtime's folder"
    finish
fi

# A time limit on each run when timeout(1) is there.  It goes before `env
# LD_PRELOAD=...`, never after: the shim must be preloaded into the program
# alone, or timeout(1) would write to the trace too.
LIMIT=
command -v timeout > /dev/null 2>&1 && LIMIT="timeout 120"

# The fields of the trace's exit event, one "NAME COUNT" a line.
exit_calls() {
    grep '"ev":"exit"' "$1" | sed -n 's/.*"calls":{\([^}]*\)}.*/\1/p' | tr ',' '\n' |
        sed -n 's/^"\([^"]*\)":\([0-9]*\)$/\1 \2/p'
}
# The launches per stream in the trace's exit event, one "STREAM COUNT" a line.
exit_stream_launches() {
    grep '"ev":"exit"' "$1" | sed -n 's/.*"streams":\[\([^]]*\)\].*/\1/p' | tr '}' '\n' |
        sed -n 's/.*"stream":"\([^"]*\)".*"launches":\([0-9]*\).*/\1 \2/p'
}

for entry in $programs; do
    name=${entry%%:*}
    where=${entry#*:}
    prog="$APPS/$name.gpu"
    out="$WORK/$name"
    failures_before=$failures

    status=0
    $LIMIT "$prog" > "$out.plain.out" 2> "$out.plain.err" || status=$?
    if [ "$status" -eq 77 ]; then
        skip "$name exits 77 without the shim: no usable GPU ($(tail -1 "$out.plain.err"))"
    fi
    if [ "$status" -ne 0 ]; then
        fail "$name fails without the shim (exit $status): the program, not the shim, is wrong"
        sed 's/^/  | /' "$out.plain.err" "$out.plain.out" | tail -20 >&2
        continue
    fi
    grep -q '^launches [0-9]' "$out.plain.out" || fail "$name prints no 'launches N' line"

    for mode in off observe auto; do
        status=0
        $LIMIT env LD_PRELOAD="$SHIM${LD_PRELOAD:+:$LD_PRELOAD}" REPRISE_MODE=$mode \
            REPRISE_TRACE="$out.$mode.trace" "$prog" > "$out.$mode.out" 2> "$out.$mode.err" || status=$?
        if [ "$status" -ne 0 ]; then
            fail "$name with REPRISE_MODE=$mode exits $status, without the shim 0"
            sed 's/^/  | /' "$out.$mode.err" | tail -20 >&2
        fi
        if ! cmp -s "$out.plain.out" "$out.$mode.out"; then
            fail "$name's output with REPRISE_MODE=$mode differs from the run without the shim"
            diff "$out.plain.out" "$out.$mode.out" | head -20 | sed 's/^/  | /' >&2
        fi
        expect_count "$out.$mode.trace" '"ev":"exit"' 1
    done
    expect_in "$out.off.trace" '"calls_total":0'

    # observe: the counts of the exit event against what the program printed.
    trace="$out.observe.trace"
    expect_in "$trace" '"mode":"observe"'
    exit_calls "$trace" > "$out.calls"
    exit_stream_launches "$trace" > "$out.streams"
    launches=$(sed -n 's/^launches //p' "$out.plain.out")
    sed -n 's/^api //p' "$out.plain.out" | while read -r api count; do
        got=$(awk -v api="$api" '$1 == api { print $2 }' "$out.calls")
        [ "${got:-0}" = "$count" ] || { echo "FAIL: $name: the trace counts $api ${got:-0} times, the program called it $count" >&2; echo x >> "$out.bad"; }
    done
    [ ! -f "$out.bad" ] || fail "$name: per-function launch counts differ (above)"
    counted=$(awk '$1 ~ /^(__cudaLaunchKernel|cudaLaunchKernel|cudaLaunchKernelExC|cudaLaunchCooperativeKernel)(_ptsz)?$/ { s += $2 } END { print s + 0 }' "$out.calls")
    [ "$counted" = "$launches" ] || fail "$name: the trace counts $counted calls of launch functions, the program made $launches launches"
    on_streams=$(awk '{ s += $2 } END { print s + 0 }' "$out.streams")
    [ "$on_streams" = "$launches" ] || fail "$name: the trace's streams carry $on_streams launches, the program made $launches"
    case "$where" in
    legacy|per-thread)
        got=$(awk -v s="$where" '$1 == s { print $2 }' "$out.streams")
        [ "${got:-0}" = "$launches" ] || fail "$name: the $where stream carries ${got:-0} launches, expected $launches"
        ;;
    two)
        busy=$(awk '$2 > 0 && $1 != "legacy" && $1 != "per-thread" && $1 != "device"' "$out.streams" | wc -l)
        [ "$busy" -eq 2 ] || fail "$name: launches on $busy streams of its own, expected 2"
        ;;
    esac
    if [ "$failures" -eq "$failures_before" ]; then
        echo "ok: $name: same output and status without the shim and with off, observe, auto; observe counted $counted launches: $(tr '\n' ' ' < "$out.calls")"
    else
        echo "FAILED: $name ($((failures - failures_before)) failure(s) above)" >&2
    fi
done

# launch_loop, its per-thread twin and launch_api do the same work through
# different launch functions: the same results.
for name in launch_loop_ptds launch_api; do
    [ -f "$WORK/$name.plain.out" ] && [ -f "$WORK/launch_loop.plain.out" ] || continue
    grep '^checksum ' "$WORK/launch_loop.plain.out" > "$WORK/loop.sums"
    grep '^checksum ' "$WORK/$name.plain.out" | cmp -s "$WORK/loop.sums" - ||
        fail "$name's checksums differ from launch_loop's: the same work should give the same results"
done

finish
