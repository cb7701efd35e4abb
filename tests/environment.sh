#!/bin/sh
# SPDX-License-Identifier: MIT
# REPRISE_* variables read by the preloaded shim: warnings, typos, strict
# mode, the configuration line, the log file and its fallback.
. "${top_srcdir:-.}/tests/lib.sh"
prog="$TESTS_BIN/test_forwarding"

# A bad value and a typo warn once each, and the program runs normally.
with_shim REPRISE_MODE=fast REPRISE_MOED=off "$TESTS_BIN/test_threads" > "$WORK/out" 2> "$WORK/err" || fail "bad values stopped the program"
expect_in "$WORK/err" "warning: REPRISE_MODE=fast is not valid (expected off, observe or auto); using default auto"
expect_in "$WORK/err" "warning: REPRISE_MOED is not a known option (did you mean REPRISE_MODE?); ignored"
expect_count "$WORK/err" "warning:" 2

# The default: no output at all from the shim.
with_shim "$TESTS_BIN/test_threads" > "$WORK/out" 2> "$WORK/err" || fail "default run failed"
[ ! -s "$WORK/err" ] || { fail "the shim wrote to stderr by default"; cat "$WORK/err" >&2; }

# REPRISE_STRICT: the same mistakes abort the program, with an error that says why.
status=0
with_shim REPRISE_STRICT=1 REPRISE_MOED=off "$prog" > "$WORK/out" 2> "$WORK/err" || status=$?
[ "$status" -eq 134 ] || fail "REPRISE_STRICT=1 with a typo exited $status, expected 134 (SIGABRT)"
# Each problem says the program aborts, not that it is ignored or its default used (REPRISE_STRICT first or last).
expect_in "$WORK/err" "error: REPRISE_MOED is not a known option (did you mean REPRISE_MODE?); aborting, as REPRISE_STRICT is on"
expect_in "$WORK/err" "error: REPRISE_STRICT is on and 1 REPRISE_* variable is invalid: aborting"
[ ! -s "$WORK/out" ] || fail "the program ran although REPRISE_STRICT aborted it"
status=0
env REPRISE_MODE=fast LD_PRELOAD="$PRELOAD" REPRISE_STRICT=yes "$prog" > "$WORK/out" 2> "$WORK/err" || status=$?
[ "$status" -eq 134 ] || fail "REPRISE_STRICT=yes with a bad value exited $status, expected 134 (SIGABRT)"
expect_in "$WORK/err" "error: REPRISE_MODE=fast is not valid (expected off, observe or auto); aborting, as REPRISE_STRICT is on"
expect_not_in "$WORK/err" "using default"

# White space around a number is refused (it was taken: " 5" read as 5), quoted so that it shows; the default kept.
with_shim REPRISE_MODE=observe REPRISE_LOG=info REPRISE_MAX_GRAPHS=" 5" "$prog" > "$WORK/out" 2> "$WORK/err" || fail "a spaced value stopped the program"
expect_in "$WORK/err" 'warning: REPRISE_MAX_GRAPHS=" 5" is not valid (expected an integer from 1 to 4096, without spaces around it); using default 32'
expect_in "$WORK/err" " max_graphs=32 "

# A choice in any case is taken, and the configuration shows it as documented (REPRISE_MODE=AUTO: mode=auto).
with_shim REPRISE_LOG=INFO REPRISE_MODE=Observe "$prog" > "$WORK/out" 2> "$WORK/err" || fail "REPRISE_MODE=Observe run failed"
expect_in "$WORK/err" ": config mode=observe "
expect_in "$WORK/err" " log=info "
expect_not_in "$WORK/err" "warning:"
with_shim REPRISE_MODE=AUTO REPRISE_TRACE="$WORK/case.trace" "$TESTS_BIN/test_threads" > "$WORK/out" 2> "$WORK/err" || fail "REPRISE_MODE=AUTO run failed"
expect_in "$WORK/case.trace" '"REPRISE_MODE":"auto"'

# REPRISE_LOG=info prints the effective configuration once, with pid and thread number.
with_shim REPRISE_LOG=info REPRISE_MODE=observe REPRISE_DEFERRAL_TIMEOUT_US=2000 REPRISE_MAX_SEGMENTS=8 "$prog" > "$WORK/out" 2> "$WORK/err" || fail "info run failed"
expect_count "$WORK/err" ": config mode=observe min_repeats=2 recordings=2 min_region_calls=4 max_region_calls=8192 max_batch_calls=1024 max_segments=8 max_graphs=32 graph_instances=4 exclude_kernels=none exclude_streams=none replay=auto trial=4 governor=off governor_epoch_ms=100 governor_epoch_syncs=30 deferral_timeout_us=2000 profiler=step_aside log=info log_file=stderr trace=none stats=off crash_report=on strict=off" 1
grep -qE '^reprise\[[0-9]+:[0-9]+\] info: reprise [0-9.]+ in test_forwarding: config ' "$WORK/err" ||
    fail "config line not in the expected format"

# observe prints its summary at exit, with a verdict.
expect_in "$WORK/err" "info: exit: "
expect_in "$WORK/err" "info: verdict: "

# REPRISE_LOG_FILE with %p writes there and not to stderr.
with_shim REPRISE_MODE=observe REPRISE_LOG=info REPRISE_LOG_FILE="$WORK/log-%p.txt" "$prog" > "$WORK/out" 2> "$WORK/err" || fail "log file run failed"
[ ! -s "$WORK/err" ] || fail "the shim wrote to stderr although a log file was given"
set -- "$WORK"/log-*.txt
[ -f "$1" ] || fail "no log file was written"
[ -f "$1" ] && expect_in "$1" "info: reprise "

# An unwritable log file falls back to stderr with a warning.
with_shim REPRISE_MODE=observe REPRISE_LOG=info REPRISE_LOG_FILE=/nonexistent-dir/r.log "$prog" > "$WORK/out" 2> "$WORK/err" || fail "fallback run failed"
expect_in "$WORK/err" "warning: cannot open log file /nonexistent-dir/r.log: No such file or directory; logging to stderr"
expect_in "$WORK/err" "info: reprise "

# REPRISE_STATS=on in off mode says nothing was counted.
with_shim REPRISE_STATS=on REPRISE_MODE=off "$prog" > "$WORK/out" 2> "$WORK/err" || fail "stats run failed"
expect_in "$WORK/err" "info: exit: mode off: nothing was counted"
finish
