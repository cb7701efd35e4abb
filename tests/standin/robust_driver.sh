#!/bin/sh
# SPDX-License-Identifier: MIT
# The robust path without a dynamic runtime (issue 25, item 2): its capture goes through libcuda.
#
# tests/scenarios/driver_direct is a driver-only program linked against the "static runtime" stand-in driver
# (no libcudart.so loaded, as a program built with nvcc's default runtime), whose loop holds work the shim
# cannot hold back: a library's own launches (tests/standin/fakeblas.c) and a 2-D memset.  Its region can only
# be replayed on the robust path, which captures it.  Without the shim it must exit 0 and print the same for
# seeds 1..3; under the shim (auto, seeds 1 and 3) the same, byte for byte (it prints how often the driver
# said a stream of its loop was capturing: the shim's capture must stay hidden), and the log must say that the
# region's graph was captured and replayed on the robust path, many times, and never that a region was not
# graphed, that a capture was lost, or that anything was replayed on the fast path.  Twice: with the 2-D
# memset (the driver work the shim sees but cannot hold sends the region to the robust path), and without it,
# the library launching through a cuLaunchKernel the shim has no wrapper for (FAKEBLAS_CUDA_VERSION=99000).
# Negative control: the library's launches through a route the shim cannot know of (FAKEBLAS_UNSEEN=1, no
# 2-D memset), where the fast path holds the program's launches back and the library's overtake them: the
# output must differ, or this test could not catch the library's work captured out of order.
. "${top_srcdir:-.}/tests/lib.sh"
PROG="$top_builddir/tests/scenarios/driver_direct"
[ -x "$PROG" ] || { echo "$PROG is not built" >&2; exit 99; }

# Without the shim: exit 0, no failed call, the same output for every seed.
for variant in 2d no2d; do
    set_2d=1
    [ "$variant" = no2d ] && set_2d=0
    for seed in 1 2 3; do
        DRIVER_FOREIGN_2D=$set_2d STANDIN_SEED=$seed "$PROG" > "$WORK/plain.$variant.$seed.out" 2>&1 ||
            fail "driver_direct ($variant, seed $seed) exited $?"
        cmp -s "$WORK/plain.$variant.1.out" "$WORK/plain.$variant.$seed.out" ||
            fail "driver_direct ($variant): seed $seed prints otherwise than seed 1"
    done
    expect_in "$WORK/plain.$variant.1.out" "errors 0"
done
FAKEBLAS_CUDA_VERSION=99000 DRIVER_FOREIGN_2D=0 "$PROG" > "$WORK/plain.v99.out" 2>&1 || fail "unseen route exited $?"
cmp -s "$WORK/plain.no2d.1.out" "$WORK/plain.v99.out" || fail "the library's unseen route changes results by itself"

# Under the shim: the same output, the region replayed on the robust path.  REPRISE_TRIAL=0: the stand-in's
# timings say nothing about whether a graph pays, and a trial lost would pass the region through.
for variant in 2d no2d; do
    set_2d=1 version=13000
    [ "$variant" = no2d ] && set_2d=0 version=99000
    for seed in 1 3; do
        run="$WORK/$variant.$seed"
        with_shim REPRISE_MODE=auto REPRISE_LOG=info REPRISE_STATS=1 REPRISE_TRIAL=0 STANDIN_SEED=$seed \
            DRIVER_FOREIGN_2D=$set_2d FAKEBLAS_CUDA_VERSION=$version "$PROG" > "$run.out" 2> "$run.log" ||
            fail "driver_direct ($variant, seed $seed) under the shim exited $?"
        cmp -s "$WORK/plain.$variant.1.out" "$run.out" ||
            { fail "driver_direct ($variant, seed $seed): output differs from the run without the shim";
              diff "$WORK/plain.$variant.1.out" "$run.out" | head -5 >&2; }
        expect_in "$run.log" "graph captured on the robust path"
        expect_in "$run.log" "replayed on the robust path"
        expect_not_in "$run.log" "not graphed"
        expect_not_in "$run.log" "capture of the robust path was lost"
        expect_not_in "$run.log" "fell back"
        expect_not_in "$run.log" "replayed as a graph"
        # The exit summary: of 30 occurrences, most were re-captured (the first ones are learnt and recorded).
        recaptured=$(sed -n 's/.*replays (\([0-9]*\) re-captured).*/\1/p' "$run.log" | head -1)
        [ "${recaptured:-0}" -ge 20 ] ||
            fail "driver_direct ($variant, seed $seed): ${recaptured:-no} occurrences re-captured, expected 20 or more"
    done
done
expect_in "$WORK/no2d.1.log" "cuLaunchKernel: handed out by cuGetProcAddress in a version the shim has no wrapper for"

# Negative control: launches the shim cannot know of overtake held-back work, and the output shows it.
with_shim REPRISE_MODE=auto REPRISE_LOG=info REPRISE_TRIAL=0 FAKEBLAS_UNSEEN=1 DRIVER_FOREIGN_2D=0 "$PROG" \
    > "$WORK/hidden.out" 2> "$WORK/hidden.log" || fail "driver_direct (hidden route) under the shim exited $?"
expect_in "$WORK/hidden.log" "replayed as a graph"
! cmp -s "$WORK/plain.no2d.1.out" "$WORK/hidden.out" ||
    fail "hidden launches did not change auto's output: this test could not catch the library's work out of order"
finish
