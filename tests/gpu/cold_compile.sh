#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# HF generate() with a static cache and its automatic compile, each process compiling from cold (its own
# empty Inductor and Triton caches: the compile warm-up, autotuning included, runs under the shim, as in a
# user's first run), without the shim and under each libreprise.so given (NAME=PATH ...), all at once.
# Prints each run's exit status and whether its token ids equal the run without the shim; with OUT set,
# leaves cold-compile.tar.gz there (every run's stdout, stderr and log).  Exit 1 if any run differs or fails,
# or if a shim run in auto mode (REPRISE_MODE and REPRISE_REPLAY unset or auto) shows no region replayed in its
# log ("region N: replayed as a graph": the zoo's hf_static_compile expects one a run); 2 without a library to
# preload (the run without the shim alone proves nothing); 77 without a GPU (nvidia-smi -L fails) or when the
# program skips itself (no torch or transformers).
# usage: tests/gpu/cold_compile.sh NAME=LIBRARY... (REPRISE_* from the environment apply to the shim runs;
# PYTHON: the Python, default python3)
set -u
top_srcdir=$(cd "$(dirname "$0")/../.." && pwd)
PYTHON=${PYTHON:-python3}
if [ $# -eq 0 ]; then
    echo "cold_compile: no NAME=LIBRARY to preload: the run without the shim alone proves nothing" >&2
    exit 2
fi
if ! nvidia-smi -L > /dev/null 2>&1; then
    echo "SKIP: nvidia-smi -L fails: no GPU here" >&2
    exit 77
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/reprise-cold.XXXXXX")
export PYTHONUNBUFFERED=1
# Runs one process as $1 (its files' base), preloading $2 (empty: none).
run_one() {
    local name=$1 lib=$2 caches
    caches=$(mktemp -d "$WORK/cache.XXXXXX")
    env TORCHINDUCTOR_CACHE_DIR="$caches/inductor" TRITON_CACHE_DIR="$caches/triton" \
        ${lib:+LD_PRELOAD=$lib REPRISE_LOG=${REPRISE_LOG:-info} REPRISE_LOG_FILE=$WORK/$name.log.%p} \
        timeout 400 "$PYTHON" "$top_srcdir/kernels/torch/zoo_generate.py" static > "$WORK/$name.out" 2> "$WORK/$name.err"
    echo $? > "$WORK/$name.status"
}
run_one none "" &
for spec in "$@"; do run_one "${spec%%=*}" "${spec#*=}" & done
wait
bad=0
if [ "$(cat "$WORK/none.status")" = 77 ]; then
    echo "SKIP: zoo_generate.py skipped itself: $(tail -1 "$WORK/none.err")" >&2
    rm -rf "$WORK"
    exit 77
fi
# Auto mode, fast path or automatic: a region must replay (the robust path steps aside for PyTorch's legacy stream).
want_replay=no
case "${REPRISE_MODE:-auto}:${REPRISE_REPLAY:-auto}" in
auto:auto) want_replay=yes ;;
esac
for spec in none "$@"; do
    name=${spec%%=*}
    status=$(cat "$WORK/$name.status")
    same=ref
    [ "$name" = none ] || { cmp -s "$WORK/none.out" "$WORK/$name.out" && same=yes || same=no; }
    [ "$status" = 0 ] && [ "$same" != no ] || bad=1
    replayed=-
    if [ "$name" != none ]; then
        replayed=$(cat "$WORK/$name".log.* 2> /dev/null |
            grep -acE 'info: region [0-9]+: replayed (as a graph|on the robust path)')
        [ "$want_replay" = yes ] && [ "$replayed" -eq 0 ] && bad=1
    fi
    echo "cold_compile: $name: exit $status, token ids identical: $same, regions replayed: $replayed$(
        [ "$want_replay" = yes ] && [ "$replayed" = 0 ] && echo ' (expected at least 1)'), $(
        grep -h 'ms a token' "$WORK/$name.err" | tail -1)"
    grep -h "graphs: \|ends the" "$WORK/$name".log.* 2> /dev/null | sed 's/^/    /' | sort | uniq -c | head -8
done
[ -n "${OUT:-}" ] && mkdir -p "$OUT" && tar czf "$OUT/cold-compile.tar.gz" -C "$WORK" --exclude='cache.*' .
rm -rf "$WORK"
exit $bad
