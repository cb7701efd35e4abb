#!/bin/sh
# SPDX-License-Identifier: MIT
# Issue 12, case 2: a library that asks the DRIVER whether its stream is capturing and takes another path
# if so, as cuBLAS does (tests/standin/fakecublas.c: stream-ordered workspace, and a failure when the capture
# it saw is gone at the end of the call), in a conjugate-gradient loop with the program's own kernels on a
# cudaStreamCreate stream (tests/scenarios/cg_library).  The shim's robust-path captures must be invisible
# to every driver capture query (cuStreamIsCapturing, cuStreamGetCaptureInfo, _v2, _v3, their _ptsz twins),
# and the program's own capture visible: the same output and exit 0 with no shim, off, auto and robust, the
# library on its capture path exactly for the program's own capture (6 calls), never allocating inside the
# shim's, and the regions replayed (on the fast path under auto, the driver's front door; on the
# robust path under robust, so the library did run inside the shim's capture).
# Negative controls: the library asking through a route the shim cannot see does fail under the shim;
# its kernels' self-check does catch a workspace it did not write.
. "${top_srcdir:-.}/tests/lib.sh"
PROG="$top_builddir/tests/scenarios/cg_library"
[ -x "$PROG" ] || { echo "$PROG is not built" >&2; exit 99; }
# The library finds the stand-in libcuda.so.1 on the search path, as cuBLAS finds the driver.
export LD_LIBRARY_PATH="$top_builddir/standin/driver/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
SHOWN='library: 6 calls on the capture path, 0 failed calls, 0 faults'

# What the shim hands out for every capture query, by dlsym and by cuGetProcAddress: its own wrappers.
with_shim "$top_builddir/tests/standin/dlsym_check" capture || fail "dlsym_check capture: the shim does not wrap every driver capture query"

# No shim: every query the library may ask, in both flavours, gives the same, with the library on its
# capture path for the program's own capture only.
"$PROG" > "$WORK/plain.out" || fail "cg_library without the shim exited $?"
expect_in "$WORK/plain.out" "$SHOWN"
expect_in "$WORK/plain.out" ": converged"
expect_in "$WORK/plain.out" "calls 110 errors 0 last error cudaSuccess"
for query in v3 v2 v1 is_capturing; do
    for per_thread in 0 1; do
        FAKECUBLAS_QUERY=$query FAKECUBLAS_PER_THREAD=$per_thread "$PROG" > "$WORK/q.out" ||
            fail "no shim, query $query, per-thread $per_thread: exited $?"
        cmp -s "$WORK/plain.out" "$WORK/q.out" || fail "no shim, query $query, per-thread $per_thread: output differs"
    done
done
for seed in 2 3; do
    STANDIN_SEED=$seed "$PROG" > "$WORK/seed.out" || fail "no shim, seed $seed: exited $?"
    cmp -s "$WORK/plain.out" "$WORK/seed.out" || fail "no shim, seed $seed: output differs"
done

# Under the shim: off, auto and auto on the robust path; every region worth a graph, every occurrence graphed.
for seed in 1 2 3; do
    for case in off.auto auto.auto auto.robust; do
        run="$WORK/$case.$seed"
        with_shim REPRISE_MODE=${case%.*} REPRISE_REPLAY=${case#*.} REPRISE_MIN_REGION_CALLS=1 REPRISE_TRIAL=0 \
            REPRISE_LOG=info STANDIN_SEED=$seed "$PROG" > "$run.out" 2> "$run.log" ||
            { fail "$case (seed $seed) exited $?"; grep -m3 'library call failed' "$run.out" >&2; }
        cmp -s "$WORK/plain.out" "$run.out" ||
            { fail "$case (seed $seed): output differs from the run without the shim"; diff "$WORK/plain.out" "$run.out" | head -8 >&2; }
    done
done
# The regions hold the library's launches.  Under auto they come through the driver's front door and are
# graphed with the program's on the fast path; under robust they are captured with the rest.  Either way
# the library never allocated in them (it never saw a capture of the shim's).
expect_in "$WORK/auto.auto.1.log" "replayed as a graph"
expect_not_in "$WORK/auto.auto.1.log" "takes the robust path"
expect_in "$WORK/auto.robust.1.log" "replayed on the robust path"
for log in "$WORK/auto.auto.1.log" "$WORK/auto.robust.1.log"; do
    expect_not_in "$log" "(hidden_work: cuMemAllocAsync"
    expect_not_in "$log" "(hidden_work: cuMemFreeAsync"
done
# Every query and flavour on the robust path.
for query in v3 v2 v1 is_capturing; do
    for per_thread in 0 1; do
        with_shim REPRISE_REPLAY=robust REPRISE_MIN_REGION_CALLS=1 REPRISE_TRIAL=0 REPRISE_LOG=info \
            FAKECUBLAS_QUERY=$query FAKECUBLAS_PER_THREAD=$per_thread "$PROG" > "$WORK/rq.out" 2> "$WORK/rq.log" ||
            fail "robust, query $query, per-thread $per_thread: exited $?"
        cmp -s "$WORK/plain.out" "$WORK/rq.out" || fail "robust, query $query, per-thread $per_thread: output differs"
        expect_in "$WORK/rq.log" "replayed on the robust path"
    done
done
# The default policy.
with_shim "$PROG" > "$WORK/default.out" 2> /dev/null || fail "default auto exited $?"
cmp -s "$WORK/plain.out" "$WORK/default.out" || fail "default auto: output differs"

# Negative control: a capture query the shim cannot see (the driver stand-in's private entry point) shows
# the library the shim's capture, and the program fails, as cuBLAS did; without the shim the route is harmless.
FAKECUBLAS_UNSEEN_QUERY=1 "$PROG" > "$WORK/unseen_plain.out" || fail "unseen query without the shim exited $?"
cmp -s "$WORK/plain.out" "$WORK/unseen_plain.out" || fail "the unseen query changes results by itself"
if with_shim REPRISE_REPLAY=robust REPRISE_MIN_REGION_CALLS=1 REPRISE_TRIAL=0 FAKECUBLAS_UNSEEN_QUERY=1 "$PROG" \
    > "$WORK/unseen.out" 2> /dev/null; then
    fail "a library seeing the shim's capture did not fail: this test could not catch it"
fi
expect_in "$WORK/unseen.out" "status 14"
# Negative control of the library's self-check: a workspace tag its kernels did not write is a fault.
if FAKECUBLAS_CORRUPT=1 "$PROG" > "$WORK/corrupt.out"; then
    fail "a corrupted workspace went unnoticed: the library's self-check cannot fail"
fi
expect_not_in "$WORK/corrupt.out" " 0 faults"
finish
