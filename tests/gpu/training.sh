#!/bin/sh
# On a real GPU, issue 15: PyTorch training steps, whose backward pass runs
# on autograd's device thread. kernels/torch/mlp_train.py (an MLP, fused
# Adam) and cnn_train.py (two convolutions and a Linear, fused AdamW) run
# without the shim and under REPRISE_MODE=auto (REPRISE_STATS=1, the log to
# a file): the same checksum (every step's loss and the final weights), exit
# 0, and the exit summary shows regions of more than one thread replayed and
# regions that ended where the other thread took over (hand-overs).
# Prints each run's median step and the regions' summary lines. Skips (77)
# without torch or a GPU. TRAINING_ITERS sets the steps (default 200).
. "${top_srcdir:-.}/tests/lib.sh"
require_torch
export CUBLAS_WORKSPACE_CONFIG=:4096:8
for name in mlp_train cnn_train; do
    script="$top_srcdir/kernels/torch/$name.py"
    $LIMIT "$PYTHON" "$script" eager ${TRAINING_ITERS:-200} > "$WORK/$name.plain" 2> "$WORK/$name.plain.err" ||
        { fail "$name exits $? without the shim"; tail -5 "$WORK/$name.plain.err" >&2; continue; }
    $LIMIT env LD_PRELOAD="$SHIM" REPRISE_MODE=auto REPRISE_LOG=info REPRISE_STATS=1 REPRISE_LOG_FILE="$WORK/$name.log" \
        "$PYTHON" "$script" eager ${TRAINING_ITERS:-200} > "$WORK/$name.auto" 2> "$WORK/$name.auto.err" ||
        { fail "$name exits $? under auto"; tail -5 "$WORK/$name.auto.err" >&2; continue; }
    want=$(grep '^checksum ' "$WORK/$name.plain")
    got=$(grep '^checksum ' "$WORK/$name.auto")
    [ -n "$want" ] && [ "$want" = "$got" ] || fail "$name: auto's checksum '$got' is not the plain run's '$want'"
    echo "$name: median step $(sed -n 's/^median_us //p' "$WORK/$name.plain") us without the shim," \
        "$(sed -n 's/^median_us //p' "$WORK/$name.auto") us under auto"
    grep -E 'region [0-9]+ \(thread' "$WORK/$name.log" | sed 's/^reprise\[[0-9:]*\] info: /  /' | cut -c1-230
    # Threads whose regions replayed, and regions that ended at a hand-over.
    threads=$(sed -n 's/.*region [0-9]* (thread \([0-9]*\), [0-9]* calls): [0-9]* occurrences, \([1-9][0-9]*\) replays.*/\1/p' \
        "$WORK/$name.log" | sort -u | wc -l)
    handovers=$(grep -cE ", [1-9][0-9]* ended by another thread's call \(hand-overs\)" "$WORK/$name.log")
    [ "$threads" -ge 2 ] || fail "$name: regions of $threads thread(s) replayed, expected the program's and autograd's"
    [ "$handovers" -ge 1 ] || fail "$name: no region ended at a hand-over between threads"
done
finish
