#!/bin/sh
# SPDX-License-Identifier: MIT
# Initialisation: calls from another library's constructor before main,
# many threads at once, and a program whose runtime lacks the functions.
. "${top_srcdir:-.}/tests/lib.sh"

# A constructor calls the runtime before main (and before the shim's own constructor may have run).
with_shim REPRISE_MODE=observe REPRISE_TRACE="$WORK/ctor.json" "$TESTS_BIN/test_ctor" > "$WORK/out" 2>&1 ||
    { fail "call from a constructor"; cat "$WORK/out" >&2; }
expect_in "$WORK/ctor.json" '"cudaStreamQuery":1'

# Eight threads: every call counted once, on its own stream.
with_shim REPRISE_MODE=observe REPRISE_TRACE="$WORK/threads.json" "$TESTS_BIN/test_threads" > "$WORK/out" 2> "$WORK/err" ||
    fail "threads run failed"
expect_in "$WORK/threads.json" '"cudaLaunchKernel":160000'
expect_in "$WORK/threads.json" '"cudaStreamQuery":40000'
expect_count "$WORK/threads.json" '"launches":20000,' 8
expect_in "$WORK/err" "info: verdict: uses 8 streams"

# auto mode keeps the <<<>>> call configuration itself (LIFO, overflow to the runtime).
with_shim REPRISE_MODE=auto "$TESTS_BIN/test_launch_config" > "$WORK/out" 2>&1 || { fail "launch configuration in auto mode"; cat "$WORK/out" >&2; }
# Counted (REPRISE_STATS), auto still keeps it, and every push and pop is counted: none taken inline uncounted.
with_shim REPRISE_MODE=auto REPRISE_STATS=1 "$TESTS_BIN/test_launch_config" > "$WORK/out" 2> "$WORK/err" ||
    { fail "launch configuration in auto mode, counted"; cat "$WORK/out" "$WORK/err" >&2; }
expect_in "$WORK/err" "calls: __cudaPushCallConfiguration 20, __cudaPopCallConfiguration 21"
# Without auto the runtime keeps it: the same program sees the recorder answer every push.
status=0
with_shim REPRISE_MODE=observe "$TESTS_BIN/test_launch_config" > "$WORK/out" 2>&1 || status=$?
[ "$status" -ne 0 ] || fail "in observe mode the shim kept the call configuration"

# No runtime at all: an error code and one log line per function, never a crash.
with_shim "$TESTS_BIN/test_missing_symbol" > "$WORK/out" 2> "$WORK/err" ||
    { fail "missing runtime"; cat "$WORK/out" "$WORK/err" >&2; }
expect_count "$WORK/err" "error: cudaDeviceSynchronize: not found in the CUDA runtime; returning cudaErrorSharedObjectSymbolNotFound" 1
expect_count "$WORK/err" "error: cudaGetLastError: not found" 1
finish
