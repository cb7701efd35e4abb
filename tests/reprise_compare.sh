#!/bin/sh
# SPDX-License-Identifier: MIT
# `reprise compare`: rounds of runs without the shim and under it, interleaved; the table, whether
# stdout and exit status stayed those of the first run without the shim, the shim's exit summary.
. "${top_srcdir:-.}/tests/lib.sh"
[ -x "$REPRISE" ] || { echo "no $REPRISE: build first" >&2; exit 99; }

# Runs `reprise compare ARGS...` (in a sanitizer build with its runtime in LD_PRELOAD, as reprise_run does).
reprise_compare() {
    env LD_PRELOAD="${LD_PRELOAD:-}${SANITIZER_PRELOAD:+${LD_PRELOAD:+:}$SANITIZER_PRELOAD}" "$REPRISE" compare "$@"
}
# Prints "shim" when the shim is preloaded, else "none" (a program whose output the shim changes).
WHICH='case "$LD_PRELOAD" in *libreprise*) echo shim ;; *) echo none ;; esac'

# A program the shim graphs (every graph kept: REPRISE_TRIAL=0): the same output, its region replayed.
REPRISE_MIN_REGION_CALLS=1 REPRISE_TRIAL=0 reprise_compare --rounds 3 --json "$WORK/loop.json" -- \
    "$TESTS_BIN/scenarios/launch_loop" > "$WORK/loop" 2> "$WORK/loop.err"
rc=$?
[ "$rc" -eq 0 ] || { fail "compare of launch_loop exited $rc, expected 0"; cat "$WORK/loop" "$WORK/loop.err" >&2; }
# The table: its header, one row per round (none first in odd rounds, auto in even ones), the medians.
grep -q '^round  *first  *none_s  *auto_s  *speedup  *exit_none  *exit_auto  *stdout_none  *stdout_auto  *replayed  *fallbacks$' \
    "$WORK/loop" || fail "compare's table has no header row: $(head -4 "$WORK/loop")"
rows=$(awk '$1 ~ /^[0-9]+$/ { printf "%s %s %s %s %s %s %s|", $1, $2, $6, $7, $8, $9, $10 }' "$WORK/loop")
[ "$rows" = "1 none 0 0 reference same 1/1|2 auto 0 0 same same 1/1|3 none 0 0 same same 1/1|" ] ||
    fail "compare's rows (round, first, exits, stdouts, regions replayed) are '$rows'"
awk '$1 ~ /^[0-9]+$/ && !($3 > 0 && $4 > 0 && $5 > 0) { bad = 1 } END { exit bad }' "$WORK/loop" ||
    fail "a row's times or speedup are not positive numbers"
grep -q '^median  *[0-9.][0-9.]*  *[0-9.][0-9.]*  *[0-9.][0-9.]*$' "$WORK/loop" || fail "compare printed no median row"
expect_in "$WORK/loop" "identical: yes"
expect_in "$WORK/loop" "exit status: 0 in every run"
expect_in "$WORK/loop" "shim (auto): regions replayed in 3 of 3 runs; a run (medians): 1 regions graphed, 1 replayed"
expect_in "$WORK/loop" "stepped aside: no"
expect_in "$WORK/loop" "result: same stdout and exit status in every run"
expect_in "$WORK/loop.json" '"identical":true'
expect_in "$WORK/loop.json" '"replaying":3'
expect_count "$WORK/loop.json" '"variant":"auto"' 3

# The rest runs shell programs under the shim.  In a ThreadSanitizer build the shim needs TSan's runtime preloaded,
# and an uninstrumented sh with libtsan in LD_PRELOAD is killed by SIGSEGV as it starts (Debian 12, GCC 12's
# libtsan.so.2), with or without the shim: that build checks compare on launch_loop above, the plain and ASan builds
# check the rest.
case "${SANITIZER_PRELOAD:-}" in
*libtsan*)
    echo "reprise_compare: a TSan build: the shell programs' cases left to the other builds"
    finish
    ;;
esac

# Output the shim changes: not identical, every round's auto run differs, exit 1.
reprise_compare --rounds 2 -- sh -c "$WHICH" > "$WORK/differs" 2> "$WORK/differs.err"
rc=$?
[ "$rc" -eq 1 ] || fail "compare of a program printing whether the shim is preloaded exited $rc, expected 1"
rows=$(awk '$1 ~ /^[0-9]+$/ { printf "%s %s|", $8, $9 }' "$WORK/differs")
[ "$rows" = "reference differs|same differs|" ] || fail "stdout columns are '$rows'"
expect_in "$WORK/differs" "identical: no: round 1's run under auto printed other than round 1's run without the shim; first at the reference's line 1, \"none\", against its line 1, \"shim\""
expect_in "$WORK/differs" "result: differs: stdout"
# --ignore-lines leaves such lines out of the compare (several: any of them).
reprise_compare --rounds 1 --ignore-lines '^x$' --ignore-lines '^(none|shim)$' -- sh -c "$WHICH" > "$WORK/ignored" 2>&1 ||
    fail "compare --ignore-lines of the lines that differ exited $?, expected 0"
expect_in "$WORK/ignored" "identical: yes (every run's stdout is round 1's without the shim, the lines --ignore-lines matches left out)"

# The order alternates (none first in round 1), after the warm-ups without the shim.
reprise_compare --rounds 3 --warmup 1 -- sh -c "{ $WHICH; } >> '$WORK/order'" > "$WORK/alternate" 2>&1 ||
    fail "compare of a program printing nothing exited $?"
[ "$(tr '\n' ' ' < "$WORK/order")" = "none none shim shim none none shim " ] ||
    fail "runs in the order $(tr '\n' ' ' < "$WORK/order"), expected a warm-up, then none shim, shim none, none shim"

# What the shim did, read back from each process's log (REPRISE_LOG_FILE): lines in the shim's words, written by
# the program into its own log (a shell makes no CUDA call): its decisions, auto stepping aside, and with --stats
# the exit summary, whose fallbacks then count instead of the decisions'.
cat > "$WORK/summary.sh" <<'SH'
case "$LD_PRELOAD" in *libreprise*) ;; *) exit 0 ;; esac
[ "$REPRISE_LOG" = info ] || exit 9
log=$(echo "$REPRISE_LOG_FILE" | sed "s/%p/$$/")
{
    echo "reprise[$$:1] info: region 3: graph built (4 nodes on 1 stream); replaying from its next occurrence"
    echo "reprise[$$:1] info: region 3: its graph does not pay (fast path: 9.0 us an occurrence against 8.0 us passed through): passing through until it is stable again (2 sightings), then trying again"
    echo "reprise[$$:1] info: region 3: fell back after 2 of 4 calls (mismatch: its kernel differs); passing through until it is stable again (2 sightings)"
    echo "reprise[$$:2] info: region 5: graph captured on the robust path (6 calls re-captured each time, applied with cuGraphExecUpdate)"
    echo "reprise[$$:2] info: region 5: replayed on the robust path (instantiated)"
    echo "reprise[$$:1] warning: auto stepped aside after 3 s: graphs cost 12% here"
} >> "$log"
[ "${REPRISE_STATS:-0}" = 1 ] || exit 0
{
    echo "reprise[$$:1] info: exit: 12 calls intercepted, 1 streams carried work"
    echo "reprise[$$:1] info: region 3 (thread 1, 4 calls): 10 occurrences, 0 replays (0 re-captured), 0 calls not submitted one by one, 0 nodes patched, fallbacks: not_paying 2, mismatch 1"
    echo "reprise[$$:2] info: region 5 (thread 2, 6 calls): 9 occurrences, 7 replays (7 re-captured), 42 calls not submitted one by one, 0 nodes patched, fallbacks: none"
} >> "$log"
SH
reprise_compare --rounds 1 -- sh "$WORK/summary.sh" > "$WORK/summary" 2>&1 || fail "compare of summary.sh exited $?"
rows=$(awk '$1 ~ /^[0-9]+$/ { printf "%s %s %s|", $7, $10, $11 }' "$WORK/summary")
[ "$rows" = "0 1/2 2|" ] || fail "summary.sh's row (exit, regions replayed, fallbacks) is '$rows'"
expect_in "$WORK/summary" "a run (medians): 2 regions graphed, 1 replayed"
expect_not_in "$WORK/summary" "replays"
expect_in "$WORK/summary" "fell back: not_paying 1, mismatch 1 (summed over 1 run; the log's lines"
expect_in "$WORK/summary" "stepped aside: in 1 of 1 runs (round 1: auto stepped aside after 3 s: graphs cost 12% here)"
expect_in "$WORK/summary" "1 warnings and 0 errors in its logs"
reprise_compare --rounds 1 --stats -- sh "$WORK/summary.sh" > "$WORK/stats" 2>&1 || fail "compare --stats exited $?"
expect_in "$WORK/stats" "a run (medians): 2 regions graphed, 1 replayed, 7 replays, 42 calls not submitted one by one"
expect_in "$WORK/stats" "fell back: not_paying 2, mismatch 1 (summed over 1 run)"

# Another exit status under the shim, a run killed at --timeout, a program failing without the shim: exit 1.
reprise_compare --rounds 1 -- sh -c "[ \$($WHICH) = none ]" > "$WORK/status" 2>&1
[ $? -eq 1 ] || fail "compare of a program exiting 1 under the shim did not exit 1"
expect_in "$WORK/status" "exit status: differs: round 1's run under auto exited 1, round 1's without the shim 0"
# (2 s: the run without the shim must end before it, however loaded the machine.)
reprise_compare --rounds 1 --timeout 2 -- sh -c "[ \$($WHICH) = none ] || exec sleep 30" > "$WORK/timeout" 2>&1
[ $? -eq 1 ] || fail "compare of a program that hangs under the shim did not exit 1"
expect_in "$WORK/timeout" "round 1's run under auto was killed after --timeout 2 s"
reprise_compare --rounds 3 -- sh -c 'echo why >&2; exit 4' > "$WORK/fails" 2> "$WORK/fails.err"
[ $? -eq 1 ] || fail "compare of a program failing without the shim did not exit 1"
expect_in "$WORK/fails" "the program fails without the shim: it exited 4"
expect_in "$WORK/fails.err" "| why"

# Bad usage: one line, exit 2.
expect_error 2 compare
expect_error 2 compare --rounds 0 -- true
expect_error 2 compare --rounds x -- true
expect_error 2 compare --mode fast -- true
expect_error 2 compare --timeout 0 -- true
expect_error 2 compare --ignore-lines '(' -- true
expect_error 2 compare --frobnicate -- true
expect_error 2 compare -- "$WORK/no-such-program"
expect_in "$WORK/bad.err" "cannot run $WORK/no-such-program"
finish
