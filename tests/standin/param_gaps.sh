#!/bin/sh
# SPDX-License-Identifier: MIT
# Gaps between a kernel's parameters (issue 24, item 5): tests/scenarios/param_gaps launches k_axpy (a float,
# 4 bytes of padding, then pointers) with the same arguments every iteration, in three regions that take turns:
# after a staged copy of new data (whose bytes the shim kept where the next region's parameters go), through the
# runtime, and through cuLaunchKernel's extra form with other garbage in its packed buffer's padding every time.
# Under auto it prints what it prints without the shim, and every replayed region patches no node: a recorded
# parameter block's gaps are zeroed, so that neither the compare with the graph's instance nor the argument
# set's key sees the bytes that were there (before, the two regions of k_axpy patched a node every replay).
. "${top_srcdir:-.}/tests/lib.sh"
PROG="$top_builddir/tests/scenarios/param_gaps"
[ -x "$PROG" ] || { fail "$PROG is not built"; finish; }
LIMIT=
command -v timeout > /dev/null 2>&1 && LIMIT="timeout 60"

"$PROG" > "$WORK/plain.out" 2>&1 || fail "param_gaps without the shim exited $?"
expect_not_in "$WORK/plain.out" "not at 8"
for seed in 1 2 3; do
    $LIMIT env LD_PRELOAD="$PRELOAD" REPRISE_MODE=auto REPRISE_MIN_REGION_CALLS=1 REPRISE_TRIAL=0 \
        REPRISE_TRACE="$WORK/auto.$seed.trace" STANDIN_SEED=$seed "$PROG" > "$WORK/auto.$seed.out" 2>&1 ||
        fail "seed $seed: param_gaps under auto exited $?"
    cmp -s "$WORK/plain.out" "$WORK/auto.$seed.out" ||
        { fail "seed $seed: the output differs from the run without the shim"; diff "$WORK/plain.out" "$WORK/auto.$seed.out" | head >&2; }
    # "region replays patched" of each region that replayed.
    grep '"ev":"region_summary"' "$WORK/auto.$seed.trace" |
        sed -n 's/.*"region":\([0-9]*\),.*"replays":\([0-9]*\),.*"patched":\([0-9]*\),.*/\1 \2 \3/p' |
        awk '$2 > 0' > "$WORK/replayed.$seed"
    sed "s/^/  seed $seed: region /; s/ \([0-9]*\) \([0-9]*\)$/: \1 replays, \2 nodes patched/" "$WORK/replayed.$seed"
    [ "$(awk '$2 >= 30' "$WORK/replayed.$seed" | wc -l)" -eq 3 ] ||
        fail "seed $seed: not three regions with 30 replays or more: $(cat "$WORK/replayed.$seed" | tr '\n' ';')"
    [ "$(awk '$3 > 0' "$WORK/replayed.$seed" | wc -l)" -eq 0 ] ||
        fail "seed $seed: regions patched nodes whose arguments never change (region replays patched):" \
            "$(awk '$3 > 0' "$WORK/replayed.$seed" | tr '\n' ';')"
done
finish
