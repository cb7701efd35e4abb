#!/bin/sh
# SPDX-License-Identifier: MIT
# `reprise run`: the shim preloaded (prepended to LD_PRELOAD), options set as
# REPRISE_* variables, and the program's status, signals and streams passed through.
. "${top_srcdir:-.}/tests/lib.sh"
[ -x "$REPRISE" ] || { echo "no $REPRISE: build first" >&2; exit 99; }
SHIM_ABS=$(cd "$top_builddir/.libs" && pwd)/libreprise.so

# Exit status, signals (128+N, as a shell reports them), standard streams.
reprise_run -- sh -c 'exit 7'; rc=$?
[ "$rc" -eq 7 ] || fail "exit status 7 came back as $rc"
reprise_run -- sh -c 'kill -TERM $$'; rc=$?
[ "$rc" -eq 143 ] || fail "SIGTERM came back as $rc, expected 143"
out=$(echo hello | reprise_run -- sh -c 'cat; echo to-stderr >&2' 2> "$WORK/stderr")
[ "$out" = hello ] || fail "stdin/stdout did not pass through: '$out'"
expect_in "$WORK/stderr" to-stderr
reprise_run -- sh -c 'exit 0' < /dev/null || fail "a program without options did not run"

# LD_PRELOAD: the shim first, what was there kept (in a sanitizer build, the runtime reprise_run adds).
other="$top_builddir/tests/.libs/libcudart_recorder.so${SANITIZER_PRELOAD:+:$SANITIZER_PRELOAD}"
got=$(env LD_PRELOAD="$other" "$REPRISE" run -- sh -c 'echo "$LD_PRELOAD"')
case "$got" in
*/.libs/libreprise.so:"$other") ;;
*) fail "LD_PRELOAD is '$got', expected the shim prepended to $other" ;;
esac
got=$(unset LD_PRELOAD; reprise_run --library "$SHIM_ABS" -- sh -c 'echo "$LD_PRELOAD"')
[ "$got" = "$SHIM_ABS${SANITIZER_PRELOAD:+:$SANITIZER_PRELOAD}" ] || fail "--library: LD_PRELOAD is '$got'"

# Options become REPRISE_* variables.
got=$(reprise_run --mode observe --log info --log-file "$WORK/l" --trace "$WORK/t" --stats -- \
    sh -c 'echo "$REPRISE_MODE $REPRISE_LOG $REPRISE_LOG_FILE $REPRISE_TRACE $REPRISE_STATS"')
[ "$got" = "observe info $WORK/l.%p $WORK/t.%p 1" ] || fail "options set as '$got'"
got=$(reprise_run --mode=off -- sh -c 'echo "$REPRISE_MODE"')
[ "$got" = off ] || fail "--mode=off set REPRISE_MODE='$got'"

# The shim really is loaded: a trace with an exit event (observe mode), and region events (auto mode).
reprise_run --mode observe --trace "$WORK/threads.%p.trace" -- "$TESTS_BIN/test_threads" > /dev/null 2> "$WORK/threads.log" ||
    fail "test_threads under reprise run exited $?"
mv "$WORK"/threads.[0-9]*.trace "$WORK/threads.trace"
expect_in "$WORK/threads.trace" '"ev":"exit"'
expect_in "$WORK/threads.trace" '"mode":"observe"'
# (--trace and --log-file without %p get .%p: one file per process.)
REPRISE_MIN_REGION_CALLS=1 reprise_run --trace "$WORK/loop.trace" --log-file "$WORK/loop.log" --log info -- \
    "$TESTS_BIN/scenarios/launch_loop" > "$WORK/loop.out" || fail "launch_loop under reprise run exited $?"
# reprise report given the name reprise run was given finds the per-process file and says so.
"$REPRISE" report "$WORK/loop.trace" > "$WORK/loop.report" 2> "$WORK/loop.report.err" ||
    fail "reprise report of the name given to reprise run --trace exited $?"
expect_in "$WORK/loop.report.err" "does not exist; reading the 1 per-process file"
awk '$6 > 0 && $1 ~ /^[0-9]+$/ { found = 1 } END { exit !found }' "$WORK/loop.report" ||
    fail "reprise report of the name given to reprise run --trace shows no region with replays"
mv "$WORK"/loop.[0-9]*.trace "$WORK/loop.trace"
mv "$WORK"/loop.[0-9]*.log "$WORK/loop.log"
expect_in "$WORK/loop.trace" '"ev":"graph_built"'
expect_in "$WORK/loop.log" 'replayed as a graph'
cmp -s "$top_srcdir/tests/standin/expected/launch_loop.out" "$WORK/loop.out" || fail "launch_loop's output changed under reprise run"

# Bad input: one line, "reprise: error: ...", non-zero status.
expect_error 2
expect_error 2 frobnicate
expect_error 2 run
expect_error 2 run --bogus -- true
expect_error 2 run --mode fast -- true
expect_error 2 run --trace
expect_error 2 run --library "$WORK/none.so" -- true
expect_error 127 run -- "$WORK/no-such-program"

"$REPRISE" --help > "$WORK/help" || fail "reprise --help failed"
expect_in "$WORK/help" "reprise run"
expect_in "$WORK/help" "reprise check"
expect_in "$WORK/help" "reprise report"
finish
