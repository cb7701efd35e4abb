#!/bin/sh
# SPDX-License-Identifier: MIT
# Every scenario program against the stand-in: exits 0, prints the same for
# several scheduler seeds, and matches the output recorded on an H200
# (tests/standin/expected/NAME.out, see tests/gpu/standin-vs-gpu.sh).
# host_flag_wait.out was recorded on the stand-in (an H200 printed the same
# by hand; docs/standin.md): standin-vs-gpu.sh --record should take it over.
# So was rotating_args.out (2026-12-01: standin-vs-gpu.sh said "same" on the
# H200, session 6 run 7), and handover.out (2026-12-01, not yet compared on a
# GPU: the next standin-vs-gpu.sh run should), and growing.out, reshaped.out and variants.out (2026-12-02, likewise), layouts.out and token_regions.out (2026-12-03, likewise).
. "${top_srcdir:-.}/tests/lib.sh"
scenarios="alternating_args capture_status d2h_each event_timing fork_join host_flag_wait host_func launch_loop
legacy_stream malloc_in_loop own_graph pageable_h2d per_thread per_thread_threads query_sync
rotating_args symbol_update sync_free two_shapes two_threads handover growing reshaped variants layouts token_regions"

for name in $scenarios; do
    same_as_gpu "$name" "$top_builddir/tests/scenarios/$name" 20 2 3 5 11
done
finish
