#!/bin/sh
# Every scenario program against the stand-in: exits 0, prints the same for
# several scheduler seeds, and matches the output recorded on an H200
# (tests/standin/expected/NAME.out, see tests/gpu/standin-vs-gpu.sh).
. "${top_srcdir:-.}/tests/lib.sh"
scenarios="alternating_args capture_status d2h_each event_timing fork_join host_func launch_loop
legacy_stream malloc_in_loop own_graph pageable_h2d per_thread per_thread_threads query_sync
symbol_update sync_free two_shapes two_threads"

for name in $scenarios; do
    prog="$top_builddir/tests/scenarios/$name"
    expected="$top_srcdir/tests/standin/expected/$name.out"
    if ! "$prog" > "$WORK/$name.1" 2>&1; then
        fail "$name exited with $?"
        continue
    fi
    for seed in 2 3 5 11; do
        STANDIN_SEED=$seed "$prog" > "$WORK/$name.out" 2>&1
        cmp -s "$WORK/$name.1" "$WORK/$name.out" || fail "$name: seed $seed changed the output"
    done
    if [ ! -f "$expected" ]; then
        fail "$name: no $expected (record it with tests/gpu/standin-vs-gpu.sh --record)"
    elif ! diff -u "$expected" "$WORK/$name.1" > "$WORK/diff"; then
        fail "$name: stand-in differs from the H200 (- GPU, + stand-in):"
        head -20 "$WORK/diff" >&2
    else
        echo "$name: same as on the H200"
    fi
done
finish
