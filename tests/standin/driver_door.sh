#!/bin/sh
# SPDX-License-Identifier: MIT
# The driver front door on the stand-in (docs/standin.md, "The static runtime").
#
# Programs written against the driver API only, linked against the "static runtime" stand-in driver
# (standin/static/libcuda.so.1: the runtime stand-in inside, no cuda* name exported, as a program
# built with nvcc's default static runtime sees the GPU): tests/scenarios/driver_loop and driver_mixed;
# and tests/scenarios/mixed_door, the program's runtime launches and a library's cuGetProcAddress'd
# cuLaunchKernel on one stream (the normal stand-ins).  Each must exit 0 and print the same for
# STANDIN_SEED 1..5 (a correct program on a seeded scheduler), and the same with the shim preloaded
# under REPRISE_MODE=off and auto.  `nm -D` of the static variant lists no cuda* symbol.
#
# Last, the shim's half: under auto every program's regions are replayed through the driver front door.
. "${top_srcdir:-.}/tests/lib.sh"
SCEN="$top_builddir/tests/scenarios"
STATIC_LIB="$top_builddir/standin/static/.libs/libcuda.so.1"
PROGRAMS="driver_loop driver_mixed mixed_door"
for p in $PROGRAMS; do
    [ -x "$SCEN/$p" ] || { echo "$SCEN/$p is not built" >&2; exit 99; }
done
[ -f "$STATIC_LIB" ] || { echo "$STATIC_LIB is not built" >&2; exit 99; }

# The static variant hides the runtime: no cuda* (or __cuda*) name in its dynamic symbol table.
if command -v nm > /dev/null 2>&1; then
    nm -D --defined-only "$STATIC_LIB" > "$WORK/static.nm" || fail "nm -D $STATIC_LIB"
    ! grep -E ' (cuda|__cuda)' "$WORK/static.nm" > "$WORK/static.cuda" ||
        { fail "the static variant exports runtime names: $(head -3 "$WORK/static.cuda" | tr '\n' ' ')"; }
    expect_in "$WORK/static.nm" " cuLaunchKernel"
    expect_in "$WORK/static.nm" " cuGraphLaunch"
else
    echo "nm not found: the static variant's symbol table is not checked" >&2
fi

# Without the shim: exit 0, no failed call, the same output for every seed.
for p in $PROGRAMS; do
    STANDIN_SEED=1 "$SCEN/$p" > "$WORK/$p.1.out" 2> "$WORK/$p.1.err" || fail "$p (seed 1) exited $?"
    expect_in "$WORK/$p.1.out" "errors 0"
    for seed in 2 3 4 5; do
        STANDIN_SEED=$seed "$SCEN/$p" > "$WORK/$p.$seed.out" 2>&1 || fail "$p (seed $seed) exited $?"
        cmp -s "$WORK/$p.1.out" "$WORK/$p.$seed.out" ||
            { fail "$p: seed $seed prints otherwise than seed 1"; diff "$WORK/$p.1.out" "$WORK/$p.$seed.out" | head -5 >&2; }
    done
done
# With the shim: the same output under off and auto (seeds 1 and 3).
for p in $PROGRAMS; do
    for seed in 1 3; do
        for mode in off auto; do
            with_shim REPRISE_MODE=$mode REPRISE_LOG=info REPRISE_TRIAL=0 STANDIN_SEED=$seed "$SCEN/$p" \
                > "$WORK/$p.$mode.$seed.out" 2> "$WORK/$p.$mode.$seed.log" || fail "$p under $mode (seed $seed) exited $?"
            cmp -s "$WORK/$p.1.out" "$WORK/$p.$mode.$seed.out" ||
                { fail "$p under $mode (seed $seed): output differs from the run without the shim";
                  diff "$WORK/$p.1.out" "$WORK/$p.$mode.$seed.out" | head -5 >&2; }
        done
    done
done

# Under auto, the driver-only programs' loops (the static variant: no runtime at all) and the mixed
# program's are held back and replayed as graphs through the driver front door: the log says so, and
# the output is that of the run without the shim (checked above).  REPRISE_TRIAL=0: the stand-in's
# timings say nothing about whether a graph pays, and a trial lost would pass the region through.
for p in driver_loop driver_mixed mixed_door; do
    expect_in "$WORK/$p.auto.1.log" "replayed as a graph"
    expect_not_in "$WORK/$p.auto.1.log" "fell back"
done
# The driver-only programs' calls are driver calls, seen as work: no runtime was there to see them.
expect_in "$WORK/driver_loop.auto.1.log" "calls on stream 1 (legacy)"
finish
