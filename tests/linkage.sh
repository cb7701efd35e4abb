#!/bin/sh
# The library needs libdl, pthread and libc only (never libcudart), and
# exports exactly the functions of hooks.def.  A sanitizer build's also needs
# the sanitizers' runtimes (configure --enable-asan or --enable-tsan).
. "${top_srcdir:-.}/tests/lib.sh"

needed=$(readelf -d "$SHIM" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p')
for lib in $needed; do
    case "$lib" in
    libdl.so.*|libpthread.so.*|libc.so.*|ld-linux*) ;;
    libasan.so.*|libubsan.so.*|libtsan.so.*) [ -n "${SANITIZER_PRELOAD:-}" ] || fail "libreprise.so needs $lib" ;;
    *) fail "libreprise.so needs $lib" ;;
    esac
done

nm -D --defined-only "$SHIM" | awk '$2 == "T" || $2 == "W" || $2 == "D" || $2 == "B" { sub(/@.*/, "", $3); print $3 }' | sort > "$WORK/exported"
grep -oE '[A-Za-z_][A-Za-z0-9_]*;' "$top_builddir/shim/reprise.map" | tr -d ';' | sort > "$WORK/hooked"
[ "$(wc -l < "$WORK/hooked")" -gt 80 ] || fail "the version script lists only $(wc -l < "$WORK/hooked") functions"
diff "$WORK/hooked" "$WORK/exported" > "$WORK/diff" || { fail "exports differ from hooks.def"; cat "$WORK/diff" >&2; }
finish
