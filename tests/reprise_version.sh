#!/bin/sh
# SPDX-License-Identifier: MIT
# One version everywhere: `reprise --version` prints "reprise VERSION" (exit 0, nothing on stderr), the shim
# writes VERSION in its trace's config event, VERSION being what configure.ac's AC_INIT gives, and NEWS has
# that release's heading (README.md, "Versions": a release bumps AC_INIT and names its NEWS section).
. "${top_srcdir:-.}/tests/lib.sh"
version=$(sed -n 's/^AC_INIT(\[reprise\], *\[\([^]]*\)\].*/\1/p' "$top_srcdir/configure.ac")
[ -n "$version" ] || { fail "configure.ac: no AC_INIT([reprise], [VERSION], ...)"; finish; }

"$REPRISE" --version > "$WORK/out" 2> "$WORK/err"
rc=$?
[ "$rc" -eq 0 ] || fail "reprise --version: exit status $rc"
[ "$(cat "$WORK/out")" = "reprise $version" ] || fail "reprise --version printed '$(cat "$WORK/out")', not 'reprise $version'"
[ ! -s "$WORK/err" ] || fail "reprise --version wrote on stderr: $(cat "$WORK/err")"

REPRISE_TRACE="$WORK/trace" with_shim "$TESTS_BIN/scenarios/launch_loop" > /dev/null 2>&1 || fail "launch_loop under the shim failed"
head -1 "$WORK/trace" > "$WORK/config"
expect_in "$WORK/config" '"ev":"config"'
expect_in "$WORK/config" "\"version\":\"$version\""

grep -q "^reprise $version " "$top_srcdir/NEWS" ||
    fail "NEWS has no heading 'reprise $version (DATE)' for configure.ac's version"
echo "reprise $version: the command, the shim's trace and NEWS agree"
finish
