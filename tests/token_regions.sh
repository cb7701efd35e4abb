#!/bin/sh
# SPDX-License-Identifier: MIT
# token_regions (tests/scenarios/token_regions.c): a decode loop whose every token is a sequence of its own
# that recurs only in the next call of the loop, as Hugging Face generate() with a dynamic cache runs.
# - The same results as without the shim, under several scheduler seeds.
# - Regions that begin with the same call and come in turn (policy/regions.c's regions_predicted,
#   graph_trial.c): the region followed from a sequence's first call was the one used last, always the
#   wrong one, so that each occurrence was passed through for one region's trial and was the other's, and
#   no trial ended (16 calls of 4 tokens: two of the four graphs never replayed, no verdict); the region
#   that came after the last one is followed now, and a trial's occurrence that turns out to be another
#   region counts for that one: every graph built gets its trial's verdict, and nothing falls back.
# - Crowded out (policy/regions.c): with more tokens than REPRISE_MAX_GRAPHS, graphs were built for regions
#   whose graphs were evicted before they came back (4 calls of 48 tokens: 46 built, 14 evicted before any
#   replay); a region whose every sighting is apart from the last by the use of all the graphs kept gets
#   none: none evicted unreplayed, and the log says why.
. "${top_srcdir:-.}/tests/lib.sh"
SCEN="$top_builddir/tests/scenarios"
EXPECTED="$top_srcdir/tests/standin/expected"
LIMIT=
command -v timeout > /dev/null 2>&1 && LIMIT="timeout 120"

# Runs token_regions under auto with the arguments given ($2...), log to $WORK/$1.log; fails if it fails.
run_tokens() {
    name=$1
    shift
    $LIMIT env REPRISE_LOG=info REPRISE_STATS=1 REPRISE_LOG_FILE="$WORK/$name.log" LD_PRELOAD="$PRELOAD" \
        "$SCEN/token_regions" "$@" > "$WORK/$name.out" 2> "$WORK/$name.err" || fail "token_regions $* exited $?"
}

for seed in 1 2; do
    STANDIN_SEED=$seed run_tokens "default.$seed"
    cmp -s "$EXPECTED/token_regions.out" "$WORK/default.$seed.out" ||
        fail "token_regions (seed $seed): output differs from the run without the shim"
done
expect_in "$WORK/default.1.log" "graphs all ran between two of their occurrences"
expect_in "$WORK/default.1.log" "its graph would be evicted before it came back; passing it through while that lasts"
grep -q "evicted ([1-9][0-9]* before any replay)" "$WORK/default.1.log" &&
    fail "token_regions: graphs evicted before any replay: $(grep 'graphs:' "$WORK/default.1.log")"
crowded=$(sed -n 's/.* \([0-9]*\) regions crowded out.*/\1/p' "$WORK/default.1.log")
[ -n "$crowded" ] && [ "$crowded" -ge 8 ] || fail "token_regions: ${crowded:-no} regions crowded out, want 8 or more"

run_tokens short 16 4
"$SCEN/token_regions" 16 4 > "$WORK/short.plain" 2>&1 || fail "token_regions 16 4 without the shim exited $?"
cmp -s "$WORK/short.plain" "$WORK/short.out" || fail "token_regions 16 4: output differs from the run without the shim"
built=$(grep -c "graph built" "$WORK/short.log")
verdicts=$(grep -cE "its graph (pays|does not pay)" "$WORK/short.log")
[ "$built" -ge 4 ] && [ "$verdicts" -ge "$built" ] ||
    fail "token_regions 16 4: $built graphs built, $verdicts trial verdicts: a region's trial starved"
expect_not_in "$WORK/short.log" "fell back"
finish
