#!/bin/sh
# SPDX-License-Identifier: MIT
# The randomized differential test (issue 4).  For seeds 1..N (N=1000, or
# FUZZ_SEEDS), tests/fuzz/random_program SEED generates and runs a
# race-free CUDA program against the stand-in three ways:
#   plain  without the shim                               (STANDIN_SEED=a)
#   off    LD_PRELOAD=libreprise.so REPRISE_MODE=off      (STANDIN_SEED=b)
#   auto   REPRISE_MODE=auto REPRISE_MIN_REGION_CALLS=1   (STANDIN_SEED=a)
#   robust the same with REPRISE_REPLAY=robust, odd seeds (STANDIN_SEED=a);
#          its trial (REPRISE_TRIAL, default on) switches regions
#          between passing through and the robust path as it goes
# and all three must print the same and exit 0.  a = seed%7+1, b = the next
# one: plain against off also checks that the program does not depend on the
# scheduler; plain against auto isolates the engine (same scheduler seed).
# Some seeds also run auto with a small REPRISE_MAX_REGION_CALLS (the
# sync-free loop's period detector), REPRISE_MAX_GRAPHS=1 (evictions) or
# REPRISE_GRAPH_INSTANCES=2 (fewer instances than rotate's three buffers).
#
# The test has teeth: auto mode's trace (REPRISE_TRACE) must show graphs
# replayed in at least half of the seeds, regions of 8 or more calls among
# them, and fallbacks of several reasons; each stress kind of
# random_program.c (its "stress kinds:" line) must be in 15% of the seeds,
# half of those with such replays (with 200 seeds or more); the counts show
# how often a replayed region of 8 or more calls fell back (was disturbed);
# dropping one call from a program (--drop) must change its output in most
# seeds, and making every launch a programmatic dependent launch (--all-pdl:
# edges too weak) in a tenth of them; hashing without the final sync
# (--no-final-sync) must change the output for some seed and scheduler seed.
#
# The driver door (random_program.c, tests/fuzz/fuzz_door.h): in most seeds
# a share of the calls goes through the driver API (cuLaunchKernel... from
# cuGetProcAddress_v2 or as linked), in a fifth of them every call that can
# (stress kinds driver_door and driver_only, under the rule above: a
# driver-only seed's regions of 8 or more calls are regions of driver
# calls). Every seed with driver calls must show them in the auto run's
# exit event (its direct_calls: the shim's wrappers saw them), and the
# probe seeds must print the same with every call through the runtime
# (--runtime-only: the doors do the same work).
#
# Environment: FUZZ_SEEDS (how many seeds, default 1000), FUZZ_FIRST (first
# seed, default 1), FUZZ_JOBS (parallel runs, default 2).  Not REPRISE_*: the
# shim warns about every REPRISE_* variable it does not know, which other
# tests (tests/environment.sh) would see.  A REPRISE_* option set outside
# reaches every run: REPRISE_TRIAL=1 switches paths most often (0: no
# trial, and none is required); STANDIN_SUBMIT_US=5 makes the robust path pay
# in most seeds (standin/host_cost.c); REPRISE_DEFERRAL_TIMEOUT_US
# (default here 2000, the shim's own) sets the watchdog's bound.

# ---- worker: sh differential.sh --worker DIR SEED... (run through xargs)
if [ "$1" = "--worker" ]; then
    . "$top_srcdir/tests/fuzz/door_checks.sh"
    dir=$2
    shift 2
    prog="$top_builddir/tests/fuzz/random_program"
    # A run that hangs (a deadlock) fails its seed, not the whole test.
    limit=
    command -v timeout > /dev/null && limit="timeout 60"
    # After the sanitizer's runtime in a sanitizer build (tests/lib.sh's PRELOAD).
    shim="${SANITIZER_PRELOAD:+$SANITIZER_PRELOAD:}$top_builddir/.libs/libreprise.so"
    for seed in "$@"; do
        a=$((seed % 7 + 1))
        b=$((a % 7 + 1))
        extra=
        case $((seed % 10)) in
            2 | 4 | 7) extra="REPRISE_MAX_REGION_CALLS=$((8 + seed % 41))" ;;
            5) extra="REPRISE_GRAPH_INSTANCES=2" ;;
            9) extra="REPRISE_MAX_GRAPHS=1" ;;
        esac
        o="$dir/$seed"
        STANDIN_SEED=$a $limit "$prog" "$seed" > "$o.plain" 2> "$o.plain.err"
        rc_plain=$?
        env STANDIN_SEED=$b LD_PRELOAD="$shim" REPRISE_MODE=off $limit "$prog" "$seed" > "$o.off" 2> "$o.off.err"
        rc_off=$?
        env STANDIN_SEED=$a LD_PRELOAD="$shim" REPRISE_MODE=auto REPRISE_MIN_REGION_CALLS=1 \
            REPRISE_TRACE="$o.trace" $extra $limit "$prog" "$seed" > "$o.auto" 2> "$o.auto.err"
        rc_auto=$?
        bad=
        [ $rc_plain -eq 0 ] && [ $rc_off -eq 0 ] && [ $rc_auto -eq 0 ] ||
            bad="exit status: plain $rc_plain, off $rc_off, auto $rc_auto"
        cmp -s "$o.plain" "$o.off" || bad="$bad${bad:+; }off differs from plain"
        cmp -s "$o.plain" "$o.auto" || bad="$bad${bad:+; }auto differs from plain"
        if [ $((seed % 2)) -eq 1 ]; then
            env STANDIN_SEED=$a LD_PRELOAD="$shim" REPRISE_MODE=auto REPRISE_REPLAY=robust REPRISE_MIN_REGION_CALLS=1 \
                REPRISE_TRACE="$o.rtrace" $limit "$prog" "$seed" > "$o.robust" 2> "$o.robust.err"
            rc_robust=$?
            [ $rc_robust -eq 0 ] || bad="$bad${bad:+; }robust exited $rc_robust"
            cmp -s "$o.plain" "$o.robust" || bad="$bad${bad:+; }robust (REPRISE_REPLAY=robust) differs from plain"
            grep -q '"path":"robust"' "$o.rtrace" 2> /dev/null && echo "$seed" >> "$dir/robust.$$"
            grep -q '"ev":"payoff"' "$o.rtrace" 2> /dev/null && echo "$seed" >> "$dir/trial.$$"
            rm -f "$o.robust" "$o.robust.err" "$o.rtrace"
        fi
        if [ -n "$bad" ]; then
            {
                echo "seed $seed: $bad"
                diff "$o.plain" "$o.off" | head -10 | sed 's/^/  off | /'
                diff "$o.plain" "$o.auto" | head -20 | sed 's/^/  auto | /'
                cat "$o.off.err" "$o.auto.err" | grep -v ' info: ' | head -5 | sed 's/^/  stderr | /'
                echo "  reproduce: cd $top_builddir && STANDIN_SEED=$a tests/fuzz/random_program $seed > plain;" \
                    "STANDIN_SEED=$a LD_PRELOAD=.libs/libreprise.so REPRISE_MODE=auto REPRISE_MIN_REGION_CALLS=1" \
                    "${extra:+$extra }REPRISE_LOG=info tests/fuzz/random_program $seed > auto; diff plain auto"
                echo "  off: STANDIN_SEED=$b LD_PRELOAD=.libs/libreprise.so REPRISE_MODE=off tests/fuzz/random_program $seed"
                echo "  the program: tests/fuzz/random_program --dump $seed; to minimise it, add" \
                    "--keep=I,J,... (body operations to keep) and --iters=N to both runs"
            } > "$o.fail"
        fi
        # What the engine did: graphs built, replays, those of regions of 8 or more calls and the fallbacks of
        # such replayed regions (disturbed), fallbacks by reason; and which stress kinds the program has (its
        # "stress kinds:" line).
        kinds=$(sed -n 's/^stress kinds: //p' "$o.plain" | awk '{ for (i = 1; i < NF; i += 2) if ($(i + 1) > 0) { printf "%s%s", sep, $i; sep = "," } }')
        awk -v seed="$seed" -v kinds="${kinds:--}" '
            /"ev":"graph_built"/ { built++ }
            /"ev":"not_graphed"/ { not_graphed++ }
            /"ev":"period_found"/ { periods++ }
            /"ev":"evicted"/ { evicted++ }
            /"ev":"region_summary"/ {
                r = match($0, /"replays":[0-9]+/) ? substr($0, RSTART + 10, RLENGTH - 10) : 0
                replays += r
                if (match($0, /"calls":[0-9]+/) && substr($0, RSTART + 8, RLENGTH - 8) + 0 >= 8 && r > 0) {
                    long += r
                    if (match($0, /"region":[0-9]+/)) disturbed += fell[substr($0, RSTART + 9, RLENGTH - 9)]
                }
            }
            /"ev":"fallback"/ {
                if (match($0, /"reason":"[a-z_]+"/)) why[substr($0, RSTART + 10, RLENGTH - 11)]++
                if (match($0, /"region":[0-9]+/)) fell[substr($0, RSTART + 9, RLENGTH - 9)]++
            }
            END {
                printf "%s %d %d %d %d %d %d %d %s", seed, built, replays, not_graphed, periods, evicted, long, disturbed, kinds
                for (k in why) printf " %s=%d", k, why[k]
                printf "\n"
            }' "$o.trace" 2> /dev/null >> "$dir/stats.$$" || echo "$seed 0 0 0 0 0 0 0 ${kinds:--}" >> "$dir/stats.$$"
        # The driver door: the program's driver calls, what the shim saw of them (tests/fuzz/door_checks.sh).
        door_stats "$seed" "$o.plain" "$o.trace" >> "$dir/door.$$"
        # The governor (FUZZ_GOVERNOR): whether the auto run stepped aside at least once.
        grep -q '"ev":"governor_switch","[^}]*"way":"aside"' "$o.trace" 2> /dev/null && echo "$seed" >> "$dir/governor.$$"
        rm -f "$o.off" "$o.auto" "$o.trace" "$o.plain.err" "$o.off.err" "$o.auto.err"
    done
    exit 0
fi

# ---- the test
# The watchdog at its default bound, not tests/lib.sh's longer one: a program's mapped spin waits for it once
# per timeout until its region backs off, and the fuzz is where it meets owners resuming at random moments.
# Segments at their default too, not tests/lib.sh's 1: the stand-in's kernels run on the CPU, so the sync after a
# launch waits and regions are cut for that wait (policy/cuts.c overlap_pays) in many seeds, where segments meet
# everything else (2000 seeds of each fuzzer passed so, session 16).
: "${REPRISE_DEFERRAL_TIMEOUT_US:=2000}" "${REPRISE_MAX_SEGMENTS:=8}"
export REPRISE_DEFERRAL_TIMEOUT_US REPRISE_MAX_SEGMENTS
# The governor (FUZZ_GOVERNOR=N): every auto run switches between the engine and stepping aside every N host syncs
# (REPRISE_GOVERNOR_EPOCH_SYNCS=N, epochs of 0 ms, so no learning time and no back-off), at whatever point each
# program is: the outputs must still be the same.  The engine's coverage checks below do not hold then (the
# calls of the epochs stepped aside pass it by, unseen and uncounted): the governor must instead have stepped
# aside in half the seeds.  Unset (the default), tests/lib.sh keeps the governor off, as in every other test.
if [ -n "${FUZZ_GOVERNOR:-}" ]; then
    REPRISE_GOVERNOR=on REPRISE_GOVERNOR_EPOCH_MS=0 REPRISE_GOVERNOR_EPOCH_SYNCS=$FUZZ_GOVERNOR
    export REPRISE_GOVERNOR REPRISE_GOVERNOR_EPOCH_MS REPRISE_GOVERNOR_EPOCH_SYNCS
fi
. "$top_srcdir/tests/lib.sh"
export top_builddir top_srcdir
prog="$top_builddir/tests/fuzz/random_program"
[ -x "$prog" ] || { echo "no $prog: build it (make check)" >&2; exit 77; }
command -v xargs > /dev/null && command -v awk > /dev/null || { echo "needs xargs and awk" >&2; exit 77; }
seeds=${FUZZ_SEEDS:-1000}
first=${FUZZ_FIRST:-1}
jobs=${FUZZ_JOBS:-2}
last=$((first + seeds - 1))
start=$(date +%s)

run_seed_workers "$0" "random programs" "$first" "$seeds" "$jobs" 20

# ---- results
awk -v seeds="$seeds" '
    { built += $2; replays += $3; not_graphed += $4; periods += $5; evicted += $6
      if ($3 > 0) replayed++
      if ($7 > 0) long++
      if ($8 > 0) disturbed++
      nk = $9 == "-" ? 0 : split($9, kinds, ",")
      for (i = 1; i <= nk; i++) { with[kinds[i]]++; if ($7 > 0) with_long[kinds[i]]++; if ($8 > 0) with_disturbed[kinds[i]]++ }
      timed_out = 0
      for (i = 10; i <= NF; i++) {
          split($i, kv, "="); why[kv[1]] += kv[2]; why_seeds[kv[1]]++; fallbacks += kv[2]
          if (kv[1] == "deferral_timeout") timed_out = 1
      }
      for (i = 1; i <= nk; i++) if (timed_out) with_timeout[kinds[i]]++ }
    END {
        printf "engine (auto): graphs replayed in %d of %d seeds, regions of 8 or more calls in %d, such a replayed region fell back in %d; %d graphs built, %d replays, %d not graphed, %d periods found, %d evicted\n",
            replayed, seeds, long, disturbed, built, replays, not_graphed, periods, evicted
        printf "fallbacks: %d:", fallbacks
        n = 0
        for (k in why) { printf " %s %d (%d seeds)", k, why[k], why_seeds[k]; n++ }
        printf "\n"
        printf "stress kinds (seeds with it / of those, with regions of 8 or more calls replayed / with one of them fallen back; mapped_spin: / with a deferral timeout):"
        rare = ""
        for (k in with) {
            printf " %s %d/%d/%d", k, with[k], with_long[k], with_disturbed[k]
            # A mapped spin on held-back work is a region the watchdog times out and then refuses: its seeds
            # must show the timeout, not replays.
            if (k == "mapped_spin") {
                printf "/%d", with_timeout[k]
                if (with[k] * 100 < seeds * 10 || with_timeout[k] * 2 < with[k]) rare = rare " " k
            } else if (with[k] * 100 < seeds * 15 || with_long[k] * 2 < with[k]) rare = rare " " k
        }
        printf "\n"
        print replayed, n, long, length(with), rare > "'"$WORK/totals"'"
    }' "$WORK/stats"
read -r replayed reasons long nkinds rare < "$WORK/totals"
odd=$(seq "$first" "$last" | awk '$1 % 2 == 1' | wc -l)
robust=$(cat "$WORK"/robust.* 2> /dev/null | wc -l)
trials=$(cat "$WORK"/trial.* 2> /dev/null | wc -l)
echo "robust path (REPRISE_REPLAY=robust): graphs captured in $robust of $odd odd seeds; its trial decided in $trials"
if [ -n "${FUZZ_GOVERNOR:-}" ]; then
    check_governor_fuzz "$seeds"
else
    [ $((robust * 2)) -ge "$odd" ] || fail "the robust path captured graphs in only $robust of $odd odd seeds"
    [ "$seeds" -lt 100 ] || [ "${REPRISE_TRIAL:-4}" -eq 0 ] || [ $((trials * 4)) -ge "$odd" ] ||
        fail "the robust path's trial decided in only $trials of $odd odd seeds"
    [ $((replayed * 2)) -ge "$seeds" ] || fail "graphs were replayed in only $replayed of $seeds seeds"
    [ $((long * 2)) -ge "$seeds" ] || fail "regions of 8 or more calls were replayed in only $long of $seeds seeds"
    # Each stress kind in at least 15% of the seeds, and half of those with regions of 8 or more calls replayed;
    # mapped_spin in 10%, half of them with a deferral timeout.
    [ "$seeds" -lt 200 ] || [ "$nkinds" -ge 6 ] || fail "only $nkinds stress kinds appeared (want 6)"
    [ "$seeds" -lt 200 ] || [ -z "$rare" ] || fail "stress kinds too rare or seldom among replayed regions:$rare"
    [ "$seeds" -lt 100 ] || [ "$reasons" -ge 3 ] || fail "fallbacks of only $reasons reasons (want 3 or more)"

    # ---- the driver door (tests/fuzz/door_checks.sh)
    . "$top_srcdir/tests/fuzz/door_checks.sh"
    check_driver_door
fi

# ---- the doors do the same work: every call through the runtime prints the same
probe=$((seeds < 40 ? seeds : 40))
differ=
for seed in $(seq "$first" $((first + probe - 1))); do
    STANDIN_SEED=$((seed % 7 + 1)) "$prog" --runtime-only "$seed" > "$WORK/runtime" 2>&1
    cmp -s "$WORK/runtime" "$WORK/$seed.plain" || differ="$differ $seed"
done
[ -z "$differ" ] || fail "the runtime door printed other than the seed's doors in seeds$differ (random_program --runtime-only)"

# ---- the comparison can fail: a dropped call changes the output ...
changed=0
for seed in $(seq "$first" $((first + probe - 1))); do
    STANDIN_SEED=$((seed % 7 + 1)) "$prog" --drop "$seed" > "$WORK/drop" 2>&1
    cmp -s "$WORK/drop" "$WORK/$seed.plain" || changed=$((changed + 1))
done
echo "dropping one call changed the output in $changed of $probe seeds"
[ $((changed * 10)) -ge $((probe * 7)) ] || fail "dropping one call changed the output in only $changed of $probe seeds"
# ... and so does a program whose every launch is a programmatic dependent launch: an edge too weak, as a shim
# making programmatic edges where full ones belong would make it (the stand-in may start a dependent before its
# primary, docs/standin.md; the kernels that do not wait for their primary then read stale data).
weak=0
for seed in $(seq "$first" $((first + probe - 1))); do
    STANDIN_SEED=$((seed % 7 + 1)) "$prog" --all-pdl "$seed" > "$WORK/weak" 2>&1
    cmp -s "$WORK/weak" "$WORK/$seed.plain" || weak=$((weak + 1))
done
echo "making every launch a programmatic dependent launch changed the output in $weak of $probe seeds"
[ $((weak * 10)) -ge "$probe" ] || fail "making every launch a programmatic dependent launch changed the output in only $weak of $probe seeds"
# ... and so does reading results without the final sync, for some scheduler seed.
find_racy_seed "$prog" --no-final-sync plain "$first" $((first + probe - 1))
if [ -n "$caught" ]; then
    echo "hashing without the final sync changed the output ($caught)"
else
    fail "hashing without the final sync changed no output in seeds $first..$((first + probe - 1))"
fi

echo "$passed passed, $failed failed ($(($(date +%s) - start)) s)"
finish
