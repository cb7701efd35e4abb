#!/bin/sh
# SPDX-License-Identifier: MIT
# Event handles that rotate (issue 39, item 3; docs/design.md, "Events that rotate"): tests/scenarios/event_pool
# names a pool's events in turn, as JAX's runtime does, in work that is otherwise the same every iteration.  Its
# iterations are one region, whose replays give its record and wait nodes (or the records it owes after the
# graph) the occurrence's events: its one graph (not one per event of the pool: 8 graphs, 28 replays before)
# replays at least 50 of 60 iterations, with no fallback naming an event call,
# and print what they print without the shim, for several scheduler seeds, with the pool's events untimed (owed
# records), timed (record nodes) or mixed (a timed event where the graph owes an untimed one's record: those
# occurrences fall back), observed by the program between replays (its own event syncs, queries and waits on the
# pooled events) or not, and on the robust path.  As a sync-free loop (no sync between iterations), with a pool
# or one event named everywhere, its cuts double up to 576 calls with no fallback: a doubled cut's signatures and
# graph relate its second half's events to the first half's as the two cuts did (each iteration's first waits
# are for the event the iteration before recorded last; without that, the cuts stop at 144 calls and fall back).
# With the pool destroyed and made anew every 5 iterations (renew), a graph whose nodes name the old events is
# destroyed first: the stand-in aborts an instance made from a graph that names a destroyed event, as a set of
# arguments that recurs makes one (without that, "cuGraphInstantiate: graph node 0 waits for a destroyed event").
. "${top_srcdir:-.}/tests/lib.sh"
PROG="$top_builddir/tests/scenarios/event_pool"
[ -x "$PROG" ] || { fail "$PROG is not built"; finish; }
LIMIT=
command -v timeout > /dev/null 2>&1 && LIMIT="timeout 60"

# Runs event_pool with arguments $2... under the shim with REPRISE_* options $1 and scheduler seed $SEED into
# $WORK/out and $WORK/log; fails unless the output is the one without the shim ($WORK/plain.$2.$4).
run() {
    config=$1
    shift
    $LIMIT env LD_PRELOAD="$PRELOAD" REPRISE_TRIAL=0 REPRISE_LOG=debug STANDIN_SEED=${SEED:-1} $config "$PROG" "$@" \
        > "$WORK/out" 2> "$WORK/log" || fail "[$config] event_pool $* exited $?"
    cmp -s "$WORK/plain.$1.$3" "$WORK/out" || {
        fail "[$config] event_pool $* (seed ${SEED:-1}): output differs from the run without the shim"
        diff "$WORK/plain.$1.$3" "$WORK/out" | head -6 >&2
    }
}

# Fails unless the log of the last run has one graph and at least $1 replays (the debug log's, or the exit
# summary's: the robust path logs its first only), and no fallback at an event call.
replayed() {
    graphs=$(grep -c 'graph built\|graph captured on the robust path' "$WORK/log")
    replays=$(grep -c 'region [0-9]*: replayed' "$WORK/log")
    grep -q 'occurrences, [0-9]* replays' "$WORK/log" && replays=$(replays_in "$WORK/log")
    echo "$label: $graphs graph built, $replays replays"
    [ "$graphs" -eq 1 ] || fail "$label: $graphs graphs built, want 1"
    [ "$replays" -ge "$1" ] || fail "$label: $replays replays of 60 iterations, want $1 or more"
    if grep -E 'fell back .*(cudaEventRecord|cudaStreamWaitEvent)' "$WORK/log" > "$WORK/event_fallbacks"; then
        fail "$label: fell back at an event call: $(head -1 "$WORK/event_fallbacks")"
    fi
}

for timing in untimed timed mixed one; do
    for looks in quiet observe free renew; do
        iters=60
        [ $looks = free ] && iters=3000
        "$PROG" $timing $iters $looks > "$WORK/plain.$timing.$looks" 2>&1 || fail "$timing $looks: without the shim exited $?"
        grep -q "^error" "$WORK/plain.$timing.$looks" && fail "$timing $looks without the shim: $(grep -m1 "^error" "$WORK/plain.$timing.$looks")"
    done
done
STANDIN_SEED=2 "$PROG" untimed 60 observe > "$WORK/seed2" 2>&1
cmp -s "$WORK/plain.untimed.observe" "$WORK/seed2" || fail "without the shim: seed 2 changed the output"

for timing in untimed timed; do
    label="$timing pool"
    run "" $timing 60 quiet
    replayed 50
    expect_in "$WORK/log" "region 1: replayed as a graph"
done
label="untimed pool, robust path"
run "REPRISE_REPLAY=robust REPRISE_STATS=1" untimed 60 quiet
replayed 50
expect_in "$WORK/log" "replayed on the robust path"
# A timed event where the graph owes an untimed one's record after the launch: that occurrence falls back.
run "" mixed 60 quiet
expect_in "$WORK/log" "has timing, where the graph records an event without timing after its launch"
# The program looks at the pooled events itself between replays: it sees them complete when it would without the
# shim (the records the graphs owe are made for the occurrence's events, before what observes them).
for seed in 1 2 3 4 5; do
    for timing in untimed timed mixed; do
        SEED=$seed run "" $timing 60 observe
    done
done
label="untimed pool, observed"
run "" untimed 60 observe
replayed 30
SEED=3 run "REPRISE_REPLAY=robust" untimed 60 observe
for timing in untimed timed; do
    run "" $timing 60 renew
    expect_in "$WORK/log" "cuEventDestroy_v2 ends the event it names: 1 graph referring to it destroyed first"
    expect_not_in "$WORK/log" "standin:"
done
run "REPRISE_REPLAY=robust" untimed 60 renew
for timing in untimed one; do
    run "" $timing 3000 free
    expect_in "$WORK/log" "sync-free loop: cuts of 576 calls from now on"
    expect_not_in "$WORK/log" "fell back"
done
finish
