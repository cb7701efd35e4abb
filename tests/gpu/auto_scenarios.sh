#!/bin/sh
# SPDX-License-Identifier: MIT
# On a real GPU, auto mode gives the same results as no graphing at all: each
# scenario program of tests/scenarios (built for the GPU as
# tests/scenarios/NAME.gpu, make gpu-programs) runs with REPRISE_MODE=off and
# with REPRISE_MODE=auto (also with REPRISE_REPLAY=robust, and with regions
# as short as 2 calls and no trial, "short", which graphs the scenarios'
# small regions too); stdout and exit status must be identical.  Prints,
# per scenario, the engine's decisions (replays, patches, fallbacks and their
# reasons) from the auto run's log.  Skips (77) without the programs or a GPU.
#
# GPU_SUITE_KEEP=DIR copies every output and log to DIR (tools/dev/gpu-suite).
. "${top_srcdir:-.}/tests/lib.sh"
DIR="$top_builddir/tests/scenarios"
# The driver-only scenarios load their kernels by name from this module (make gpu-programs builds it).
export SCENARIO_MODULE="$top_builddir/kernels/all_kernels.fatbin"

set -- "$DIR"/*.gpu
[ -x "$1" ] || skip "no scenario programs in $DIR (make gpu-programs)"
command -v nvidia-smi > /dev/null 2>&1 && nvidia-smi -L > /dev/null 2>&1 || skip "no GPU here"
LIMIT=
command -v timeout > /dev/null 2>&1 && LIMIT="timeout 120"

# Whether run $2 of scenario $1 gave the off run's stdout and exit status: says "ok: $1: $3", or fails naming $4.
compare_with_off() {
    if cmp -s "$WORK/$1.off.out" "$WORK/$1.$2.out" && cmp -s "$WORK/$1.off.status" "$WORK/$1.$2.status"; then
        echo "ok: $1: $3"
    else
        fail "$1: $4 differs from off"
        diff "$WORK/$1.off.out" "$WORK/$1.$2.out" | head -10 >&2
    fi
}

for prog in "$DIR"/*.gpu; do
    name=$(basename "$prog" .gpu)
    for mode in off auto robust short; do
        status=0
        shim_mode=$mode replay=auto min_calls=4 trial=4
        [ $mode = robust ] && shim_mode=auto replay=robust
        [ $mode = short ] && shim_mode=auto min_calls=2 trial=0
        $LIMIT env LD_PRELOAD="$SHIM" REPRISE_MODE=$shim_mode REPRISE_REPLAY=$replay REPRISE_LOG=info \
            REPRISE_MIN_REGION_CALLS=$min_calls REPRISE_TRIAL=$trial \
            REPRISE_STATS=1 STANDIN_SEED=1 "$prog" > "$WORK/$name.$mode.out" 2> "$WORK/$name.$mode.log" || status=$?
        echo "$status" > "$WORK/$name.$mode.status"
    done
    if [ "$(cat "$WORK/$name.off.status")" = 77 ]; then
        skip "$name: no GPU"
    fi
    compare_with_off "$name" auto "same output and status (exit $(cat "$WORK/$name.off.status")) with off and auto" auto
    compare_with_off "$name" robust "same output and status with REPRISE_REPLAY=robust" \
        "auto with REPRISE_REPLAY=robust"
    compare_with_off "$name" short "same output and status with regions from 2 calls" \
        "auto with REPRISE_MIN_REGION_CALLS=2 REPRISE_TRIAL=0"
    # unhooked_copy's short run replays the 3 launches before its unhooked
    # copy; every eighth iteration the copy comes after the first of them, and
    # the replay submits that launch from inside the runtime's own call.
    if [ "$name" = unhooked_copy ]; then
        if grep -q "fell back after 1 of 3 calls" "$WORK/$name.short.log"; then
            echo "ok: unhooked_copy: the held launch was submitted from inside the runtime's unhooked call, no hang"
        else
            fail "unhooked_copy: the short run never fell back after 1 of 3 calls: $(grep -E 'region [0-9]+ \(' "$WORK/$name.short.log" | cut -c1-140)"
        fi
    fi
    # The decisions, as the log tells them.
    grep -E 'info: (region|sync-free)' "$WORK/$name.auto.log" | sed 's/^reprise\[[0-9:]*\] info: /    /' |
        grep -vE 'occurrences, 0 replays' | head -8
    grep -E 'info: (region [0-9]+: (replayed|fell)|a capture)' "$WORK/$name.robust.log" |
        sed 's/^reprise\[[0-9:]*\] info: /    robust: /' | head -3
done
finish
