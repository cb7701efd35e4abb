#!/bin/sh
# SPDX-License-Identifier: MIT
# A crash report a user can send (issue 40, section 2): crash_held faults (a NULL write, abort(), a stack
# overflow) while its replayed region's calls are held back.  The log gets the report (the signal, the
# version, the mode, the region, the calls held back, the last call, the stack, whose first frame addr2line
# names), and then the signal goes on: to the program's own handler, installed after the shim's constructor
# (as Python's faulthandler is) or before it, which still runs, or to its default action; either way the
# process dies of the same signal (exit status 128+sig).  Off mode, REPRISE_CRASH_REPORT=off and a run without
# a crash print nothing more.
. "${top_srcdir:-.}/tests/lib.sh"
PROG="$top_builddir/tests/scenarios/crash_held"
LIMIT=
command -v timeout > /dev/null 2>&1 && LIMIT="timeout 60"
version=$(sed -n 's/^AC_INIT(\[reprise\], *\[\([^]]*\)\].*/\1/p' "$top_srcdir/configure.ac")
ulimit -c 0 2> /dev/null # no core files from the crashes on purpose
# A sanitizer's own handlers of these signals would report each crash as a finding: the program's crashes here
# are meant.  The shim then chains to the default action, as in a plain build.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0:handle_abort=0:detect_stack_use_after_return=0"
TSAN_OPTIONS="${TSAN_OPTIONS:+$TSAN_OPTIONS:}handle_segv=0:handle_abort=0"
export ASAN_OPTIONS TSAN_OPTIONS

# Runs crash_held under the shim as run $1 (files $WORK/$1.out and .err) with the VAR=value arguments after it;
# fails unless it exits with status $2.
run_crash() {
    name=$1 want=$2
    shift 2
    status=0
    env REPRISE_TRIAL=0 "$@" $LIMIT env LD_PRELOAD="$PRELOAD" "$PROG" > "$WORK/$name.out" 2> "$WORK/$name.err" ||
        status=$?
    [ "$status" -eq "$want" ] || { fail "$name: exit status $status, expected $want"; sed 's/^/  | /' "$WORK/$name.err" | head -20 >&2; }
}

# Checks run $1's report of signal $2: the version, the mode, the region replayed with calls held back, the
# last call, a stack whose first frames are placed in their modules, the end.
expect_report() {
    err="$WORK/$1.err"
    expect_in "$err" "error: crash: $2 "
    expect_in "$err" "of crash_held; reprise $version, REPRISE_MODE=auto;"
    expect_in "$err" "is replaying region "
    held=$(sed -n 's/.*crash: .*, with \([0-9]*\) calls held back.*/\1/p' "$err")
    [ "${held:-0}" -gt 0 ] || fail "$1: the report holds no count of calls held back above 0 (${held:-none})"
    expect_in "$err" "; last call cudaLaunchKernel;"
    expect_in "$err" "no graph launch or patch in flight"
    expect_in "$err" "error: crash: stack, innermost frame first"
    expect_in "$err" "error: crash:   #0 0x"
    expect_in "$err" "error: crash: end of the crash report"
}

# Without a handler of the program's: the report, then the default action.
run_crash segv 139
expect_report segv SIGSEGV
expect_in "$WORK/segv.err" "crash: SIGSEGV at address 0x0 in thread 1 "
expect_in "$WORK/segv.err" "after this report the signal takes its default action"
expect_in "$WORK/segv.out" "the program's SIGSEGV handler: none"
# The first frame is the program's faulting instruction, as MODULE+0xOFFSET, which addr2line names.
frame=$(sed -n 's/.*crash:   #0 0x[0-9a-f]* \([^ ]*crash_held\)+\(0x[0-9a-f]*\).*/\2/p' "$WORK/segv.err")
if [ -z "$frame" ]; then
    fail "segv: frame #0 is not placed in crash_held: $(grep 'crash:   #0' "$WORK/segv.err")"
elif command -v addr2line > /dev/null 2>&1; then
    addr2line -f -e "$PROG" "$frame" > "$WORK/frame"
    grep -qx 'null_write' "$WORK/frame" || fail "segv: addr2line names frame #0 ($frame) $(head -1 "$WORK/frame"), not null_write"
fi

# The program's own handler, installed after the shim's constructor, and before it: it still runs, after the
# report, sees its own handler when it asks, and the process still dies of the signal.
for when in after before; do
    run_crash "handler_$when" 139 CRASH_HANDLER=$when
    expect_report "handler_$when" SIGSEGV
    expect_in "$WORK/handler_$when.err" "after this report the signal goes on to the program's own handler"
    expect_in "$WORK/handler_$when.err" "crash_held: the program's own handler got the signal"
    expect_in "$WORK/handler_$when.out" "the program's SIGSEGV handler: its own"
    report=$(grep -n "end of the crash report" "$WORK/handler_$when.err" | cut -d: -f1)
    own=$(grep -n "the program's own handler got" "$WORK/handler_$when.err" | cut -d: -f1)
    [ "${report:-0}" -gt 0 ] && [ "${own:-0}" -gt "${report:-0}" ] ||
        fail "handler_$when: the program's handler did not run after the report (lines ${own:-none} and ${report:-none})"
done

# abort(): SIGABRT, to the program's handler; a stack overflow, reported from the alternate signal stack.
run_crash abort 134 CRASH_HOW=abort CRASH_HANDLER=after
expect_report abort SIGABRT
expect_in "$WORK/abort.err" "crash: SIGABRT raised by the process itself"
expect_in "$WORK/abort.err" "crash_held: the program's own handler got the signal"
run_crash overflow 139 CRASH_HOW=overflow
expect_report overflow SIGSEGV
expect_in "$WORK/overflow.err" "crash:   ... the same frame "

# Python's faulthandler, installed after the shim's constructor, still prints its traceback after the report
# (not in a sanitizer build: Python is not built with the sanitizer).
if [ -z "${SANITIZER_PRELOAD:-}" ] && command -v python3 > /dev/null 2>&1 && python3 -c 'import ctypes, faulthandler' 2> /dev/null; then
    status=0
    $LIMIT env LD_PRELOAD="$PRELOAD" python3 -X faulthandler -c 'import ctypes; ctypes.string_at(0)' > "$WORK/python.err" 2>&1 ||
        status=$?
    [ "$status" -eq 139 ] || fail "python3: exit status $status, expected 139"
    expect_in "$WORK/python.err" "error: crash: SIGSEGV at address 0x0 in thread 1 "
    expect_in "$WORK/python.err" "after this report the signal goes on to the program's own handler"
    expect_in "$WORK/python.err" "Fatal Python error: Segmentation fault"
else
    echo "no python3 with ctypes and faulthandler here (or a sanitizer build): its faulthandler is not tried"
fi

# Nothing more: off mode and REPRISE_CRASH_REPORT=off leave the signals alone, and without a crash the report's
# handler says nothing (stdout as without the shim, nothing on stderr).
run_crash off 139 REPRISE_MODE=off
expect_not_in "$WORK/off.err" "reprise["
run_crash off_handler 139 REPRISE_MODE=off CRASH_HANDLER=after
expect_not_in "$WORK/off_handler.err" "reprise["
expect_in "$WORK/off_handler.err" "crash_held: the program's own handler got the signal"
run_crash report_off 139 REPRISE_CRASH_REPORT=off
expect_not_in "$WORK/report_off.err" "crash:"
run_crash none 0 CRASH_HOW=none
[ -s "$WORK/none.err" ] && { fail "a run without a crash wrote to stderr"; sed 's/^/  | /' "$WORK/none.err" >&2; }
CRASH_HOW=none $LIMIT "$PROG" > "$WORK/plain.out" 2>&1 || fail "crash_held without the shim and a crash exited $?"
cmp -s "$WORK/plain.out" "$WORK/none.out" || fail "crash_held without a crash printed something else under the shim"
finish
