#!/bin/sh
# SPDX-License-Identifier: MIT
# The driver API, seen: a library launching through cuGetProcAddress (as
# cuBLAS does; tests/standin/fakeblas.c) between runtime launches on one
# stream, the program syncing through the driver too
# (tests/scenarios/driver_library).  Off, observe and auto print the same
# for several seeds; auto graphs the library's launches with the program's
# (the driver's front door); observe counts the direct calls.  A version of cuLaunchKernel
# the shim has no wrapper for stops graphs (same output).  Negative
# control: a route to the driver the shim cannot see makes auto's output
# differ, so the comparison can fail.  The same across threads
# (tests/scenarios/driver_threads).  A program importing a driver work
# function the shim does not wrap graphs nothing (tests/standin/driver_import).
# tests/standin/dlsym_check checks what dlsym and cuGetProcAddress hand out.
. "${top_srcdir:-.}/tests/lib.sh"
PROG="$top_builddir/tests/scenarios/driver_library"
[ -x "$PROG" ] || { echo "$PROG is not built" >&2; exit 99; }

with_shim "$top_builddir/tests/standin/dlsym_check" || fail "dlsym_check"

STANDIN_SEED=1 "$PROG" > "$WORK/plain.out" || fail "driver_library without the shim exited $?"
expect_in "$WORK/plain.out" "errors 0"
for seed in 1 2 3; do
    for mode in off observe auto; do
        with_shim REPRISE_MODE=$mode REPRISE_MIN_REGION_CALLS=1 REPRISE_LOG=info STANDIN_SEED=$seed "$PROG" \
            > "$WORK/$mode.$seed.out" 2> "$WORK/$mode.$seed.log" || fail "$mode (seed $seed) exited $?"
        cmp -s "$WORK/plain.out" "$WORK/$mode.$seed.out" ||
            { fail "$mode (seed $seed): output differs from the run without the shim"; diff "$WORK/plain.out" "$WORK/$mode.$seed.out" | head -5 >&2; }
    done
done
# Auto: the library's launches come through the driver's front door: held back and graphed with the
# program's runtime launches on the fast path, in order; nothing needs the robust path.
expect_in "$WORK/auto.1.log" "replayed as a graph"
expect_not_in "$WORK/auto.1.log" "takes the robust path"
expect_not_in "$WORK/auto.1.log" "replayed on the robust path"
expect_not_in "$WORK/auto.1.log" "not graphed: work may reach the GPU unseen"
# Observe: 40 + 5 library launches, 20 syncs through the driver, none of the runtime's own driver calls.
expect_in "$WORK/observe.1.log" "driver calls from outside the runtime: cuLaunchKernel 45, cuStreamSynchronize 20"
expect_in "$WORK/observe.1.log" "verdict: libraries call the driver API directly (65 calls"
expect_not_in "$WORK/off.1.log" "driver calls"
# The trace's exit event counts them too.
with_shim REPRISE_MODE=observe REPRISE_TRACE="$WORK/trace.json" "$PROG" > /dev/null 2>&1 || fail "traced run exited $?"
expect_in "$WORK/trace.json" '"foreign_calls":{"cuLaunchKernel":45,"cuStreamSynchronize":20}'
# Default policy: the same results.
with_shim "$PROG" > "$WORK/default.out" 2> /dev/null || fail "default auto exited $?"
cmp -s "$WORK/plain.out" "$WORK/default.out" || fail "default auto: output differs"

# The library asks the runtime (cudaGetDriverEntryPointByVersion), which answers through a route of
# its own: the shim's hook of it hands out the wrapper all the same.
with_shim REPRISE_MODE=observe REPRISE_LOG=info FAKEBLAS_ROUTE=runtime "$PROG" \
    > "$WORK/route.out" 2> "$WORK/route.log" || fail "runtime route exited $?"
cmp -s "$WORK/plain.out" "$WORK/route.out" || fail "runtime route: output differs"
expect_in "$WORK/route.log" "driver calls from outside the runtime: cuLaunchKernel 45, cuStreamSynchronize 20"
with_shim REPRISE_MIN_REGION_CALLS=1 REPRISE_LOG=info FAKEBLAS_ROUTE=runtime "$PROG" \
    > "$WORK/route.auto.out" 2> "$WORK/route.auto.log" || fail "runtime route under auto exited $?"
cmp -s "$WORK/plain.out" "$WORK/route.auto.out" || fail "runtime route under auto: output differs"
expect_in "$WORK/route.auto.log" "replayed as a graph"

# A cuLaunchKernel version the shim does not wrap: said once, only the robust path (which captures what it
# cannot see), same results.
with_shim REPRISE_MIN_REGION_CALLS=1 REPRISE_LOG=info FAKEBLAS_CUDA_VERSION=99000 "$PROG" \
    > "$WORK/v99.out" 2> "$WORK/v99.log" || fail "unknown version exited $?"
cmp -s "$WORK/plain.out" "$WORK/v99.out" || fail "unknown version: output differs"
expect_count "$WORK/v99.log" "cuLaunchKernel: handed out by cuGetProcAddress in a version the shim has no wrapper for" 1
expect_in "$WORK/v99.log" "replayed on the robust path"
expect_not_in "$WORK/v99.log" "replayed as a graph"

# Negative control: launches the shim cannot see overtake held-back work, and the output shows it.
FAKEBLAS_UNSEEN=1 "$PROG" > "$WORK/unseen_plain.out" || fail "unseen route without the shim exited $?"
cmp -s "$WORK/plain.out" "$WORK/unseen_plain.out" || fail "the unseen route changes results by itself"
with_shim REPRISE_MIN_REGION_CALLS=1 FAKEBLAS_UNSEEN=1 "$PROG" > "$WORK/unseen.out" 2> /dev/null ||
    fail "unseen route under auto exited $?"
! cmp -s "$WORK/plain.out" "$WORK/unseen.out" ||
    fail "unseen launches did not change auto's output: this test could not catch a missed driver call"

# Another thread's driver launch on the legacy stream: the first thread's held-back launches go first, as
# their graph (a hand-over ends the region: the library thread launches it before its own call).
# (The library finds the stand-in libcuda.so.1 on the search path, as cuBLAS finds the driver.)
THREADS="$top_builddir/tests/scenarios/driver_threads"
export LD_LIBRARY_PATH="$top_builddir/standin/driver/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
"$THREADS" > "$WORK/threads.out" || fail "driver_threads without the shim exited $?"
expect_in "$WORK/threads.out" "errors 0"
for seed in 1 2 3; do
    with_shim REPRISE_MIN_REGION_CALLS=1 REPRISE_LOG=info STANDIN_SEED=$seed "$THREADS" \
        > "$WORK/threads.$seed.out" 2> "$WORK/threads.$seed.log" || fail "driver_threads (seed $seed) exited $?"
    cmp -s "$WORK/threads.out" "$WORK/threads.$seed.out" || fail "driver_threads (seed $seed): output differs"
done
expect_in "$WORK/threads.1.log" "replayed as a graph (3 calls in one launch"
expect_not_in "$WORK/threads.1.log" "other_thread"
with_shim REPRISE_MIN_REGION_CALLS=1 FAKEBLAS_UNSEEN=1 "$THREADS" > "$WORK/threads.unseen.out" 2> /dev/null ||
    fail "driver_threads, unseen route, exited $?"
! cmp -s "$WORK/threads.out" "$WORK/threads.unseen.out" ||
    fail "driver_threads: unseen launches did not change auto's output"

# The same library under a communication library's name (tests/standin/libnccl_standin.so): its launches are
# never held back (NCCL's kernels wait for each other through host memory), each ends a region, and the
# program's runtime work between them is still graphed.
NCCL="$top_builddir/tests/standin/driver_library_nccl"
"$NCCL" > "$WORK/nccl.plain" || fail "driver_library_nccl without the shim exited $?"
cmp -s "$WORK/plain.out" "$WORK/nccl.plain" || fail "driver_library_nccl prints otherwise than driver_library"
with_shim REPRISE_MIN_REGION_CALLS=1 REPRISE_TRIAL=0 REPRISE_LOG=info "$NCCL" > "$WORK/nccl.out" 2> "$WORK/nccl.log" ||
    fail "driver_library_nccl under auto exited $?"
cmp -s "$WORK/plain.out" "$WORK/nccl.out" || fail "driver_library_nccl under auto: output differs"
expect_count "$WORK/nccl.log" "libnccl_standin.so is a communication library: its driver calls are never held back" 1
expect_in "$WORK/nccl.log" "replayed as a graph"
# The exit summary and the trace's exit event count the communication library's calls, which all passed through;
# under its own name the library is no communication library and none are counted.
with_shim REPRISE_MIN_REGION_CALLS=1 REPRISE_STATS=1 REPRISE_TRACE="$WORK/nccl.trace" "$NCCL" > /dev/null \
    2> "$WORK/nccl.stats.log" || fail "driver_library_nccl under auto with REPRISE_STATS exited $?"
comm=$(sed -n 's/.*communication libraries: \([0-9]*\) of their calls.*passed through.*/\1/p' "$WORK/nccl.stats.log")
[ -n "$comm" ] && [ "$comm" -gt 0 ] || fail "the exit summary counts no communication library call: '$comm'"
grep '"ev":"exit"' "$WORK/nccl.trace" | grep -q "\"communication_calls\":$comm," ||
    fail "the trace's exit event does not count $comm communication library calls"
with_shim REPRISE_MIN_REGION_CALLS=1 REPRISE_STATS=1 "$PROG" > /dev/null 2> "$WORK/blas.stats.log"
expect_not_in "$WORK/blas.stats.log" "communication libraries:"
# Against the same library under its own name, whose launches are graphed: the regions here are shorter.
longest() { sed -n 's/.*region [0-9]*: \([0-9]*\) calls on.*/\1/p' "$1" | sort -n | tail -1; }
with_shim REPRISE_MIN_REGION_CALLS=1 REPRISE_TRIAL=0 REPRISE_LOG=info "$PROG" > /dev/null 2> "$WORK/blas.log"
[ "$(longest "$WORK/nccl.log")" -lt "$(longest "$WORK/blas.log")" ] ||
    fail "the communication library's launches were held back: longest region $(longest "$WORK/nccl.log") calls, as long as with the graphed library's ($(longest "$WORK/blas.log"))"

# A program linking libcuda and importing a driver work function without a wrapper: the robust path only.
IMPORT="$top_builddir/tests/standin/driver_import"
"$IMPORT" > "$WORK/import.out" || fail "driver_import without the shim exited $?"
with_shim REPRISE_MIN_REGION_CALLS=1 REPRISE_LOG=info "$IMPORT" > "$WORK/import.auto.out" 2> "$WORK/import.log" ||
    fail "driver_import exited $?"
cmp -s "$WORK/import.out" "$WORK/import.auto.out" || fail "driver_import: output differs"
expect_in "$WORK/import.log" "replayed on the robust path"
expect_not_in "$WORK/import.log" "replayed as a graph"
finish
