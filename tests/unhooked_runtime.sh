#!/bin/sh
# SPDX-License-Identifier: MIT
# A runtime function the shim does not hook, whose work the runtime makes
# through the driver (shim/driver_door/driver.c, RUNTIME_UNHOOKED_CALL):
# tests/scenarios/unhooked_copy puts a cudaMemcpyBatchAsync between the
# launches of its loop.  Under auto the output is the same as without the
# shim for 3 scheduler seeds, and the copy ends the held-back calls before
# it: the 3 launches before it and the 2 after it replay as two regions;
# every eighth iteration the copy comes after the first launch, which the
# replay then submits on its own (a fallback after 1 of 3 calls).  Without the boundary the copy overtook the
# launches held back before it (z differed).  Then the copy inside the program's own capture (`capture`).
. "${top_srcdir:-.}/tests/lib.sh"
PROG="$TESTS_BIN/scenarios/unhooked_copy"
[ -x "$PROG" ] || { fail "$PROG is not built"; finish; }
LIMIT=
command -v timeout > /dev/null 2>&1 && LIMIT="timeout 60"

"$PROG" > "$WORK/plain" 2>&1 || fail "unhooked_copy without the shim exited $?"
grep -q '^error' "$WORK/plain" && fail "unhooked_copy fails without the shim: $(grep '^error' "$WORK/plain" | head -1)"
for seed in 1 2 3; do
    $LIMIT env LD_PRELOAD="$PRELOAD" REPRISE_MODE=auto REPRISE_TRIAL=0 REPRISE_MIN_REGION_CALLS=2 REPRISE_LOG=info \
        REPRISE_STATS=1 STANDIN_SEED=$seed "$PROG" > "$WORK/out" 2> "$WORK/log" ||
        fail "seed $seed: unhooked_copy under auto exited $?"
    cmp -s "$WORK/plain" "$WORK/out" || {
        fail "seed $seed: auto differs from no shim"
        diff "$WORK/plain" "$WORK/out" | head -6 >&2
    }
    expect_in "$WORK/log" "fell back after 1 of 3 calls"
    # The copy is a boundary: the 3 launches before it and the 2 after it replay as regions of their own.
    for calls in 3 2; do
        replays=$(sed -n "s/.*region [0-9]* (thread 1, $calls calls): [0-9]* occurrences, \([0-9]*\) replays.*/\1/p" \
            "$WORK/log")
        [ -n "$replays" ] && [ "$replays" -ge 20 ] ||
            fail "seed $seed: no region of the $calls launches on one side of the copy replayed 20 times or more: $(grep -E 'region [0-9]+ \(' "$WORK/log" | cut -c1-140)"
    done
done
echo "unhooked_copy: the same as without the shim for 3 seeds; $(grep -cE 'region [0-9]+ \(thread 1, [23] calls\)' "$WORK/log") regions, of the launches before and after the copy"

# `capture`: the copy inside the program's own capture (global mode, a blocking stream), after replays of a
# legacy-stream region whose graph owes a program event's record.  CUDA refuses the batch copy there
# (cudaErrorStreamCaptureUnsupported) and the capture goes on: without the shim the stand-in prints what the
# H200 printed (tests/standin/expected/unhooked_copy.capture.out).  What is owed is made before the capture
# begins; made at the copy's boundary, inside it, the record on the legacy stream invalidated the capture
# (cudaErrorStreamCaptureImplicit: the scale and cudaStreamEndCapture failed too).
"$PROG" capture > "$WORK/capture.plain" 2>&1 || fail "unhooked_copy capture without the shim exited $?"
cmp -s "$top_srcdir/tests/standin/expected/unhooked_copy.capture.out" "$WORK/capture.plain" || {
    fail "unhooked_copy capture without the shim differs from the H200's output"
    diff "$top_srcdir/tests/standin/expected/unhooked_copy.capture.out" "$WORK/capture.plain" | head -6 >&2
}
for seed in 1 2 3; do
    $LIMIT env LD_PRELOAD="$PRELOAD" REPRISE_MODE=auto REPRISE_TRIAL=0 REPRISE_LOG=info REPRISE_STATS=1 STANDIN_SEED=$seed \
        "$PROG" capture > "$WORK/capture.out" 2> "$WORK/capture.log" || fail "seed $seed: unhooked_copy capture under auto exited $?"
    cmp -s "$WORK/capture.plain" "$WORK/capture.out" || {
        fail "seed $seed: unhooked_copy capture under auto differs from no shim"
        diff "$WORK/capture.plain" "$WORK/capture.out" | head -6 >&2
    }
    expect_not_in "$WORK/capture.log" "could not be recorded"
    replays=$(sed -n 's/.*region [0-9]* (thread 1, 4 calls): [0-9]* occurrences, \([0-9]*\) replays.*/\1/p' "$WORK/capture.log")
    [ -n "$replays" ] && [ "$replays" -ge 15 ] ||
        fail "seed $seed: the legacy stream's region replayed ${replays:-0} times, not 15 or more"
done
echo "unhooked_copy capture: the program's captures after replays the same as without the shim for 3 seeds"

# `errors`: cudaSetDevice(99), a pair of launches, a refused batch copy, a pair, a sync: cudaGetLastError names
# the copy's error, the latest, under the robust path as without the shim (which had kept the first).
"$PROG" errors > "$WORK/errors.plain" 2>&1 || fail "unhooked_copy errors without the shim exited $?"
expect_in "$WORK/errors.plain" "cudaErrorInvalidDevice, then cudaErrorInvalidValue; cudaGetLastError cudaErrorInvalidValue"
for seed in 1 2 3; do
    $LIMIT env LD_PRELOAD="$PRELOAD" REPRISE_MODE=auto REPRISE_REPLAY=robust REPRISE_MIN_REGION_CALLS=2 REPRISE_LOG=info \
        STANDIN_SEED=$seed "$PROG" errors > "$WORK/errors.out" 2> "$WORK/errors.log" ||
        fail "seed $seed: unhooked_copy errors under auto exited $?"
    cmp -s "$WORK/errors.plain" "$WORK/errors.out" || {
        fail "seed $seed: unhooked_copy errors under the robust path differs from no shim"
        diff "$WORK/errors.plain" "$WORK/errors.out" | head -6 >&2
    }
    expect_in "$WORK/errors.log" "graph captured on the robust path"
done
echo "unhooked_copy errors: the latest error reaches the program under the robust path, for 3 seeds"
finish
