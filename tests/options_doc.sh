#!/bin/sh
# SPDX-License-Identifier: MIT
# The README's table of options is the one generated from policy/options.def.
. "${top_srcdir:-.}/tests/lib.sh"
"$top_builddir/tools/dev/options_doc" > "$WORK/generated"
sed -n '/<!-- options:begin -->/,/<!-- options:end -->/p' "$top_srcdir/README.md" | sed '1d;$d' > "$WORK/readme"
[ -s "$WORK/readme" ] || fail "README.md has no options table between <!-- options:begin --> and <!-- options:end -->"
diff -u "$WORK/readme" "$WORK/generated" || fail "README.md's options table is out of date: paste the output of tools/dev/options_doc"
finish
