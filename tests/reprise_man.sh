#!/bin/sh
# SPDX-License-Identifier: MIT
# The manual pages: every REPRISE_* option of policy/options.def is in
# reprise(7), every trace event in both, and reprise --help names the commands.
. "${top_srcdir:-.}/tests/lib.sh"
MAN7="$top_srcdir/tools/reprise/reprise.7"
MAN1="$top_srcdir/tools/reprise/reprise.1"
for name in $(sed -n 's/^OPTION(\([A-Z_]*\),.*/\1/p' "$top_srcdir/policy/options.def"); do
    grep -q "^\.B REPRISE_$name\$" "$MAN7" || fail "reprise.7 does not describe REPRISE_$name"
done
for name in $(sed -n 's/^\.B REPRISE_\([A-Z_]*\)$/\1/p' "$MAN7"); do
    grep -q "^OPTION($name," "$top_srcdir/policy/options.def" || fail "reprise.7 describes REPRISE_$name, which policy/options.def lacks"
done
for ev in config region_found graph_built fallback payoff evicted not_graphed period_found region_summary governor \
    governor_switch governor_summary exit; do
    expect_in "$MAN7" "$ev"
done
for opt in '\-\-mode' '\-\-trace' '\-\-stats' '\-\-library' '\-\-json' '\-\-launch\-us' '\-\-chrome\-trace'; do
    expect_in "$MAN1" "$opt"
done
if command -v man > /dev/null 2>&1 && man -l /dev/null > /dev/null 2>&1; then
    for page in "$MAN1" "$MAN7"; do
        man -l "$page" > /dev/null 2> "$WORK/man.err" || fail "man cannot format $page"
    done
fi
finish
