#!/bin/sh
# SPDX-License-Identifier: MIT
# The stand-in's scheduler catches ordering mistakes: the right program gives
# the same output for STANDIN_SEED=1..50; each deliberately wrong one
# (tests/standin/ordering.c) differs from it for at least one of those seeds.
. "${top_srcdir:-.}/tests/lib.sh"
prog="$top_builddir/tests/standin/ordering"

"$prog" right > "$WORK/right" 2>&1 || fail "ordering right exited with $?"
for seed in $(seq 1 50); do
    STANDIN_SEED=$seed "$prog" right > "$WORK/out" 2>&1
    cmp -s "$WORK/right" "$WORK/out" || fail "right program: seed $seed changed the output"
done
for mode in no-wait no-sync; do
    caught=
    for seed in $(seq 1 50); do
        STANDIN_SEED=$seed "$prog" $mode > "$WORK/out" 2>&1
        if ! cmp -s "$WORK/right" "$WORK/out"; then
            caught=$seed
            break
        fi
    done
    if [ -n "$caught" ]; then
        echo "ordering $mode: differs from the right program with seed $caught"
    else
        fail "ordering $mode: same output as the right program for seeds 1..50"
    fi
done
finish
