#!/bin/sh
# SPDX-License-Identifier: MIT
# The fast path of a held-back launch (shim/engine/engine_fast.h) takes only what
# the engine would hold back the same way.  tests/fast_path prints the same
# without the shim and under auto:
#   shapes   two regions that begin with the same launch, and now and then
#            an iteration that mixes them: the fast path must not take a
#            launch from a record slot that another region's call is in
#            (slots_held), or it runs with the wrong grid;
#   threads  thread B begins to hold work back on a stream while thread A,
#            replaying, has its fast path open: A's launch on that stream
#            must submit B's work first (B's set_pending closes A's rare
#            word): B's region ends there, a hand-over, its graph launched
#            before A's launch goes on; else the two launches run in the
#            wrong order.
#   args     launches whose pointer and 4-byte scalar arguments change every
#            iteration, copied by their kernels' shapes: each argument that
#            differs from the graph's instance must be listed for a patch,
#            or the graph runs with the old one.
# And a sync-free loop's cuts replay without falling back: the fast path
# leaves each cut's last call to the engine, which ends the cut.
. "${top_srcdir:-.}/tests/lib.sh"
prog="$top_builddir/tests/fast_path"
[ -x "$prog" ] || { echo "no $prog: build it (make check)" >&2; exit 99; }
for what in shapes threads args; do
    "$prog" $what > "$WORK/$what.plain" 2>&1 || fail "$what exited $? without the shim"
    with_shim REPRISE_MODE=auto REPRISE_MIN_REGION_CALLS=1 REPRISE_TRIAL=0 REPRISE_LOG=info REPRISE_STATS=1 "$prog" $what \
        > "$WORK/$what.auto" 2> "$WORK/$what.log" || fail "$what exited $? under auto"
    cmp -s "$WORK/$what.plain" "$WORK/$what.auto" ||
        { fail "$what: auto differs from no shim"; diff "$WORK/$what.plain" "$WORK/$what.auto" | head >&2; }
    expect_in "$WORK/$what.plain" "errors 0 last error cudaSuccess"
done
expect_in "$WORK/shapes.log" "replayed as a graph"
expect_in "$WORK/threads.log" "graph built"
expect_in "$WORK/args.log" "replayed as a graph"
grep -qE "region [0-9]+ \(thread [0-9]+, 1 calls\): .*, [1-9][0-9]* ended by another thread's call \(hand-overs\)" \
    "$WORK/threads.log" || fail "B's one-call region did not end at A's launch (no hand-over counted)"

sync_free="$top_builddir/tests/scenarios/sync_free"
if [ -x "$sync_free" ]; then
    with_shim REPRISE_MODE=auto REPRISE_TRIAL=0 REPRISE_LOG=info "$sync_free" > "$WORK/sync_free.out" \
        2> "$WORK/sync_free.log" || fail "sync_free exited $? under auto"
    expect_in "$WORK/sync_free.log" "sync-free loop: the calls repeat every"
    expect_in "$WORK/sync_free.log" "replayed as a graph"
    expect_not_in "$WORK/sync_free.log" "(mismatch"
else
    fail "no $sync_free"
fi
finish
