#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# HF generate() with a static cache and its automatic compile, each process compiling from cold (its own
# empty Inductor and Triton caches: the compile warm-up, autotuning included, runs under the shim, as in a
# user's first run), without the shim and under each libreprise.so given (NAME=PATH ...), all at once.
# Prints each run's exit status and whether its token ids equal the run without the shim; with OUT set,
# leaves cold-compile.tar.gz there (every run's stdout, stderr and log).  Exit 1 if any run differs or fails.
# usage: tests/gpu/cold_compile.sh NAME=LIBRARY... (REPRISE_* from the environment apply to the shim runs)
set -u
top_srcdir=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/reprise-cold.XXXXXX")
export PYTHONUNBUFFERED=1
# Runs one process as $1 (its files' base), preloading $2 (empty: none).
run_one() {
    local name=$1 lib=$2 caches
    caches=$(mktemp -d "$WORK/cache.XXXXXX")
    env TORCHINDUCTOR_CACHE_DIR="$caches/inductor" TRITON_CACHE_DIR="$caches/triton" \
        ${lib:+LD_PRELOAD=$lib REPRISE_LOG=${REPRISE_LOG:-info} REPRISE_LOG_FILE=$WORK/$name.log.%p} \
        timeout 400 python3 "$top_srcdir/kernels/torch/zoo_generate.py" static > "$WORK/$name.out" 2> "$WORK/$name.err"
    echo $? > "$WORK/$name.status"
}
run_one none "" &
for spec in "$@"; do run_one "${spec%%=*}" "${spec#*=}" & done
wait
bad=0
for spec in none "$@"; do
    name=${spec%%=*}
    status=$(cat "$WORK/$name.status")
    same=ref
    [ "$name" = none ] || { cmp -s "$WORK/none.out" "$WORK/$name.out" && same=yes || same=no; }
    [ "$status" = 0 ] && [ "$same" != no ] || bad=1
    echo "cold_compile: $name: exit $status, token ids identical: $same, $(grep -h 'ms a token' "$WORK/$name.err" | tail -1)"
    grep -h "graphs: \|ends the" "$WORK/$name".log.* 2> /dev/null | sed 's/^/    /' | sort | uniq -c | head -8
done
[ -n "${OUT:-}" ] && tar czf "$OUT/cold-compile.tar.gz" -C "$WORK" --exclude='cache.*' .
rm -rf "$WORK"
exit $bad
