#!/bin/sh
# SPDX-License-Identifier: MIT
# On a real GPU, the workloads of libraries that launch through the driver
# API (the shim's driver front door): kernels/torch/cupy_loop.py (CuPy),
# triton_loop.py (Triton), mlp_infer.py (PyTorch MLP at batch 1, GEMMs
# through cuBLAS) and nccl_single.py (torch.distributed on NCCL, world size
# 1), each run without the shim, then preloaded with REPRISE_MODE=off and
# REPRISE_MODE=auto (REPRISE_LOG=info, the log to a file), and under
# REPRISE_MODE=observe, whose ceiling line it prints (CuPy's must say its
# start-up was left out: its first span holds a kernel's compile).  For
# each: the checksum line is byte-identical in the four runs and every run
# exits 0;
# it prints the median_us of each run, the ratio auto/eager (and off/eager),
# and how many times the auto log says "replayed as a graph" (not asserted).
# Then each workload's hand-written graph mode (where it has one) runs
# without the shim, for its median_us and the same checksum; and under
# REPRISE_MODE=auto (graph_auto): the program's own capture, after eager
# warm-up iterations the shim may have graphed, must give the graph mode's
# checksum and exit status without the shim.
#
# A workload whose library is missing (it exits 77: no CuPy, no Triton, no
# NCCL) is skipped with its reason, never failed; the test skips (77) when
# every workload does, or without a GPU.  LIBRARY_WORKLOADS="a b" runs only
# those; LIBRARY_ITERS sets the iterations (default: each script's, 200).
# GPU_SUITE_KEEP=DIR copies every output and log to DIR (tools/dev/gpu-suite).
. "${top_srcdir:-.}/tests/lib.sh"
TORCH_DIR="$top_srcdir/kernels/torch"
PYTHON=${PYTHON:-python3}
workloads=${LIBRARY_WORKLOADS:-cupy_loop triton_loop mlp_infer nccl_single}

command -v "$PYTHON" > /dev/null 2>&1 || skip "no $PYTHON"
command -v nvidia-smi > /dev/null 2>&1 || skip "nvidia-smi not found: no GPU here"
nvidia-smi -L > "$WORK/gpus" 2>&1 || skip "nvidia-smi -L failed: no GPU here ($(head -1 "$WORK/gpus"))"
LIMIT=
command -v timeout > /dev/null 2>&1 && LIMIT="timeout 180"
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 CUBLAS_WORKSPACE_CONFIG=:4096:8

# run NAME LABEL MODE: runs NAME.py MODE [LIBRARY_ITERS]; LABEL plain or graph: no shim; off, observe or auto
# (graph_auto: auto): preloaded in that mode with REPRISE_LOG=info, the log to $WORK/NAME.LABEL.log (one file
# per process, %p).
run() {
    name=$1 label=$2 mode=$3
    set -- "$PYTHON" "$TORCH_DIR/$name.py" "$mode" ${LIBRARY_ITERS:+"$LIBRARY_ITERS"}
    case "$label" in
    off | observe | auto | graph_auto)
        set -- LD_PRELOAD="$SHIM${LD_PRELOAD:+:$LD_PRELOAD}" REPRISE_MODE="${label#graph_}" REPRISE_LOG=info \
            REPRISE_LOG_FILE="$WORK/$name.$label.log.%p" "$@"
        ;;
    esac
    status=0
    $LIMIT env "$@" > "$WORK/$name.$label.out" 2> "$WORK/$name.$label.err" || status=$?
    echo "$status" > "$WORK/$name.$label.status"
    cat "$WORK/$name.$label".log.* > "$WORK/$name.$label.log" 2> /dev/null || : > "$WORK/$name.$label.log"
}

field() { # field FILE KEY: the value after KEY on its line
    sed -n "s/^$2 \([^ ]*\).*/\1/p" "$1" | head -1
}

ran=0
for name in $workloads; do
    [ -f "$TORCH_DIR/$name.py" ] || { fail "$TORCH_DIR/$name.py is missing"; continue; }
    failures_before=$failures
    run "$name" plain eager
    status=$(cat "$WORK/$name.plain.status")
    if [ "$status" -eq 77 ]; then
        echo "skip: $name: $(tail -1 "$WORK/$name.plain.err")"
        continue
    fi
    if [ "$status" -ne 0 ]; then
        fail "$name fails without the shim (exit $status): the workload, not the shim, is wrong"
        tail -15 "$WORK/$name.plain.err" | sed 's/^/  | /' >&2
        continue
    fi
    ran=$((ran + 1))
    ref=$(grep '^checksum ' "$WORK/$name.plain.out")
    [ -n "$ref" ] || fail "$name prints no checksum line"
    for label in off observe auto; do
        run "$name" $label eager
        got=$(cat "$WORK/$name.$label.status")
        if [ "$got" -ne 0 ]; then
            case "$got" in
            124 | 137) why="killed by timeout after 180 s" ;;
            *) why="without the shim 0" ;;
            esac
            fail "$name with REPRISE_MODE=$label exits $got ($why)"
            tail -12 "$WORK/$name.$label.err" | sed 's/^/  | /' >&2
            grep -E 'warning|error' "$WORK/$name.$label.log" | tail -6 | sed 's/^/  | /' >&2
        fi
        sum=$(grep '^checksum ' "$WORK/$name.$label.out")
        if [ "$sum" != "$ref" ]; then
            fail "$name: REPRISE_MODE=$label's checksum differs: no shim '$ref', $label '$sum'"
        fi
    done
    run "$name" graph graph
    graph_us=$(field "$WORK/$name.graph.out" median_us)
    graph_note=
    if [ "$(cat "$WORK/$name.graph.status")" -ne 0 ]; then
        graph_note=" (hand-written graph: exit $(cat "$WORK/$name.graph.status"), not a failure)"
        tail -4 "$WORK/$name.graph.err" | sed 's/^/  | /' >&2
        graph_us=
    elif [ "$graph_us" != na ] && [ "$(grep '^checksum ' "$WORK/$name.graph.out")" != "$ref" ]; then
        graph_note=" (hand-written graph's checksum differs: '$(grep '^checksum ' "$WORK/$name.graph.out")'; not a failure)"
    fi
    run "$name" graph_auto graph
    if [ "$(cat "$WORK/$name.graph_auto.status")" != "$(cat "$WORK/$name.graph.status")" ] ||
        [ "$(grep '^checksum ' "$WORK/$name.graph_auto.out")" != "$(grep '^checksum ' "$WORK/$name.graph.out")" ]; then
        fail "$name: its own graph under auto: exit $(cat "$WORK/$name.graph_auto.status"), '$(grep '^checksum ' \
            "$WORK/$name.graph_auto.out")'; without the shim: exit $(cat "$WORK/$name.graph.status"), '$(grep \
            '^checksum ' "$WORK/$name.graph.out")'"
        tail -4 "$WORK/$name.graph_auto.err" | sed 's/^/  | /' >&2
    fi
    e=$(field "$WORK/$name.plain.out" median_us)
    o=$(field "$WORK/$name.off.out" median_us)
    a=$(field "$WORK/$name.auto.out" median_us)
    replays=$(grep -c 'replayed as a graph' "$WORK/$name.auto.log")
    regions=$(grep -E 'info: region [0-9]+: replayed as a graph' "$WORK/$name.auto.log" |
        sed 's/.*info: region \([0-9]*\):.*/\1/' | sort -u | wc -l)
    echo "$name: median_us eager ${e:-?} off ${o:-?} auto ${a:-?} graph ${graph_us:-?}$(awk -v e="$e" -v o="$o" -v a="$a" -v g="$graph_us" \
        'BEGIN { e += 0; o += 0; a += 0; g += 0
                 if (e > 0 && a > 0) printf "; auto/eager %.3f (%.2fx faster)", a / e, e / a;
                 if (e > 0 && o > 0) printf "; off/eager %.3f", o / e;
                 if (g > 0 && a > 0) printf "; auto/graph %.3f", a / g }')$graph_note"
    echo "    auto log: 'replayed as a graph' $replays time(s), $regions region(s) replayed; its own graph under auto:" \
        "exit $(cat "$WORK/$name.graph_auto.status"), median_us $(field "$WORK/$name.graph_auto.out" median_us)"
    ceiling=$(grep -m1 'info: ceiling: ' "$WORK/$name.observe.log" | sed 's/.*info: ceiling: //')
    echo "    observe: ${ceiling:-no ceiling line}"
    [ -n "$ceiling" ] || fail "$name: observe mode printed no ceiling"
    if [ "$name" = cupy_loop ]; then
        case "$ceiling" in
        *"start-up left out: "*) ;;
        *) fail "cupy_loop: observe's ceiling does not leave out its first span (the compile): $ceiling" ;;
        esac
    fi
    grep -E 'info: (region [0-9]+: (graph built|fell back|not graphed)|verdict)' "$WORK/$name.auto.log" |
        sed 's/^reprise\[[0-9:]*\] info: /    /;s/region [0-9]*: //' | sort | uniq -c | sort -rn | head -5
    if [ "$failures" -eq "$failures_before" ]; then
        echo "ok: $name: '$ref' with no shim, off and auto, exit 0"
    else
        echo "FAILED: $name ($((failures - failures_before)) failure(s) above)" >&2
    fi
done
[ "$ran" -gt 0 ] || [ "$failures" -gt 0 ] || skip "no library workload could run here (each skipped, above)"
finish
