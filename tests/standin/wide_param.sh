#!/bin/sh
# SPDX-License-Identifier: MIT
# Parameters wider than 8 bytes (a struct passed by value): tests/scenarios/wide_param changes, in two
# launches' 4000-byte tables, an address that rotates among three buffers and a counter that grows.  Under
# auto its output is the run's without the shim, and at REPRISE_LOG=debug the description of a replay's
# patches compares such a parameter 8 bytes at a time: the moved address counts as an address, the counter as
# another parameter, each example naming the bytes that changed (before, a wide parameter was judged by its
# first 8 bytes, which had not changed, so the example showed two equal values).
. "${top_srcdir:-.}/tests/lib.sh"
PROG="$top_builddir/tests/scenarios/wide_param"
[ -x "$PROG" ] || { fail "$PROG is not built"; finish; }
LIMIT=
command -v timeout > /dev/null 2>&1 && LIMIT="timeout 60"

"$PROG" > "$WORK/plain.out" 2>&1 || fail "wide_param without the shim exited $?"
$LIMIT env LD_PRELOAD="$PRELOAD" REPRISE_MODE=auto REPRISE_MIN_REGION_CALLS=1 REPRISE_TRIAL=0 REPRISE_LOG=debug \
    REPRISE_GRAPH_INSTANCES=1 REPRISE_LOG_FILE="$WORK/auto.log" "$PROG" > "$WORK/auto.out" 2>&1 ||
    fail "wide_param under auto exited $?"
cmp -s "$WORK/plain.out" "$WORK/auto.out" ||
    { fail "the output differs from the run without the shim"; diff "$WORK/plain.out" "$WORK/auto.out" | head >&2; }
grep 'this replay patches' "$WORK/auto.log" > "$WORK/described"
[ "$(wc -l < "$WORK/described")" -eq 2 ] || fail "not 2 replays' patches described: $(cat "$WORK/described")"
grep -v 'patches 2 of 2 nodes: 1 launches whose changed parameters are all addresses (node 0 (k_big_arg) parameter 1 (bytes 3984-3991 of 4000): 0x[0-9a-f]* -> 0x[0-9a-f]*), 1 with other parameters changed (node 1 (k_big_arg) parameter 1 (bytes 3600-3607 of 4000): 0x[0-9a-f] -> 0x[0-9a-f]*), 0 with another geometry or kernel, 0 copies' \
    "$WORK/described" && fail "a replay's patches described otherwise than by an address and a counter inside the tables"
finish
