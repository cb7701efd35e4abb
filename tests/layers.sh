#!/bin/sh
# SPDX-License-Identifier: MIT
# Dependencies run one way: every `#include "..."` of shim/ and policy/ names a header of
# the including file's own layer or of a lower one, as tests/layers.txt assigns them to the
# shim's folders, and every call from one of the shim's objects to a function another
# defines goes to a file of its own layer or of a lower one; the two front doors (same rank)
# reach neither each other's headers nor each other's functions.  The includes are read
# from the sources; the calls from the built objects (nm), which make check has built.
. "${top_srcdir:-.}/tests/lib.sh"
table="$top_srcdir/tests/layers.txt"
[ -f "$table" ] || { fail "no layer table: $table"; finish; }

# "rank LAYER" rows and "PATTERN LAYER" rows, comments cut.
ranks=$(sed 's/#.*//' "$table" | awk '$1 == "rank" && NF >= 3 { print $3, $2 }')
rows=$(sed 's/#.*//' "$table" | awk '$1 != "rank" && $1 != "upcall" && NF >= 2 { print $1, $2 }')
upcalls=" $(sed 's/#.*//' "$table" | awk '$1 == "upcall" { printf "%s ", $2 }')"

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
    [ "$layer" = any ] || [ -n "$(rank_of "$layer")" ] || fail "tests/layers.txt: layer $layer has no rank row"
done

cd "$top_srcdir" || exit 1
checked=0
for file in shim/* shim/*/* policy/*; do
    [ -f "$file" ] || continue
    # Sources only: a build in the source tree (./configure && make, as CI does) leaves objects beside them.
    case "$file" in
    *.c | *.h | *.def | *.in) ;;
    *) continue ;;
    esac
    case "$file" in
    shim/*/*) ;;
    shim/*) fail "$file is in no folder of shim/: each folder is a layer (tests/layers.txt)"; continue ;;
    esac
    layer=$(layer_of "$file")
    if [ -z "$layer" ]; then
        fail "$file is in no layer: give its folder a row in tests/layers.txt"
        continue
    fi
    rank=$(rank_of "$layer")
    for name in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$file"); do
        # Found as the compiler finds it: beside the file, then in the shim's folders and policy/ (-I), else by name.
        target=$name
        for dir in "$(dirname "$file")" shim/* policy; do
            [ -f "$dir/$name" ] && { target="$dir/$name"; break; }
        done
        target_layer=$(layer_of "$target")
        checked=$((checked + 1))
        if [ -z "$target_layer" ]; then
            fail "$file includes \"$name\", which is in no layer of tests/layers.txt"
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
echo "$checked includes checked against tests/layers.txt"

# The calls: each source's object (libtool's, under the build tree), its global definitions
# ("SYMBOL FILE" in defs) and the symbols it uses ("FILE SYMBOL" in uses).
: > "$WORK/defs"
: > "$WORK/uses"
objects=0
for file in shim/*/*.c policy/*.c; do
    dir=$(dirname "$file")
    base=$(basename "$file" .c)
    object=$(ls "$top_builddir/$dir/.libs/$base.o" "$top_builddir/$dir/.libs/"*"-$base.o" "$top_builddir/$dir/$base.o" \
        2> /dev/null | head -1)
    [ -n "$object" ] || continue
    objects=$((objects + 1))
    nm -P --defined-only "$object" | awk -v f="$file" '$2 ~ /^[TDBRV]$/ { print $1, f }' >> "$WORK/defs"
    nm -P --undefined-only "$object" | awk -v f="$file" '{ print f, $1 }' >> "$WORK/uses"
done
[ "$objects" -gt 40 ] || fail "only $objects of the shim's objects found under $top_builddir: build it first"
sort -u "$WORK/defs" > "$WORK/defs.sorted"
: > "$WORK/within"
calls=0
# "CALLER CALLEE SYMBOL" for every use of a symbol another file of the shim defines.
sort -k2 "$WORK/uses" | join -1 2 -2 1 -o 1.1,2.2,1.2 - "$WORK/defs.sorted" | sort -u > "$WORK/calls"
while read -r caller callee symbol; do
    [ "$caller" = "$callee" ] && continue
    case "$upcalls" in *" $symbol "*) continue ;; esac
    from=$(layer_of "$caller")
    to=$(layer_of "$callee")
    calls=$((calls + 1))
    if [ "$from" = "$to" ]; then
        echo "$caller $callee $symbol" >> "$WORK/within"
        continue
    fi
    if [ "$(rank_of "$to")" -gt "$(rank_of "$from")" ]; then
        fail "$caller ($from) calls $symbol of $callee ($to): a higher layer"
    elif [ "$(rank_of "$to")" -eq "$(rank_of "$from")" ]; then
        fail "$caller ($from) calls $symbol of $callee ($to): another front door's own"
    fi
done < "$WORK/calls"
[ "$calls" -gt 100 ] || fail "only $calls calls between the shim's files were found"

# No circle among the files of one layer: the calls within a layer (upcalls left out, as above) run one way
# too, so that each file can be read, and changed, knowing only those below it.  The circles are the
# strongly connected components of the files' call graph ("CALLER CALLEE SYMBOL" in within): a file
# reaches another if a chain of calls leads there (Floyd-Warshall), and files that reach each other are
# in one circle.  Each is printed with the calls between its files.
awk '{
    for (k = 1; k <= 2; k++)
        if (!($k in id)) { id[$k] = ++n; name[n] = $k }
    reach[id[$1], id[$2]] = 1
    how[$1, $2] = how[$1, $2] (how[$1, $2] == "" ? "" : ", ") $3
}
END {
    for (k = 1; k <= n; k++)
        for (i = 1; i <= n; i++)
            if ((i, k) in reach)
                for (j = 1; j <= n; j++)
                    if ((k, j) in reach)
                        reach[i, j] = 1
    for (i = 1; i <= n; i++) {
        if (i in member)
            continue
        files = name[i]
        size = 1
        for (j = i + 1; j <= n; j++)
            if ((i, j) in reach && (j, i) in reach) {
                member[j] = 1
                files = files " " name[j]
                size++
            }
        if (size < 2)
            continue
        print "circle: " files
        split(files, in_circle, " ")
        for (a = 1; a <= size; a++)
            for (b = 1; b <= size; b++)
                if ((in_circle[a], in_circle[b]) in how)
                    print "    " in_circle[a] " -> " in_circle[b] ": " how[in_circle[a], in_circle[b]]
    }
}' "$WORK/within" > "$WORK/circles"
circles=$(grep -c '^circle: ' "$WORK/circles")
if [ "$circles" -gt 0 ]; then
    fail "$circles circle(s) of calls among the files of one layer (each file must call only files below it):"
    cat "$WORK/circles" >&2
fi
echo "$(wc -l < "$WORK/within") calls within a layer checked for circles"
echo "$calls calls between files checked against tests/layers.txt"
finish
