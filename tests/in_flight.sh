#!/bin/sh
# SPDX-License-Identifier: MIT
# Calls in flight (issue 15, item 2; shim/engine/engine_in_flight.c): while
# several threads call CUDA, each marks the call it forwards until it
# returns, and another thread's robust-path capture does not begin on what
# a marked call touches.  tests/standin/in_flight PATH: a second thread
# makes one call down forwarding path PATH on the stream s (the runtime's
# kernel, sync, capture question and copy; the driver's launch, memset and
# sync; the legacy stream; a device sync; or all of them), then makes none
# while the first thread loops 60 times on s.  Under REPRISE_REPLAY=robust
# the output is the same as without the shim for 3 scheduler seeds a path,
# and the first thread's region is re-captured in most iterations: a mark
# that path left up would defer every capture of s (the trace's
# capture_deferred events count them: none once the second thread is
# silent).  Shown failing with in_flight_clear leaving every mark up (every
# path fails), with the runtime wrappers not clearing theirs (launch, sync,
# copy... fail) and with the driver's sync wrapper alone not clearing its
# own (driver_sync fails).
. "${top_srcdir:-.}/tests/lib.sh"
PROG="$TESTS_BIN/standin/in_flight"
[ -x "$PROG" ] || { fail "$PROG is not built"; finish; }
LIMIT=
command -v timeout > /dev/null 2>&1 && LIMIT="timeout 60"

# Each path last (alone), so that no later call of thread 2 clears a mark it left; and all of them.
for path in launch sync capture_query copy driver_launch driver_memset driver_sync legacy device_sync all; do
    "$PROG" $path > "$WORK/$path.plain" 2>&1 || fail "in_flight $path without the shim exited $?"
    for seed in 1 2 3; do
        rm -f "$WORK/trace" # a trace file is appended to
        $LIMIT env LD_PRELOAD="$PRELOAD" REPRISE_REPLAY=robust REPRISE_TRIAL=0 REPRISE_MIN_REGION_CALLS=1 \
            REPRISE_LOG=info REPRISE_STATS=1 REPRISE_TRACE="$WORK/trace" STANDIN_SEED=$seed "$PROG" $path \
            > "$WORK/out" 2> "$WORK/log" || fail "$path, seed $seed: in_flight under robust exited $?"
        cmp -s "$WORK/$path.plain" "$WORK/out" || fail "$path, seed $seed: robust differs from no shim"
        recaptured=$(sed -n 's/.*region [0-9]* (thread 1, 5 calls): [0-9]* occurrences, [0-9]* replays (\([0-9]*\) re-captured).*/\1/p' \
            "$WORK/log")
        deferred=$(grep -c '"ev":"capture_deferred"' "$WORK/trace")
        [ -n "$recaptured" ] && [ "$recaptured" -ge 50 ] ||
            fail "$path, seed $seed: thread 1's region re-captured ${recaptured:-0} times of 60, expected 50 or more ($deferred captures deferred)"
        [ "$deferred" -eq 0 ] || fail "$path, seed $seed: $deferred captures deferred, none expected once thread 2 is silent"
    done
    echo "in_flight $path: thread 1's region re-captured ${recaptured:-0} times of 60 (seed 3), no capture deferred"
done
finish
