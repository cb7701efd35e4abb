#!/bin/sh
# SPDX-License-Identifier: MIT
# Where calls are cut into graph launches (issue 14, items 4 and 5), on the
# stand-in.  Every run prints what the program prints without the shim.
#
# Batches: tests/scenarios/sync_free (20000 launches, one sync) is looked
# at for its period from its 256th call, not its 8193rd, and its cuts
# double from 64 calls to REPRISE_MAX_BATCH_CALLS (1024), each size learnt
# from the cuts half its size and built from one of them twice: the log and the
# trace's batch_grown events give the sizes, and over 90% of the launches
# are not submitted one by one.  With REPRISE_MAX_BATCH_CALLS=64 the cuts
# do not grow (the checks above fail).  `sync_free change`: a pattern
# change drops the period, and the new loop's cuts start again at whole
# periods of about 64 calls and grow in turn.
#
# Segments: tests/scenarios/slow_host (50 iterations of 32 launches with
# 300 us of host work after each, and a sync) is held back whole until its
# replays show the host slow (more time between two calls than the
# shortest graph launch, four replays in a row);
# then it is launched in segments of 8 calls.  Its third launch writes a
# flag into mapped memory that the host reads before its last launch: with
# segments the first segment, that kernel's, has been launched before the
# last launch in each of the last 20 iterations (the first three segments
# have: the stand-in's log of graph launches, STANDIN_GRAPH_LOG, against
# the program's marks), held back whole in none (REPRISE_MAX_SEGMENTS=1,
# the negative control).  Whether the stand-in's device had also run it by
# then is timing (a loaded machine runs its thread late): printed, not
# asserted.  A launch-bound loop (no host work) and a dear launch
# (STANDIN_GRAPH_LAUNCH_US beyond the host's time between calls) are not
# cut.  A host fast between calls whose GPU then works for long
# (STANDIN_KERNEL_US, waited for at the sync) is cut, for the GPU's wait.
#
# Every run is on the stand-in's virtual host clock (tests/lib.sh's
# with_clock), with REPRISE_MAX_SEGMENTS=8 (the default, which tests/lib.sh
# sets to 1 for the other tests), each submission costing 5 us (STANDIN_SUBMIT_US), the host's
# work what it asks for: the pace the shim measures (slow, launch-bound,
# a dear launch) is then what the scenario sets, not what the machine's
# load makes of it.
. "${top_srcdir:-.}/tests/lib.sh"
SCEN="$top_builddir/tests/scenarios"
LIMIT=
command -v timeout > /dev/null 2>&1 && LIMIT="timeout 120"

# Runs program $3 (then its arguments up to --) under auto as run $1 with the REPRISE_* and STANDIN_* settings
# after --, on the virtual host clock with submissions of 5 us; $WORK/$1.out, .log (info, with the exit summary,
# and the stand-in's graph launches), .trace.  The output must be $WORK/$2.out's.
# With FAST set, no summary and no trace: the front doors' fast path (shim/engine/engine_fast.h) is taken only then.
under_auto() {
    tag=$1 reference=$2 prog=$3
    shift 3
    args=
    while [ $# -gt 0 ] && [ "$1" != -- ]; do
        args="$args $1"
        shift
    done
    [ $# -gt 0 ] && shift
    counted="REPRISE_STATS=1 REPRISE_TRACE=$WORK/$tag.trace"
    [ -n "${FAST:-}" ] && counted=
    [ -f "$HOST_CLOCK" ] || { echo "no $HOST_CLOCK: build it (make check)" >&2; exit 99; }
    $LIMIT env LD_PRELOAD="$CLOCK_PRELOAD${LD_PRELOAD:+:$LD_PRELOAD}" REPRISE_MODE=auto REPRISE_LOG=info $counted \
        REPRISE_MAX_SEGMENTS=8 STANDIN_SUBMIT_US=5 STANDIN_GRAPH_LOG=1 "$@" "$prog" $args > "$WORK/$tag.out" \
        2> "$WORK/$tag.log" ||
        fail "$tag: exited $?"
    cmp -s "$WORK/$reference.out" "$WORK/$tag.out" ||
        { fail "$tag: the output differs from the run without the shim"; diff "$WORK/$reference.out" "$WORK/$tag.out" | head >&2; }
}

# The launches of log $1's exit summary not submitted one by one, all regions together.
saved() {
    sed -n 's/.* \([0-9]*\) calls not submitted one by one.*/\1/p' "$1" | awk '{ n += $1 } END { print n + 0 }'
}

# The sizes the trace $1's batch_grown events give, in order, separated by spaces.
grown() {
    sed -n 's/.*"ev":"batch_grown".*"calls":\([0-9]*\).*/\1/p' "$1" | tr '\n' ' ' | sed 's/ $//'
}

# ---- batches
"$SCEN/sync_free" > "$WORK/sync_free.out" || fail "sync_free without the shim exited $?"
under_auto free sync_free "$SCEN/sync_free" -- REPRISE_TRIAL=0
expect_in "$WORK/free.log" "sync-free loop: the calls repeat every 2; cutting them into regions of 64 calls, growing to at most 1024"
for size in 128 256 512 1024; do
    expect_in "$WORK/free.log" "sync-free loop: cuts of $size calls from now on"
done
[ "$(grown "$WORK/free.trace")" = "128 256 512 1024" ] ||
    fail "the trace's batch_grown sizes are '$(grown "$WORK/free.trace")', not 128 256 512 1024"
echo "sync_free: $(saved "$WORK/free.log") of 20002 launches not submitted one by one; cuts grew to $(grown "$WORK/free.trace")"
[ "$(saved "$WORK/free.log")" -ge 18000 ] ||
    fail "sync_free: only $(saved "$WORK/free.log") launches of 20002 replayed (the period looked for late, or the cuts did not grow)"
expect_not_in "$WORK/free.log" "fell back"
# The same through the fast path.
FAST=1 under_auto free_fast sync_free "$SCEN/sync_free" -- REPRISE_TRIAL=0
expect_in "$WORK/free_fast.log" "sync-free loop: cuts of 1024 calls from now on"
expect_not_in "$WORK/free_fast.log" "fell back"
# A bound of 64: no growth, and the checks above fail.
under_auto flat sync_free "$SCEN/sync_free" -- REPRISE_TRIAL=0 REPRISE_MAX_BATCH_CALLS=64
[ -z "$(grown "$WORK/flat.trace")" ] || fail "REPRISE_MAX_BATCH_CALLS=64: the cuts grew to $(grown "$WORK/flat.trace")"
expect_not_in "$WORK/flat.log" "cuts of 128 calls"
# A bound in between.
under_auto mid sync_free "$SCEN/sync_free" -- REPRISE_TRIAL=0 REPRISE_MAX_BATCH_CALLS=300
[ "$(grown "$WORK/mid.trace")" = "128 256" ] || fail "REPRISE_MAX_BATCH_CALLS=300: grew to '$(grown "$WORK/mid.trace")'"
# The default trial (graphs timed against passing through): the same output.
under_auto trial sync_free "$SCEN/sync_free" --

"$SCEN/sync_free" change > "$WORK/change_plain.out" || fail "sync_free change without the shim exited $?"
under_auto change change_plain "$SCEN/sync_free" change -- REPRISE_TRIAL=0
expect_in "$WORK/change.log" "sync-free loop: the calls repeat every 2; cutting them into regions of 64 calls"
expect_in "$WORK/change.log" "sync-free loop: the calls repeat every 3; cutting them into regions of 66 calls"
sizes=$(grown "$WORK/change.trace")
echo "sync_free change: cuts grew to $sizes"
[ "$sizes" = "128 256 512 132 264 528" ] ||
    fail "sync_free change: the cuts did not grow to 512, then start again from 66 and grow (batch_grown: $sizes)"
FAST=1 under_auto change_fast change_plain "$SCEN/sync_free" change -- REPRISE_TRIAL=0
expect_in "$WORK/change_fast.log" "sync-free loop: cuts of 528 calls from now on"
# The same results whatever else the policy says: evictions while the cuts grow, one sighting or three,
# unpatched instances, the robust path, other scheduler seeds (sync_free through the fast path).
for variant in REPRISE_MAX_GRAPHS=1 REPRISE_MIN_REPEATS=1 REPRISE_MIN_REPEATS=3 REPRISE_GRAPH_INSTANCES=1 \
    REPRISE_REPLAY=robust REPRISE_MAX_REGION_CALLS=100 STANDIN_SEED=2 STANDIN_SEED=5; do
    under_auto "change.$variant" change_plain "$SCEN/sync_free" change -- REPRISE_TRIAL=0 "$variant"
    FAST=1 under_auto "free.$variant" sync_free "$SCEN/sync_free" -- REPRISE_TRIAL=0 "$variant"
done

# ---- segments
SLOW="$SCEN/slow_host"
# The flags of the last 20 iterations that were there before the last launch ('y'), from log $1.
early() {
    sed -n 's/^slow_host: flag before the last launch: //p' "$1" | cut -c31-50 | tr -cd y | wc -c
}
# How many graph launches each of the last 20 iterations made before its last launch, from log $1 (slow_host's
# marks and the stand-in's graph launches, STANDIN_GRAPH_LOG), on one line.
before_last() {
    awk '/^slow_host: iteration [0-9]+$/ { n = 0 } /^standin: graph launch:/ { n++ }
        /^slow_host: iteration [0-9]+: last launch$/ { print n }' "$1" | tail -20 | tr '\n' ' ' | sed 's/ $//'
}
# Twenty times $1, separated by spaces.
twenty() {
    seq 20 | sed "s/.*/$1/" | tr '\n' ' ' | sed 's/ $//'
}

"$SLOW" 300 50 > "$WORK/slow.out" 2> /dev/null || fail "slow_host without the shim exited $?"
under_auto seg slow "$SLOW" 300 50 -- REPRISE_TRIAL=0
expect_in "$WORK/seg.log" ": its host is slow between calls"
expect_in "$WORK/seg.log" "it is launched in segments of 8 calls"
expect_count "$WORK/seg.trace" '"ev":"segmented"' 1
grep '"ev":"segmented"' "$WORK/seg.trace" | grep -q '"calls":32,"segment_calls":8' ||
    fail "the trace's segmented event does not say 32 calls in segments of 8"
[ "$(before_last "$WORK/seg.log")" = "$(twenty 3)" ] ||
    fail "slow_host in segments: not 3 segments launched before the last launch in each of the last 20 iterations: $(before_last "$WORK/seg.log")"
echo "slow_host, in segments: 3 segments launched before the last launch in each of the last 20 iterations;" \
    "the flag was there (the device had run the first) in $(early "$WORK/seg.log") of them"
# The segments replay, the whole region no more.
sed -n 's/.*region [0-9]* (thread 1, 8 calls): [0-9]* occurrences, \([0-9]*\) replays.*/\1/p' "$WORK/seg.log" > "$WORK/seg.replays"
[ "$(awk '$1 >= 20' "$WORK/seg.replays" | wc -l)" -eq 4 ] ||
    fail "slow_host: not all 4 segments of 8 calls replayed 20 times: $(tr '\n' ' ' < "$WORK/seg.replays")"
# The same through the fast path.
FAST=1 under_auto seg_fast slow "$SLOW" 300 50 -- REPRISE_TRIAL=0
expect_in "$WORK/seg_fast.log" "it is launched in segments of 8 calls"
[ "$(before_last "$WORK/seg_fast.log")" = "$(twenty 3)" ] ||
    fail "slow_host in segments, fast path: not 3 segments launched before each last launch: $(before_last "$WORK/seg_fast.log")"
# A region that is not a multiple of its segments (34 calls: four of 8 and a last of 2, which begins with the
# kernel the second one does): the short last one is not taken for the second, whose graph then fell back at
# the sync every iteration and backed off (0 replays of 42), as Triton's 50 launches in segments of 8 did.
"$SLOW" 300 50 34 > "$WORK/slow34.out" 2> /dev/null || fail "slow_host 300 50 34 without the shim exited $?"
under_auto seg34 slow34 "$SLOW" 300 50 34 -- REPRISE_TRIAL=0
expect_in "$WORK/seg34.log" "it is launched in segments of 8 calls"
expect_not_in "$WORK/seg34.log" "fell back"
[ "$(before_last "$WORK/seg34.log")" = "$(twenty 4)" ] ||
    fail "slow_host 34 calls: not 4 segments launched before each last launch: $(before_last "$WORK/seg34.log")"
sed -n 's/.*region [0-9]* (thread 1, 8 calls): [0-9]* occurrences, \([0-9]*\) replays.*/\1/p' "$WORK/seg34.log" > "$WORK/seg34.replays"
[ "$(awk '$1 >= 20' "$WORK/seg34.replays" | wc -l)" -eq 4 ] ||
    fail "slow_host 34 calls: not all 4 segments of 8 calls replayed 20 times: $(tr '\n' ' ' < "$WORK/seg34.replays")"
# Negative control: held back whole, nothing is launched before the last launch once the region replays (and
# the flag is never there then).
under_auto whole slow "$SLOW" 300 50 -- REPRISE_TRIAL=0 REPRISE_MAX_SEGMENTS=1
expect_not_in "$WORK/whole.log" "segments of"
grep -q 'region [0-9]* (thread 1, 32 calls): [0-9]* occurrences, [2-9][0-9] replays' "$WORK/whole.log" ||
    fail "slow_host held back whole: its region of 32 calls did not replay 20 times or more: $(grep '32 calls)' "$WORK/whole.log")"
[ "$(before_last "$WORK/whole.log")" = "$(twenty 0)" ] ||
    fail "slow_host held back whole: graphs launched before the last launch: $(before_last "$WORK/whole.log")"
echo "slow_host, held back whole (REPRISE_MAX_SEGMENTS=1): nothing launched before the last launch in the last 20" \
    "iterations; the flag was there in $(early "$WORK/whole.log") of them"
# A launch-bound loop keeps one launch per region.
"$SLOW" 0 100 > "$WORK/fastref.out" 2> /dev/null || fail "slow_host 0 without the shim exited $?"
under_auto fast fastref "$SLOW" 0 100 -- REPRISE_TRIAL=0
expect_not_in "$WORK/fast.log" "segments of"
grep -q 'region [0-9]* (thread 1, 32 calls): [0-9]* occurrences, 9[0-9] replays' "$WORK/fast.log" ||
    fail "slow_host 0: its region of 32 calls did not replay whole 90 times or more: $(grep '32 calls)' "$WORK/fast.log")"
# A launch dearer than the host's time between calls: not cut either.
under_auto dear slow "$SLOW" 300 50 -- REPRISE_TRIAL=0 STANDIN_GRAPH_LAUNCH_US=3000
expect_not_in "$WORK/dear.log" "segments of"
# A host fast between calls whose GPU works long after the launch (STANDIN_KERNEL_US: 20 us a kernel on the
# virtual clock, 640 us an iteration, waited for at the sync; 8 us of host work between calls and a graph launch
# of 25 us, so not slow between calls): held back whole, its GPU starts after the last call; in segments after
# the first 8 (policy/cuts.c overlap_pays: 5% sooner at least). The segments stay although each one's host is
# fast. Without the kernels' time (nothing to wait for at the sync) it stays whole.
"$SLOW" 8 50 > "$WORK/gpuref.out" 2> /dev/null || fail "slow_host 8 50 without the shim exited $?"
under_auto gpu_bound gpuref "$SLOW" 8 50 -- REPRISE_TRIAL=0 STANDIN_GRAPH_LAUNCH_US=20 STANDIN_KERNEL_US=20
expect_in "$WORK/gpu_bound.log" ": its GPU work waits for its last call"
expect_in "$WORK/gpu_bound.log" "it is launched in segments of 8 calls"
expect_not_in "$WORK/gpu_bound.log" "is fast between calls again"
grep '"ev":"segmented"' "$WORK/gpu_bound.trace" | grep -q '"segment_calls":8,.*"overlap":true' ||
    fail "slow_host 8 with kernel time: the trace's segmented event does not say segments of 8 for the GPU's wait"
[ "$(before_last "$WORK/gpu_bound.log")" = "$(twenty 3)" ] ||
    fail "slow_host 8 with kernel time: not 3 segments launched before each last launch: $(before_last "$WORK/gpu_bound.log")"
sed -n 's/.*region [0-9]* (thread 1, 8 calls): [0-9]* occurrences, \([0-9]*\) replays.*/\1/p' "$WORK/gpu_bound.log" \
    > "$WORK/gpu_bound.replays"
[ "$(awk '$1 >= 30' "$WORK/gpu_bound.replays" | wc -l)" -eq 4 ] ||
    fail "slow_host 8 with kernel time: not all 4 segments of 8 calls replayed 30 times: $(tr '\n' ' ' < "$WORK/gpu_bound.replays")"
FAST=1 under_auto gpu_bound_fast gpuref "$SLOW" 8 50 -- REPRISE_TRIAL=0 STANDIN_GRAPH_LAUNCH_US=20 STANDIN_KERNEL_US=20
expect_in "$WORK/gpu_bound_fast.log" ": its GPU work waits for its last call"
[ "$(before_last "$WORK/gpu_bound_fast.log")" = "$(twenty 3)" ] ||
    fail "slow_host 8 with kernel time, fast path: not 3 segments launched before each last launch: $(before_last "$WORK/gpu_bound_fast.log")"
# The debug pace line splits a launch's time: what patching its nodes took (STANDIN_NODE_PATCH_US: 3 us a node, on
# the virtual clock) and how many it patched.
under_auto pace_debug gpuref "$SLOW" 8 50 -- REPRISE_TRIAL=0 STANDIN_GRAPH_LAUNCH_US=20 STANDIN_KERNEL_US=20 \
    STANDIN_NODE_PATCH_US=3 REPRISE_LOG=debug
pace_line=$(grep -m1 ': pace: ' "$WORK/pace_debug.log")
patch_split=$(echo "$pace_line" | sed -n 's/.*a launch of \([0-9.]*\) us (\([0-9.]*\) of it patching \([0-9]*\) nodes).*/\1 \2 \3/p')
echo "$patch_split" | awk '{ exit !($3 > 0 && $2 == 3 * $3 && $1 >= $2 + 20) }' ||
    fail "the pace line does not give 3 us a patched node within a launch: $pace_line"
# A launch that is mostly patching (10 nodes at 20 us, then 10 us to submit) and 4 us kernels (128 us in the sync):
# segments patch the same nodes between them and pay only a launch's fixed cost again, so 4 segments end the
# occurrence 14% sooner and it is cut (counting the whole 210 us launch once more, as before session 17, it was not).
under_auto patch_bound gpuref "$SLOW" 8 50 -- REPRISE_TRIAL=0 STANDIN_GRAPH_LAUNCH_US=5 STANDIN_KERNEL_US=4 \
    STANDIN_NODE_PATCH_US=20
expect_in "$WORK/patch_bound.log" ": its GPU work waits for its last call"
expect_in "$WORK/patch_bound.log" "it is launched in segments of 8 calls"
under_auto gpu_idle gpuref "$SLOW" 8 50 -- REPRISE_TRIAL=0 STANDIN_GRAPH_LAUNCH_US=20
expect_not_in "$WORK/gpu_idle.log" "segments of"
# The default policy (the trial decides whether each graph pays): the same output.
under_auto seg_trial slow "$SLOW" 300 50 --
finish
