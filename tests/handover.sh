#!/bin/sh
# SPDX-License-Identifier: MIT
# Hand-overs (issue 15, item 1): tests/scenarios/handover has two host
# threads take turns on one stream in four phases (a relay whose producer
# never synchronises, a training step whose producer issues more once the
# stream is back; on a created and on the legacy stream). It must print
# the same without the shim and under auto for every scheduler seed
# (HANDOVER_SEEDS, default 50), with REPRISE_TRIAL=0 (every occurrence as
# its graph once there is one), with the defaults and on the robust path.
# And under auto each of its ten regions replays with no fallback, the six
# that end where the other thread takes the stream over (each producer's
# first part, each training step's consumer) at every such hand-over: the
# exit summary and the trace count them; with the defaults every region's
# trial decides. Before hand-overs were boundaries
# the producer's region fell back at every hand-over (other_thread), or
# never was one: a relay's producer has no boundary of its own.
. "${top_srcdir:-.}/tests/lib.sh"
PROG="$top_builddir/tests/scenarios/handover"
[ -x "$PROG" ] || { fail "$PROG is not built"; finish; }
LIMIT=
command -v timeout > /dev/null 2>&1 && LIMIT="timeout 60"
seeds=${HANDOVER_SEEDS:-50}

STANDIN_SEED=1 $LIMIT "$PROG" > "$WORK/plain.out" 2> "$WORK/plain.err" || fail "without the shim: exited $?"
grep -q '^calls [0-9]* errors 0 ' "$WORK/plain.out" || fail "without the shim: the program's calls failed"

# Runs the program with STANDIN_SEED=$1 under the shim with the REPRISE_* settings that follow; $WORK/$2.out, .log.
under_shim() {
    seed=$1 tag=$2
    shift 2
    $LIMIT env LD_PRELOAD="$PRELOAD${LD_PRELOAD:+:$LD_PRELOAD}" STANDIN_SEED="$seed" "$@" "$PROG" \
        > "$WORK/$tag.out" 2> "$WORK/$tag.log" || fail "$tag: exited $?"
    cmp -s "$WORK/plain.out" "$WORK/$tag.out" ||
        { fail "$tag: the output differs from the run without the shim"; diff "$WORK/plain.out" "$WORK/$tag.out" | head >&2; }
}

differ=0
for seed in $(seq 1 "$seeds"); do
    STANDIN_SEED=$seed $LIMIT "$PROG" > "$WORK/plain.$seed.out" 2> /dev/null
    cmp -s "$WORK/plain.out" "$WORK/plain.$seed.out" || differ=$((differ + 1))
    under_shim "$seed" "auto.$seed" REPRISE_TRIAL=0
    [ "$seed" -le 5 ] || continue
    under_shim "$seed" "defaults.$seed" REPRISE_LOG=info
    under_shim "$seed" "robust.$seed" REPRISE_REPLAY=robust
done
[ "$differ" -eq 0 ] || fail "without the shim the program printed otherwise for $differ of $seeds scheduler seeds"
echo "seeds 1..$seeds: the same without the shim and under auto ($((seeds > 5 ? 5 : seeds)) also with the defaults and robust)"

# The regions, from the exit summary: "replays hand-overs fallbacks" of every region seen 30 times or more.
under_shim 1 summary REPRISE_TRIAL=0 REPRISE_LOG=info REPRISE_STATS=1 REPRISE_TRACE="$WORK/summary.trace"
sed -n 's/.*region [0-9]* (thread [0-9]*, [0-9]* calls): \([0-9]*\) occurrences, \([0-9]*\) replays .*, \([0-9]*\) ended by another thread.s call (hand-overs), fallbacks: \(.*\)$/\1 \2 \3 \4/p' \
    "$WORK/summary.log" | awk '$1 >= 30' > "$WORK/regions"
sed 's/^/  sightings, replays, hand-overs, fallbacks: /' "$WORK/regions"
regions=$(wc -l < "$WORK/regions")
replayed=$(awk '$2 >= 30 && $4 == "none"' "$WORK/regions" | wc -l)
handed=$(awk '$2 >= 30 && $3 >= 30 && $4 == "none"' "$WORK/regions" | wc -l)
[ "$regions" -eq 10 ] || fail "$regions regions were seen 30 times or more (want 10: two a phase, and a training step's producer's second part)"
[ "$replayed" -eq 10 ] || fail "only $replayed of the regions replayed 30 times or more without a fallback (want 10)"
[ "$handed" -eq 6 ] || fail "only $handed regions replayed ending at a hand-over 30 times or more (want 6)"
expect_not_in "$WORK/summary.log" "other_thread"
expect_not_in "$WORK/summary.log" "fell back"
# The trace's region_summary counts them too.
n=$(grep '"ev":"region_summary"' "$WORK/summary.trace" | grep -c '"handovers":[1-9]')
[ "$n" -eq 6 ] || fail "the trace's region_summary counts hand-overs for $n regions (want 6)"
# With the defaults every region's trial decides (its owner's log line): the occurrences it passes through
# end at the hand-over too, or a region without a boundary of its own would get no eager sample.
n=$(sed -n 's/^reprise\[[0-9]*:\([0-9]*\)\] info: region \([0-9]*\): its graph \(pays\|does not pay\).*/\1 \2/p' \
    "$WORK/defaults.1.log" | sort -u | wc -l)
[ "$n" -eq 10 ] || fail "with the defaults the trials of $n regions decided (want 10)"
finish
