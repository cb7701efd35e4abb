#!/bin/sh
# SPDX-License-Identifier: MIT
# The log and trace files (REPRISE_LOG_FILE, REPRISE_TRACE): appended to (the processes of a job may share one),
# created with mode 0644, and never written through a symbolic link: a link is refused with a warning, and the log
# falls back to stderr and the trace is not written, as for an unwritable path.
. "${top_srcdir:-.}/tests/lib.sh"
prog="$TESTS_BIN/test_threads"

# Appended: two runs, one file, both configurations in it.
for run in 1 2; do
    with_shim REPRISE_LOG=info REPRISE_LOG_FILE="$WORK/shared.log" REPRISE_TRACE="$WORK/shared.trace" "$prog" \
        > /dev/null 2> "$WORK/err" || fail "run $run with a shared log and trace exited $?"
done
expect_count "$WORK/shared.log" ": config mode=" 2
expect_count "$WORK/shared.trace" '"ev":"config"' 2
# Created with mode 0644 (umask 000 removes nothing from it).
(umask 000 && with_shim REPRISE_LOG=info REPRISE_LOG_FILE="$WORK/mode.log" "$prog" > /dev/null 2>&1)
mode=$(stat -c %a "$WORK/mode.log" 2> /dev/null)
[ "$mode" = 644 ] || fail "the log file was created with mode $mode, expected 644"

# A link to a file: the file is left alone, the log goes to stderr and the trace is not written, each with a warning.
echo precious > "$WORK/target"
ln -s "$WORK/target" "$WORK/link.log"
ln -s "$WORK/target" "$WORK/link.trace"
with_shim REPRISE_LOG=info REPRISE_LOG_FILE="$WORK/link.log" REPRISE_TRACE="$WORK/link.trace" "$prog" \
    > /dev/null 2> "$WORK/err" || fail "the run with links exited $?"
[ "$(cat "$WORK/target")" = precious ] || fail "the log or trace was written through a link: $(head -3 "$WORK/target")"
expect_in "$WORK/err" "warning: $WORK/link.log is a symbolic link (to $WORK/target): reprise does not write through one"
expect_in "$WORK/err" "warning: cannot open log file $WORK/link.log: "
expect_in "$WORK/err" "; logging to stderr"
expect_in "$WORK/err" "info: reprise "
expect_in "$WORK/err" "warning: $WORK/link.trace is a symbolic link (to $WORK/target): reprise does not write through one"
expect_in "$WORK/err" "warning: cannot open trace file $WORK/link.trace: "
# A dangling link: its target is not created.
ln -s "$WORK/nowhere.log" "$WORK/dangling.log"
with_shim REPRISE_LOG=info REPRISE_LOG_FILE="$WORK/dangling.log" "$prog" > /dev/null 2> "$WORK/err" ||
    fail "the run with a dangling link exited $?"
[ ! -e "$WORK/nowhere.log" ] || fail "a dangling link's target was created"
expect_in "$WORK/err" "is a symbolic link (to $WORK/nowhere.log)"
expect_in "$WORK/err" "; logging to stderr"
# The process's own streams are links by nature, and written: /dev/stderr.
with_shim REPRISE_LOG=info REPRISE_LOG_FILE=/dev/stderr "$prog" > /dev/null 2> "$WORK/err" || fail "the run with /dev/stderr exited $?"
expect_in "$WORK/err" "info: reprise "
expect_not_in "$WORK/err" "symbolic link"
# A directory that is a link is followed (only the file's own name must not be one).
mkdir "$WORK/real-dir" && ln -s "$WORK/real-dir" "$WORK/dir-link"
with_shim REPRISE_LOG=info REPRISE_LOG_FILE="$WORK/dir-link/x.log" "$prog" > /dev/null 2> "$WORK/err" ||
    fail "the run with a linked directory exited $?"
[ -s "$WORK/real-dir/x.log" ] || fail "no log through a linked directory: $(cat "$WORK/err")"
finish
