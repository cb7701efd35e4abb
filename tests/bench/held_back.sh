#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/bench/held_back_loop (bench_loop on the stand-in), launched through
# cudaLaunchKernel, as <<<>>> compiles (push, pop, __cudaLaunchKernel) and
# through cuLaunchKernel and cuStreamSynchronize (the driver's front door):
# without the shim, with off and with auto it prints the same, and auto
# replays its region as a graph with the step counter's node patched.
. "${top_srcdir:-.}/tests/lib.sh"
prog="$top_builddir/tests/bench/held_back_loop"
[ -x "$prog" ] || { echo "no $prog: build it (make check)" >&2; exit 99; }
for style in api stub driver; do
    "$prog" $style 100 40 > "$WORK/$style.plain" 2>&1 || fail "$style exited $? without the shim"
    with_shim REPRISE_MODE=off "$prog" $style 100 40 > "$WORK/$style.off" 2>&1 || fail "$style exited $? under off"
    with_shim REPRISE_MODE=auto REPRISE_LOG=info "$prog" $style 100 40 > "$WORK/$style.auto" 2> "$WORK/$style.log" ||
        fail "$style exited $? under auto"
    cmp -s "$WORK/$style.plain" "$WORK/$style.off" || fail "$style: off differs from no shim"
    cmp -s "$WORK/$style.plain" "$WORK/$style.auto" || fail "$style: auto differs from no shim"
    expect_in "$WORK/$style.plain" "last error cudaSuccess"
    expect_in "$WORK/$style.plain" "mode $style "
    expect_in "$WORK/$style.log" "replayed as a graph (100 calls in one launch, 10 nodes patched)"
    expect_not_in "$WORK/$style.log" "fell back"
    echo "$style: same output with no shim, off and auto; replayed"
done
finish
