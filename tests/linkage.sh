#!/bin/sh
# SPDX-License-Identifier: MIT
# The library needs libdl, pthread and libc only (never libcudart), binds
# no symbol of any other library at link level (a CUDA function bound so
# kills a process whose runtime is loaded privately, as JAX's plugin loads
# it, at its first call), and exports exactly the functions of hooks.def.
# A sanitizer build's also needs the sanitizers' runtimes and their symbols
# (configure --enable-asan or --enable-tsan).
. "${top_srcdir:-.}/tests/lib.sh"

needed=$(readelf -d "$SHIM" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p')
for lib in $needed; do
    case "$lib" in
    libdl.so.*|libpthread.so.*|libc.so.*|ld-linux*) ;;
    libasan.so.*|libubsan.so.*|libtsan.so.*) [ -n "${SANITIZER_PRELOAD:-}" ] || fail "libreprise.so needs $lib" ;;
    *) fail "libreprise.so needs $lib" ;;
    esac
done

# Every undefined dynamic symbol must be libc's, libdl's, libpthread's or the loader's: each carries
# its version (GLIBC_*); weak unversioned ones are the toolchain's optional hooks.
nm -D --undefined-only "$SHIM" > "$WORK/undefined"
[ -s "$WORK/undefined" ] || fail "nm lists no undefined symbol in libreprise.so (it needs libc's at least)"
sanitizer='^$'
[ -n "${SANITIZER_PRELOAD:-}" ] && sanitizer='^_*(asan|ubsan|tsan|lsan|sanitizer|interceptor)_'
if [ -n "${SANITIZER_PRELOAD:-}" ]; then
    # A sanitizer build binds libc's functions to the sanitizer's interceptors, unversioned: only CUDA's
    # (and its libraries') names must be absent there.
    awk '$1 == "U" && $2 ~ /^_*(cu|nv|nccl)/ { print $2 }' "$WORK/undefined" > "$WORK/foreign"
else
    awk -v s="$sanitizer" '$1 == "U" && $2 !~ /@(GLIBC|GLIBC_PRIVATE)_/ && $2 !~ s { print $2 }' "$WORK/undefined" > "$WORK/foreign"
fi
[ -s "$WORK/foreign" ] && { fail "libreprise.so binds symbols outside libc/libdl/libpthread/ld.so at link level:"; cat "$WORK/foreign" >&2; }
awk -v s="$sanitizer" '$1 == "w" && $2 !~ /^(__gmon_start__|_ITM_(de)?registerTMCloneTable|__cxa_finalize)(@|$)/ && $2 !~ s { print $2 }' "$WORK/undefined" > "$WORK/weak"
[ -s "$WORK/weak" ] && { fail "libreprise.so has unexpected weak undefined symbols:"; cat "$WORK/weak" >&2; }

nm -D --defined-only "$SHIM" | awk '$2 == "T" || $2 == "W" || $2 == "D" || $2 == "B" { sub(/@.*/, "", $3); print $3 }' | sort > "$WORK/exported"
grep -oE '[A-Za-z_][A-Za-z0-9_]*;' "$top_builddir/shim/reprise.map" | tr -d ';' | sort > "$WORK/hooked"
[ "$(wc -l < "$WORK/hooked")" -gt 80 ] || fail "the version script lists only $(wc -l < "$WORK/hooked") functions"
diff "$WORK/hooked" "$WORK/exported" > "$WORK/diff" || { fail "exports differ from hooks.def"; cat "$WORK/diff" >&2; }
finish
