#!/bin/sh
# On a real GPU, issue 15: PyTorch training steps, whose backward pass runs
# on autograd's device thread. kernels/torch/mlp_train.py (an MLP, fused
# Adam) and cnn_train.py (two convolutions and a Linear, fused AdamW) run
# without the shim and under REPRISE_MODE=auto (REPRISE_STATS=1, the log to
# a file): the same checksum (every step's loss and the final weights), exit
# 0, and the exit summary shows regions of more than one thread replayed and
# regions that ended where the other thread took over (hand-overs).
# mlp_train runs again on a created stream (TRAIN_STREAM=side) without the
# shim and under REPRISE_REPLAY=robust (issue 15, item 2: the robust path
# with several host threads): the same checksum, and regions of two threads
# re-captured. Prints each run's median step and the
# regions' summary lines. Skips (77) without torch or a GPU.
# TRAINING_ITERS sets the steps (default 200).
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
# The robust path with the program's and autograd's threads: every region re-captured from the calls each step.
script="$top_srcdir/kernels/torch/mlp_train.py"
if $LIMIT env TRAIN_STREAM=side "$PYTHON" "$script" eager ${TRAINING_ITERS:-200} > "$WORK/side.plain" \
    2> "$WORK/side.plain.err" &&
    $LIMIT env TRAIN_STREAM=side LD_PRELOAD="$SHIM" REPRISE_MODE=auto REPRISE_REPLAY=robust REPRISE_LOG=info \
    REPRISE_STATS=1 REPRISE_LOG_FILE="$WORK/robust.log" "$PYTHON" "$script" eager ${TRAINING_ITERS:-200} \
    > "$WORK/robust.out" 2> "$WORK/robust.err"; then
    want=$(grep '^checksum ' "$WORK/side.plain")
    got=$(grep '^checksum ' "$WORK/robust.out")
    [ -n "$want" ] && [ "$want" = "$got" ] || fail "mlp_train (robust): checksum '$got' is not the plain run's '$want'"
    echo "mlp_train on a created stream: median step $(sed -n 's/^median_us //p' "$WORK/side.plain") us without" \
        "the shim, $(sed -n 's/^median_us //p' "$WORK/robust.out") us under the robust path"
    grep -E 'region [0-9]+ \(thread' "$WORK/robust.log" | sed 's/^reprise\[[0-9:]*\] info: /  /' | cut -c1-230
    threads=$(sed -n 's/.*region [0-9]* (thread \([0-9]*\), [0-9]* calls): [0-9]* occurrences, [0-9]* replays (\([1-9][0-9]*\) re-captured).*/\1/p' \
        "$WORK/robust.log" | sort -u | wc -l)
    [ "$threads" -ge 2 ] || fail "mlp_train (robust): regions of $threads thread(s) re-captured, expected two"
else
    fail "mlp_train (TRAIN_STREAM=side) exits non-zero without the shim or under REPRISE_REPLAY=robust"
    tail -5 "$WORK/side.plain.err" "$WORK/robust.err" >&2
fi
finish
