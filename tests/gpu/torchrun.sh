#!/bin/sh
# SPDX-License-Identifier: MIT
# On a real GPU, issue 16: the shim under torchrun, one shim per rank.
# kernels/torch/ddp_train.py (DistributedDataParallel training of a small
# MLP) runs as a job of two ranks started by torchrun (python3 -m
# torch.distributed.run --standalone), first without the shim, then as
# `reprise run --mode M --trace T --log-file L -- torchrun ...` with M off
# and auto, then started with LD_PRELOAD set by hand:
#   - every job exits 0, every rank's checksum (its losses, every step, and
#     its final weights) is the same as without the shim;
#   - under auto: one trace and one log per process (`.%p`), the ranks'
#     log lines carry "rank R" in their prefix, `reprise report` over the
#     traces prints one job table with both ranks; the ranks' regions
#     replay (not asserted on gloo: its CUDA all-reduce synchronises the
#     stream after every bucket, the regions between are short);
#   - a rank-dependent branch (DDP_SKEW=1: rank 1 runs an extra kernel
#     every third step) under auto: no hang (180 s limit), the same results
#     as that job without the shim.
# With one GPU the ranks share it through gloo (NCCL refuses two ranks on
# one GPU); with two or more, through NCCL, and the exit summary must count
# NCCL's calls as a communication library's, passed through. A world of one
# rank on NCCL (torchrun --nproc-per-node=1) runs on any GPU machine:
# identical, NCCL named a communication library, its calls counted.
# DDP_ITERS sets the steps (default 100). Skips (77) without torch, a GPU or
# torch.distributed.
. "${top_srcdir:-.}/tests/lib.sh"
require_torch
REPRISE="$top_builddir/tools/reprise/reprise"
[ -x "$REPRISE" ] || { echo "no $REPRISE: build first" >&2; exit 99; }
SCRIPT="$top_srcdir/kernels/torch/ddp_train.py"
ITERS=${DDP_ITERS:-100}
"$PYTHON" -c 'import torch.distributed as d; assert d.is_available()' > /dev/null 2>&1 ||
    skip "torch.distributed is not available"
GPUS=$("$PYTHON" -c 'import torch; print(torch.cuda.device_count())' 2> /dev/null)
export CUBLAS_WORKSPACE_CONFIG=:4096:8 NCCL_DEBUG=WARN
# Keep NVLink multicast off (the GPU machines' rule), also inside the job.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1

# job LABEL NPROC [PREFIX...]: runs ddp_train.py as a torchrun job of NPROC ranks, writing $WORK/LABEL/rank*.out;
# PREFIX (e.g. reprise run ... --) goes before torchrun. The job's status in $WORK/LABEL.status.
job() {
    label=$1 nproc=$2
    shift 2
    mkdir -p "$WORK/$label"
    status=0
    $LIMIT "$@" "$PYTHON" -m torch.distributed.run --standalone --nproc-per-node="$nproc" "$SCRIPT" "$ITERS" \
        "$WORK/$label" > "$WORK/$label.stdout" 2> "$WORK/$label.stderr" || status=$?
    echo "$status" > "$WORK/$label.status"
    if [ "$status" -ne 0 ]; then
        case "$status" in
        124 | 137) fail "job $label: killed by the 180 s limit (a hang?)" ;;
        *) fail "job $label exited $status" ;;
        esac
        tail -15 "$WORK/$label.stderr" | sed 's/^/  | /' >&2
    fi
}

# same_ranks REF LABEL NPROC: every rank of job LABEL printed REF's checksum for that rank.
same_ranks() {
    r=0
    while [ "$r" -lt "$3" ]; do
        want=$(grep '^checksum ' "$WORK/$1/rank$r.out" 2> /dev/null)
        got=$(grep '^checksum ' "$WORK/$2/rank$r.out" 2> /dev/null)
        [ -n "$want" ] || fail "job $1: rank $r wrote no checksum"
        [ "$want" = "$got" ] || fail "job $2: rank $r's results differ from job $1's ('$got' against '$want')"
        r=$((r + 1))
    done
}

# Two ranks: on two GPUs through NCCL, else both on GPU 0 through gloo.
if [ "${GPUS:-0}" -ge 2 ]; then backend=nccl; else backend=gloo; fi
export DDP_BACKEND=$backend
echo "ddp_train: 2 ranks on $GPUS GPU(s), backend $backend, $ITERS steps"
job plain 2 env
[ "$(cat "$WORK/plain.status")" -eq 0 ] || finish
for mode in off auto; do
    job $mode 2 "$REPRISE" run --mode $mode --stats --log info --trace "$WORK/$mode.trace" --log-file "$WORK/$mode.log" --
    same_ranks plain $mode 2
done
# By hand: LD_PRELOAD on torchrun, the ranks inherit it.
job by_hand 2 env LD_PRELOAD="$SHIM" REPRISE_MODE=auto REPRISE_LOG_FILE="$WORK/by_hand.log.%p"
same_ranks plain by_hand 2
[ "$(ls "$WORK"/by_hand.log.* 2> /dev/null | wc -l)" -ge 3 ] ||
    fail "LD_PRELOAD by hand: not one log per process (launcher and two ranks): $(ls "$WORK" | grep by_hand.log)"

# auto's files: a trace and a log per process (torchrun's launcher and two ranks, at least), named NAME.PID.EXT.
traces=$(ls "$WORK"/auto.*.trace 2> /dev/null | wc -l)
logs=$(ls "$WORK"/auto.*.log 2> /dev/null | wc -l)
[ "$traces" -ge 3 ] || fail "auto: $traces traces, expected one per process (3 or more)"
[ "$logs" -ge 3 ] || fail "auto: $logs logs, expected one per process (3 or more)"
for r in 0 1; do
    grep -l "rank $r\] info: " "$WORK"/auto.*.log > /dev/null 2>&1 || fail "no log has rank $r in its prefix"
done
"$REPRISE" report "$WORK"/auto.*.trace > "$WORK/auto.report" 2> "$WORK/auto.report.err" ||
    fail "reprise report over the job's traces exited $?: $(head -3 "$WORK/auto.report.err")"
expect_in "$WORK/auto.report" "2 with a rank (world size 2)"
for r in 0 1; do
    grep -q "^rank $r: " "$WORK/auto.report" || fail "the job report has no line for rank $r"
done
echo "--- reprise report (auto)"
sed -n '1,40p' "$WORK/auto.report"
for r in 0 1; do
    echo "rank $r: replays in its log: $(cat $(grep -l "rank $r\] " "$WORK"/auto.*.log) | grep -c 'replayed')," \
        "median step: plain $(sed -n 's/^median_us //p' "$WORK/plain/rank$r.out") us," \
        "off $(sed -n 's/^median_us //p' "$WORK/off/rank$r.out") us, auto $(sed -n 's/^median_us //p' "$WORK/auto/rank$r.out") us"
done
if [ "$backend" = nccl ]; then
    grep -h 'communication libraries: ' "$WORK"/auto.*.log | grep -q 'rank ' ||
        fail "no rank's exit summary counts NCCL's calls as a communication library's"
fi

# A rank-dependent branch: rank 1's regions differ from rank 0's; nothing may hang, results as without the shim.
job skew_plain 2 env DDP_SKEW=1
job skew_auto 2 env DDP_SKEW=1 "$REPRISE" run --mode auto --trace "$WORK/skew.trace" --
same_ranks skew_plain skew_auto 2
"$REPRISE" report "$WORK"/skew.*.trace > "$WORK/skew.report" 2>&1 || fail "reprise report over the skewed job exited $?"
echo "--- reprise report (DDP_SKEW=1), its last lines"
tail -6 "$WORK/skew.report"

# One rank on NCCL (any GPU machine): NCCL is a communication library, its calls pass through, counted.
if "$PYTHON" -c 'import torch.distributed as d; assert d.is_nccl_available()' > /dev/null 2>&1; then
    job nccl1_plain 1 env DDP_BACKEND=nccl
    job nccl1_auto 1 env DDP_BACKEND=nccl "$REPRISE" run --mode auto --stats --log info --log-file "$WORK/nccl1.log" --
    same_ranks nccl1_plain nccl1_auto 1
    cat "$WORK"/nccl1.*.log > "$WORK/nccl1.all.log" 2> /dev/null
    expect_in "$WORK/nccl1.all.log" "is a communication library: its driver calls are never held back"
    grep -q 'rank 0\] info: communication libraries: [1-9][0-9]* of their calls' "$WORK/nccl1.all.log" ||
        fail "rank 0's exit summary does not count NCCL's calls"
    echo "nccl, one rank: $(grep -h 'communication libraries' "$WORK/nccl1.all.log" | head -1 | sed 's/.*info: //')"
else
    echo "skip: one rank on NCCL: torch.distributed has no NCCL"
fi
finish
