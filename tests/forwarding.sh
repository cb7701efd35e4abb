#!/bin/sh
# SPDX-License-Identifier: MIT
# Every hooked function, called through the shim in off and observe mode,
# reaches the runtime with the same arguments and returns the runtime's code
# unchanged; observe counts each call exactly once.  (auto holds calls back
# and keeps the program's last error: the fake runtime here, which fails
# every call, cannot stand for it; the CPU stand-in, standin/, does.)
. "${top_srcdir:-.}/tests/lib.sh"
prog="$TESTS_BIN/test_forwarding"

# Without the shim: the control run.
"$prog" > "$WORK/plain.out" 2>&1 || fail "test_forwarding without the shim"
grep '^called ' "$WORK/plain.out" > "$WORK/plain.called"

for mode in off observe; do
    with_shim EXPECT_SHIM=1 REPRISE_MODE=$mode REPRISE_TRACE="$WORK/trace-$mode.json" \
        "$prog" > "$WORK/$mode.out" 2> "$WORK/$mode.err" || { fail "test_forwarding with REPRISE_MODE=$mode"; cat "$WORK/$mode.err" >&2; }
    grep '^called ' "$WORK/$mode.out" | cmp -s "$WORK/plain.called" - || fail "output with REPRISE_MODE=$mode differs from the plain run"
done

# observe: the exit event counts every hooked function exactly once.
trace="$WORK/trace-observe.json"
expect_count "$trace" '"ev":"config"' 1
expect_count "$trace" '"ev":"exit"' 1
called=$(sed -n 's/^called //p' "$WORK/plain.out")
[ "$(echo "$called" | wc -l)" -gt 80 ] || fail "too few hooked functions called: $(echo "$called" | wc -l)"
for name in $called; do
    expect_in "$trace" "\"$name\":1"
done
# off counts nothing.
expect_in "$WORK/trace-off.json" '"calls_total":0'
finish
