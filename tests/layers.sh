#!/bin/sh
# SPDX-License-Identifier: MIT
# Dependencies run one way: every `#include "..."` of shim/ and policy/ names a header of
# the including file's own layer or of a lower one, as tools/layers.txt assigns them; the two
# front doors (same rank) do not include each other.  Needs no build: it reads the sources.
. "${top_srcdir:-.}/tests/lib.sh"
table="$top_srcdir/tools/layers.txt"
[ -f "$table" ] || { fail "no layer table: $table"; finish; }

# "rank LAYER" rows and "PATTERN LAYER" rows, comments cut.
ranks=$(sed 's/#.*//' "$table" | awk '$1 == "rank" && NF >= 3 { print $3, $2 }')
rows=$(sed 's/#.*//' "$table" | awk '$1 != "rank" && NF >= 2 { print $1, $2 }')

# The layer of file $1 (a path from the top), from the first row whose pattern matches it; "" if none.
layer_of() {
    echo "$rows" | while read -r pattern layer; do
        # shellcheck disable=SC2254 # the pattern is the table's
        case "$1" in $pattern) echo "$layer"; break ;; esac
    done
}

# The rank of layer $1; "" if the table has none.
rank_of() {
    echo "$ranks" | awk -v layer="$1" '$1 == layer { print $2; exit }'
}

# Every layer a row names must have a rank ("any": includable from every layer).
for layer in $(echo "$rows" | awk '{ print $2 }' | sort -u); do
    [ "$layer" = any ] || [ -n "$(rank_of "$layer")" ] || fail "tools/layers.txt: layer $layer has no rank row"
done

cd "$top_srcdir" || exit 1
checked=0
for file in shim/* policy/*; do
    [ -f "$file" ] || continue
    # Sources only: a build in the source tree (./configure && make, as CI does) leaves objects beside them.
    case "$file" in
    *.c | *.h | *.def | *.in) ;;
    *) continue ;;
    esac
    layer=$(layer_of "$file")
    if [ -z "$layer" ]; then
        fail "$file is in no layer: give it a row in tools/layers.txt"
        continue
    fi
    rank=$(rank_of "$layer")
    for name in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$file"); do
        # Found as the compiler finds it: beside the file, then in shim/ and policy/ (-I), else by name.
        target=$name
        for dir in "$(dirname "$file")" shim policy; do
            [ -f "$dir/$name" ] && { target="$dir/$name"; break; }
        done
        target_layer=$(layer_of "$target")
        checked=$((checked + 1))
        if [ -z "$target_layer" ]; then
            fail "$file includes \"$name\", which is in no layer of tools/layers.txt"
        elif [ "$target_layer" = any ] || [ "$target_layer" = "$layer" ] || [ "$layer" = any ]; then
            :
        elif [ "$(rank_of "$target_layer")" -gt "$rank" ]; then
            fail "$file ($layer, rank $rank) includes $target ($target_layer, rank $(rank_of "$target_layer")): a higher layer"
        elif [ "$(rank_of "$target_layer")" -eq "$rank" ]; then
            fail "$file ($layer) includes $target ($target_layer): another front door's own"
        fi
    done
done
[ "$checked" -gt 0 ] || fail "no include was found to check under $top_srcdir"
echo "$checked includes checked against tools/layers.txt"
finish
