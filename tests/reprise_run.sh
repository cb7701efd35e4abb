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
got=$(LD_PRELOAD="$other" "$REPRISE" run -- sh -c 'echo "$LD_PRELOAD"')
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
# A choice in any case, as the shim takes it, set as the choice is spelt.
got=$(reprise_run --mode OBSERVE --log Info -- sh -c 'echo "$REPRISE_MODE $REPRISE_LOG"')
[ "$got" = "observe info" ] || fail "--mode OBSERVE --log Info set '$got'"

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
# An option's value is never '--' nor another option: `--trace -- prog` wrote the trace to ./--.PID and ran prog.
(cd "$WORK" && exec "$REPRISE" run --trace -- sh -c ': > ran') > "$WORK/bad.out" 2> "$WORK/bad.err"; rc=$?
[ "$rc" -eq 2 ] || fail "reprise run --trace -- PROGRAM: exit status $rc, expected 2"
[ ! -e "$WORK/ran" ] || fail "reprise run --trace -- PROGRAM ran PROGRAM"
ls "$WORK" | grep -q '^--' && fail "reprise run --trace -- PROGRAM wrote a trace named --: $(ls "$WORK")"
expect_in "$WORK/bad.err" "option --trace needs a value, and '--' (the end of the options) is not one"
expect_error 2 run --log-file --stats -- true
expect_in "$WORK/bad.err" "'--stats' is an option"
expect_error 2 report --chrome-trace -- "$WORK/none.trace"
expect_error 2 report --launch-us
got=$(cd "$WORK" && reprise_run --trace=--odd -- sh -c 'echo "$REPRISE_TRACE"')
[ "$got" = "--odd.%p" ] || fail "--trace=--odd set REPRISE_TRACE='$got'"
expect_error 2 run --library "$WORK/none.so" -- true
expect_error 127 run -- "$WORK/no-such-program"
# --library that the loader cannot preload is refused before anything runs (ld.so would only warn, and the
# program run without the shim): a text file, a program, an object file, a library of another machine.
echo 'not a library' > "$WORK/text.so"
expect_error 2 run --library "$WORK/text.so" -- sh -c ': > "$1"/ran' sh "$WORK"
expect_in "$WORK/bad.err" "--library: $WORK/text.so is not a shared library (not an ELF file)"
[ ! -e "$WORK/ran" ] || fail "reprise run --library TEXT ran the program"
expect_error 2 run --library "$(command -v sh)" -- true
expect_in "$WORK/bad.err" "is not a shared library (a"
object=$(find "$top_builddir/shim" -name 'init.o' | head -1)
if [ -n "$object" ]; then
    expect_error 2 run --library "$object" -- true
    expect_in "$WORK/bad.err" "is not a shared library (an ELF object file)"
fi
cp "$SHIM_ABS" "$WORK/other-machine.so"
# Its e_machine (bytes 18-19) made AArch64's (183), or x86-64's (62) on an AArch64 host.
case $(uname -m) in
aarch64) machine='\076' other=x86-64 ;;
*) machine='\267' other=AArch64 ;;
esac
printf "$machine\\000" | dd of="$WORK/other-machine.so" bs=1 seek=18 conv=notrunc 2> /dev/null
expect_error 2 run --library "$WORK/other-machine.so" -- true
expect_in "$WORK/bad.err" "is built for another machine ($other, 64-bit) than this one"
# A program that exists but whose interpreter does not: the interpreter is named, not the program said missing.
script=reprise-test-script
printf '#!%s -e\necho hi\n' "$WORK/no-such-shell" > "$WORK/$script"; chmod +x "$WORK/$script"
expect_error 127 run -- "$WORK/$script"
expect_in "$WORK/bad.err" "cannot run $WORK/$script: its interpreter $WORK/no-such-shell (named on its #! line) does not exist"
(PATH="$WORK:$PATH" exec "$REPRISE" run -- "$script") 2> "$WORK/bad.err" < /dev/null
expect_in "$WORK/bad.err" "cannot run $script: its interpreter $WORK/no-such-shell"
if echo 'int main(void) { return 0; }' > "$WORK/loader.c" &&
    ${CC:-cc} -o "$WORK/loader" "$WORK/loader.c" -Wl,--dynamic-linker=/no/such/ld.so 2> /dev/null; then
    expect_error 127 run -- "$WORK/loader"
    expect_in "$WORK/bad.err" "the dynamic loader it was linked for, /no/such/ld.so, does not exist here"
fi

"$REPRISE" --help > "$WORK/help" || fail "reprise --help failed"
expect_in "$WORK/help" "reprise run"
expect_in "$WORK/help" "reprise check"
expect_in "$WORK/help" "reprise report"
finish
