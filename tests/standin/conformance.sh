#!/bin/sh
# tests/conformance against the stand-in: the same output for several
# scheduler seeds, and byte for byte the output recorded on an H200
# (tests/standin/expected/conformance.out, see tests/gpu/standin-vs-gpu.sh).
. "${top_srcdir:-.}/tests/lib.sh"
prog="$top_builddir/tests/conformance"
expected="$top_srcdir/tests/standin/expected/conformance.out"

"$prog" > "$WORK/seed1" 2>&1 || fail "conformance exited with $?"
for seed in 2 3 7 42; do
    STANDIN_SEED=$seed "$prog" > "$WORK/out" 2>&1
    cmp -s "$WORK/seed1" "$WORK/out" || fail "seed $seed changed the conformance output"
done
if [ -f "$expected" ]; then
    if ! diff -u "$expected" "$WORK/seed1" > "$WORK/diff"; then
        fail "stand-in differs from the H200 (- GPU, + stand-in):"
        head -60 "$WORK/diff" >&2
    fi
else
    fail "no $expected: record it on a GPU with tests/gpu/standin-vs-gpu.sh --record"
fi
finish
