#!/bin/sh
# SPDX-License-Identifier: MIT
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

# Runs kernels/torch/SCRIPT.py without the shim and with it (SHIM_ENV, the log in $WORK/NAME.log), both with
# the environment RUN_ENV: the same checksum; prints both median steps and the regions' summary lines.
# Fails and returns 1 if either run fails.
plain_then_shim() {
    name=$1 script="$top_srcdir/kernels/torch/$2.py" run_env=$3 shim_env=$4
    $LIMIT env $run_env "$PYTHON" "$script" eager ${TRAINING_ITERS:-200} > "$WORK/$name.plain" \
        2> "$WORK/$name.plain.err" ||
        { fail "$name exits $? without the shim"; tail -5 "$WORK/$name.plain.err" >&2; return 1; }
    $LIMIT env $run_env LD_PRELOAD="$SHIM" REPRISE_MODE=auto $shim_env REPRISE_LOG=info REPRISE_STATS=1 \
        REPRISE_LOG_FILE="$WORK/$name.log" "$PYTHON" "$script" eager ${TRAINING_ITERS:-200} > "$WORK/$name.shim" \
        2> "$WORK/$name.shim.err" ||
        { fail "$name exits $? under the shim ($shim_env)"; tail -5 "$WORK/$name.shim.err" >&2; return 1; }
    want=$(grep '^checksum ' "$WORK/$name.plain")
    got=$(grep '^checksum ' "$WORK/$name.shim")
    [ -n "$want" ] && [ "$want" = "$got" ] || fail "$name: the shim's checksum '$got' is not the plain run's '$want'"
    echo "$name: median step $(sed -n 's/^median_us //p' "$WORK/$name.plain") us without the shim," \
        "$(sed -n 's/^median_us //p' "$WORK/$name.shim") us under it (REPRISE_MODE=auto $shim_env)"
    grep -E 'region [0-9]+ \(thread' "$WORK/$name.log" | sed 's/^reprise\[[0-9:]*\] info: /  /' | cut -c1-230
}

# How many threads have a region in $WORK/NAME.log whose summary line, after "occurrences, ", matches PATTERN.
threads_whose() {
    sed -n "s/.*region [0-9]* (thread \([0-9]*\), [0-9]* calls): [0-9]* occurrences, $2.*/\1/p" "$WORK/$1.log" |
        sort -u | wc -l
}

for name in mlp_train cnn_train; do
    plain_then_shim "$name" "$name" "" "" || continue
    threads=$(threads_whose "$name" '[1-9][0-9]* replays')
    handovers=$(grep -cE ", [1-9][0-9]* ended by another thread's call \(hand-overs\)" "$WORK/$name.log")
    [ "$threads" -ge 2 ] || fail "$name: regions of $threads thread(s) replayed, expected the program's and autograd's"
    [ "$handovers" -ge 1 ] || fail "$name: no region ended at a hand-over between threads"
done
# The robust path with the program's and autograd's threads (on a created stream: it captures no default
# stream): every region re-captured from the calls each step.
if plain_then_shim mlp_train_robust mlp_train TRAIN_STREAM=side REPRISE_REPLAY=robust; then
    threads=$(threads_whose mlp_train_robust '[0-9]* replays ([1-9][0-9]* re-captured)')
    [ "$threads" -ge 2 ] || fail "mlp_train (robust): regions of $threads thread(s) re-captured, expected two"
fi
finish
