#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs the conformance program and every scenario both ways, on a GPU
# (the nvcc builds, NAME.gpu) and on the CPU stand-in, and diffs the outputs.
#
#   tests/gpu/standin-vs-gpu.sh BUILD_DIR [--record]
#
# BUILD_DIR is a configured build tree after `make check` (the stand-in
# programs) and `make gpu-programs` (the GPU ones). --record also copies
# the GPU outputs to tests/standin/expected/, which `make check` compares
# the stand-in against on machines without a GPU. Exits 77 (skipped) when
# there is no GPU, 1 when an output differs or a program is missing.
set -u
build=${1:?usage: standin-vs-gpu.sh BUILD_DIR [--record]}
record=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
build=$(cd "$build" && pwd)

if ! nvidia-smi -L > /dev/null 2>&1; then
    echo "standin-vs-gpu: no GPU (nvidia-smi -L failed): skipped"
    exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/standin-vs-gpu.XXXXXX")
trap 'rm -rf "$work"' EXIT
# -no-install binaries carry an rpath to the build tree; the tree may have moved: the stand-in's libraries
# and the fake libraries built on it.
standin_libs="$build/standin/.libs:$build/tests/standin/.libs"

programs="tests/conformance"
for f in "$srcdir"/tests/scenarios/*.c; do
    # Scenarios built only for the stand-in (a fake library's CPU-twin kernels) have no GPU twin.
    grep -q "Stand-in only" "$f" && continue
    programs="$programs tests/scenarios/$(basename "$f" .c)"
done

differ=0 same=0
for p in $programs; do
    name=$(basename "$p")
    if [ ! -x "$build/$p.gpu" ] || [ ! -x "$build/$p" ]; then
        echo "MISSING $p(.gpu): run make check and make gpu-programs in $build"
        differ=$((differ + 1))
        continue
    fi
    # The driver-only scenarios load their kernels by name from this module (make gpu-programs builds it).
    SCENARIO_MODULE="$build/kernels/all_kernels.fatbin" "$build/$p.gpu" > "$work/$name.gpu" 2>&1
    rc=$?
    if [ $rc -eq 77 ]; then
        echo "standin-vs-gpu: $p.gpu found no CUDA device: skipped"
        exit 77
    fi
    echo "exit $rc" >> "$work/$name.gpu"
    # The program's own stand-in libraries first (its RUNPATH: the stand-in libcuda.so.1 of the driver
    # scenarios): an LD_LIBRARY_PATH of the GPU machine's, searched before RUNPATH, may hold the real one.
    runpath=$(readelf -d "$build/$p" 2> /dev/null | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')
    LD_LIBRARY_PATH="${runpath:+$runpath:}$standin_libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
        "$build/$p" > "$work/$name.standin" 2>&1
    echo "exit $?" >> "$work/$name.standin"
    if diff -u "$work/$name.gpu" "$work/$name.standin" > "$work/$name.diff"; then
        echo "same    $p"
        same=$((same + 1))
    else
        echo "DIFFER  $p (- GPU, + stand-in)"
        sed 's/^/    /' "$work/$name.diff" | head -40
        differ=$((differ + 1))
    fi
    if [ "$record" = "--record" ]; then
        mkdir -p "$srcdir/tests/standin/expected"
        sed '$d' "$work/$name.gpu" > "$srcdir/tests/standin/expected/$name.out"
    fi
done
echo "standin-vs-gpu: $same same, $differ different"
[ $differ -eq 0 ]
