#!/bin/sh
# SPDX-License-Identifier: MIT
# Argument sets (issue 14, item 2): a region whose pointers rotate among a
# few buffers keeps one executable instance of its graph per recurring set
# and, after warm-up, replays with no node patched.  tests/scenarios/rotating_args
# (2 buffers in a region of 4 calls, then 3 in one of 5) prints the same
# without the shim and under auto; the exit summary and the trace say that
# instances were made and reused; with REPRISE_GRAPH_INSTANCES=1 (one
# instance, patched at every change: the shim before argument sets) the same
# checks fail, so they measure reuse.  A region whose sets never recur
# (alternating_args: a scalar changes every iteration) makes no second
# instance.
. "${top_srcdir:-.}/tests/lib.sh"
SCEN="$top_builddir/tests/scenarios"
PROG="$SCEN/rotating_args"
[ -x "$PROG" ] || { fail "$PROG is not built"; finish; }
LIMIT=
command -v timeout > /dev/null 2>&1 && LIMIT="timeout 60"

# Runs rotating_args (or $PROGRAM) under auto with extra REPRISE_* settings from the arguments; $WORK/$1.out, .log, .trace.
under_auto() {
    tag=$1
    shift
    $LIMIT env LD_PRELOAD="$PRELOAD${LD_PRELOAD:+:$LD_PRELOAD}" REPRISE_MODE=auto REPRISE_MIN_REGION_CALLS=1 \
        REPRISE_TRIAL=0 REPRISE_RECORDINGS=1 REPRISE_LOG=info REPRISE_STATS=1 REPRISE_TRACE="$WORK/$tag.trace" "$@" "${PROGRAM:-$PROG}" \
        > "$WORK/$tag.out" 2> "$WORK/$tag.log" || fail "$tag: exited $?"
    cmp -s "$WORK/${REFERENCE:-plain}.out" "$WORK/$tag.out" ||
        { fail "$tag: the output differs from the run without the shim"; diff "$WORK/${REFERENCE:-plain}.out" "$WORK/$tag.out" | head >&2; }
}

# "replays patched unpatched instances" of the region of $2 calls in log $1 (its exit summary).
counts() {
    sed -n "s/.*region [0-9]* (thread 1, $2 calls): [0-9]* occurrences, \([0-9]*\) replays .* \([0-9]*\) nodes patched, \([0-9]*\) replays unpatched, \([0-9]*\) graph instances.*/\1 \2 \3 \4/p" "$1"
}

# Passes if the region of $2 calls in log $1 replayed at least 30 times, made at least $3 instances, and
# after warm-up ($4 replays) patched nothing.
reused() {
    set -- "$1" "$2" "$3" "$4" $(counts "$1" "$2")
    [ $# -eq 8 ] || { fail "$1: no summary of a region of $2 calls"; return; }
    echo "  region of $2 calls: $5 replays, $6 nodes patched, $7 replays unpatched, $8 instances"
    [ "$5" -ge 30 ] || fail "$1: the region of $2 calls replayed $5 times, expected at least 30"
    [ "$8" -ge "$3" ] || fail "$1: the region of $2 calls made $8 instances, expected at least $3"
    [ "$7" -ge $(($5 - $4)) ] || fail "$1: only $7 of $5 replays of the region of $2 calls needed no patch"
}

"$PROG" > "$WORK/plain.out" || fail "rotating_args without the shim exited $?"
for seed in 1 2 3; do
    under_auto auto.$seed STANDIN_SEED=$seed
done
echo "auto (REPRISE_GRAPH_INSTANCES=4):"
reused "$WORK/auto.1.log" 4 2 1
reused "$WORK/auto.1.log" 5 3 3
expect_in "$WORK/auto.1.log" "executable instance 2 of at most 4 made"
expect_in "$WORK/auto.1.log" "executable instance 3 of at most 4 made"
expect_not_in "$WORK/auto.1.log" "executable instance 4 of"
# The trace's region_summary counts them too, and each new instance is an event.
expect_count "$WORK/auto.1.trace" '"ev":"instance_made"' 3
grep '"ev":"region_summary"' "$WORK/auto.1.trace" | grep -q '"calls":5,.*"unpatched":39,"instances":3' ||
    fail "the trace's region_summary of the 5-call region does not say 39 unpatched replays and 3 instances"

# One instance: the same results, and the checks above fail (every replay patches): they measure reuse.
under_auto one REPRISE_GRAPH_INSTANCES=1
before=$failures
reused "$WORK/one.log" 4 2 1 2> /dev/null
reused "$WORK/one.log" 5 3 3 2> /dev/null
[ $failures -eq $((before + 4)) ] || fail "with REPRISE_GRAPH_INSTANCES=1 the reuse checks did not all fail"
failures=$before
set -- $(counts "$WORK/one.log" 5)
[ "${3:-1}" -eq 0 ] && [ "${4:-0}" -eq 1 ] || fail "REPRISE_GRAPH_INSTANCES=1: $* (replays patched unpatched instances)"
expect_not_in "$WORK/one.log" "executable instance 2"

# Fewer instances than sets (2 for 3 buffers): the least recently used takes the set; the same results.
under_auto two REPRISE_GRAPH_INSTANCES=2
expect_in "$WORK/two.log" "executable instance 2 of at most 2 made"
expect_not_in "$WORK/two.log" "executable instance 3"
# The default policy (short regions pass through, graphs on trial): the same results.
$LIMIT env LD_PRELOAD="$PRELOAD" "$PROG" > "$WORK/default.out" 2> /dev/null || fail "default auto exited $?"
cmp -s "$WORK/plain.out" "$WORK/default.out" || fail "default auto mode's output differs"

# Sets that never recur (a scalar changes every iteration) cost no instantiation.
PROGRAM="$SCEN/alternating_args"
"$PROGRAM" > "$WORK/alternating.out" || fail "alternating_args without the shim exited $?"
REFERENCE=alternating under_auto alternating_auto
set -- $(counts "$WORK/alternating_auto.log" 3)
echo "alternating_args: $* (replays patched unpatched instances)"
[ "${4:-0}" -eq 1 ] || fail "alternating_args made ${4:-no} instances; one-off argument sets must not make any"
finish
