#!/bin/sh
# SPDX-License-Identifier: MIT
# Issue 24: programs whose CUDA objects die while the shim may still hold graphs of them (docs/standin.md,
# "Lifetimes").  Each program runs without the shim (twice, two scheduler seeds: the reference), then with it
# preloaded under REPRISE_MODE=off, auto, and auto with REPRISE_REPLAY=robust (REPRISE_TRIAL=0 in both: a trial
# lost would pass the region through and the graph would not be there when the module or context goes),
# REPRISE_LOG=info, stdout to a file.  Each run must exit 0, print what the reference printed, byte for byte,
# and leave no `standin:` abort (the stand-in's model of the real driver's crash) on stderr; under auto and
# robust the log must show a region replayed as a graph before the program's first unload or reset (it says
# so on stderr), or the run proves nothing.
#
#   module_unload           modules and libraries unloaded and loaded again, 5 phases; and with
#                           STANDIN_REUSE_HANDLES=1, the reloaded kernels getting the dead handles again
#   device_reset [middle]   cudaDeviceReset before main returns, or between two loops
#   device_reset_driver [middle]  the same through the driver: the last cuDevicePrimaryCtxRelease, or
#                           cuDevicePrimaryCtxReset between two loops
#   module_unload churn 40  40 more phases, each on a module loaded before it and unloaded after it: the shim's
#                           kernel layouts stay bounded (the exit summary counts them)
#   private_runtime [driver]  the runtime loaded with dlopen(RTLD_LOCAL), REPRISE_LOG=debug; launches and syncs
#                           through the runtime, or through the driver (then graphed under auto; the robust
#                           path captures through a runtime it can see, so it passes them through); and once
#                           started with LD_BIND_NOW=1, which binds every symbol the shim refers to at start
#
# Negative controls: module_unload launching a graph of an unloaded module itself (MODULE_UNLOAD_SELF_BUG=1)
# must be caught as a stand-in abort, and a run under REPRISE_MODE=off must fail the replay check.
. "${top_srcdir:-.}/tests/lib.sh"
SCEN="$top_builddir/tests/scenarios"
for p in module_unload device_reset device_reset_driver private_runtime; do
    [ -x "$SCEN/$p" ] || { echo "$SCEN/$p is not built" >&2; exit 99; }
done

# Prints what is wrong with run $1 (files $1.out, $1.err, $1.rc) against reference $2, one line each; replayed
# $3: yes if a replay must be logged before the first stderr line that starts with $4 (the program's; the
# shim's lines start with "reprise["), or anywhere if $4 is *.
problems() {
    run=$1 ref=$2 replayed=$3 marker=$4
    rc=$(cat "$run.rc")
    aborted=$(grep -m1 '^standin:' "$run.err")
    [ -z "$aborted" ] || echo "the stand-in aborted: $aborted"
    lookup=$(grep -m1 'symbol lookup error' "$run.err")
    [ -z "$lookup" ] || echo "$lookup"
    if [ "$rc" -gt 128 ]; then
        echo "killed by signal $((rc - 128)) ($(kill -l $((rc - 128)) 2> /dev/null))"
    elif [ "$rc" -ne 0 ]; then
        echo "exit status $rc"
    fi
    cmp -s "$ref" "$run.out" ||
        echo "stdout differs from the run without the shim ($(wc -l < "$run.out") lines against $(wc -l < "$ref"))"
    [ "$replayed" = yes ] || return 0
    first_replay=$(grep -n -m1 -E 'replayed as a graph|replayed on the robust path' "$run.err" | cut -d: -f1)
    first_marker=
    [ "$marker" = "*" ] || first_marker=$(awk -v m="$marker" 'index($0, m) == 1 { print NR; exit }' "$run.err")
    if [ -z "$first_replay" ] || { [ -n "$first_marker" ] && [ "$first_replay" -gt "$first_marker" ]; }; then
        echo "no region was replayed as a graph before \"$marker\" on stderr: the run proves nothing"
    fi
}

# Runs "$@" with stdout, stderr and the exit status into $1.out, $1.err, $1.rc.
run_into() {
    into=$1
    shift
    "$@" > "$into.out" 2> "$into.err"
    echo $? > "$into.rc"
}

# The reference run of a case (label $1, program and arguments after): exit 0, no failed call, no abort, the
# same for STANDIN_SEED 1 and 3.
reference() {
    label=$1
    shift
    run_into "$WORK/$label.ref" env STANDIN_SEED=1 "$@"
    run_into "$WORK/$label.ref3" env STANDIN_SEED=3 "$@"
    [ "$(cat "$WORK/$label.ref.rc")" -eq 0 ] || fail "$label without the shim: exit status $(cat "$WORK/$label.ref.rc")"
    expect_in "$WORK/$label.ref.out" "errors 0"
    expect_not_in "$WORK/$label.ref.err" "standin:"
    cmp -s "$WORK/$label.ref.out" "$WORK/$label.ref3.out" || fail "$label without the shim: seed 3 prints otherwise"
}

# One case (label $1, stderr marker $2 for problems, the modes $3 that must replay a region before it, log
# level $4, program and arguments after) under off, auto and robust.
shim_modes() {
    label=$1 marker=$2 replaying=$3 level=$4
    shift 4
    for mode in off auto robust; do
        case $mode in
        off) set_mode="REPRISE_MODE=off" ;;
        auto) set_mode="REPRISE_MODE=auto" ;;
        robust) set_mode="REPRISE_MODE=auto REPRISE_REPLAY=robust" ;;
        esac
        case " $replaying " in
        *" $mode "*) replayed=yes ;;
        *) replayed=no ;;
        esac
        # shellcheck disable=SC2086
        run_into "$WORK/$label.$mode" with_shim $set_mode REPRISE_TRIAL=0 REPRISE_LOG=$level STANDIN_SEED=1 "$@"
        problems "$WORK/$label.$mode" "$WORK/$label.ref.out" $replayed "$marker" > "$WORK/$label.$mode.problems"
        if [ -s "$WORK/$label.$mode.problems" ]; then
            while read -r line; do
                fail "$label under $mode: $line"
            done < "$WORK/$label.$mode.problems"
        else
            echo "$label under $mode: ok"
        fi
    done
}

# Case 1: modules and libraries unloaded under a replayed graph; dead handles fresh, then reused.
for reuse in 0 1; do
    reference "module_unload.reuse$reuse" env STANDIN_REUSE_HANDLES=$reuse "$SCEN/module_unload"
    shim_modes "module_unload.reuse$reuse" "module_unload: unloading module 1" "auto robust" info \
        env STANDIN_REUSE_HANDLES=$reuse "$SCEN/module_unload"
done

# Case 2: the context reset before main returns, or in the middle; through the runtime and the driver.
for p in device_reset device_reset_driver; do
    for arg in end middle; do
        reference "$p.$arg" "$SCEN/$p" $arg
        shim_modes "$p.$arg" "$p: " "auto robust" info "$SCEN/$p" $arg
    done
done

# Case 3: the runtime loaded privately; the shim at debug level, and started with every symbol bound.
for arg in runtime driver; do
    reference "private_runtime.$arg" "$SCEN/private_runtime" $arg
    # The driver variant's loop is graphed under auto (robust captures through a runtime the shim cannot see).
    replaying=
    [ $arg = runtime ] || replaying=auto
    shim_modes "private_runtime.$arg" "*" "$replaying" debug "$SCEN/private_runtime" $arg
    run_into "$WORK/private_runtime.$arg.bindnow" with_shim REPRISE_MODE=auto REPRISE_TRIAL=0 REPRISE_LOG=debug \
        LD_BIND_NOW=1 "$SCEN/private_runtime" $arg
    problems "$WORK/private_runtime.$arg.bindnow" "$WORK/private_runtime.$arg.ref.out" no "" \
        > "$WORK/private_runtime.$arg.bindnow.problems"
    if [ -s "$WORK/private_runtime.$arg.bindnow.problems" ]; then
        while read -r line; do
            fail "private_runtime.$arg under auto with LD_BIND_NOW=1: $line"
        done < "$WORK/private_runtime.$arg.bindnow.problems"
    else
        echo "private_runtime.$arg under auto with LD_BIND_NOW=1: ok"
    fi
done

# Case 4: a module loaded before each phase and unloaded after it (module_unload churn 40: 45 modules and
# libraries, 5 kernels each), as cuDNN's runtime-compiled kernels are: the same output, and the shim's kernel
# layouts bounded (REPRISE_STATS's exit summary): those of unloaded kernels kept at most 64 and those the last
# unload forgot, the rest of the 225 forgotten reused for new kernels.
reference module_unload.churn "$SCEN/module_unload" churn 40
shim_modes module_unload.churn "module_unload: unloading module 1" "auto robust" info \
    env REPRISE_STATS=on "$SCEN/module_unload" churn 40
for mode in auto robust; do
    log="$WORK/module_unload.churn.$mode.err"
    layouts='.*kernel layouts: [0-9]* kept for the kernels loaded now, \([0-9]*\) of unloaded kernels kept; '
    layouts="$layouts"'\([0-9]*\) forgotten in all.*'
    kept=$(sed -n "s/$layouts/\1/p" "$log")
    forgotten=$(sed -n "s/$layouts/\2/p" "$log")
    if [ -z "$kept" ] || [ -z "$forgotten" ]; then
        fail "module_unload churn under $mode: no count of kernel layouts in the exit summary"
        continue
    fi
    echo "module_unload churn under $mode: $kept layouts of unloaded kernels kept, $forgotten forgotten in all"
    [ "$forgotten" -ge 225 ] ||
        fail "module_unload churn under $mode: $forgotten kernel layouts forgotten, expected at least 225"
    [ "$kept" -le 74 ] ||
        fail "module_unload churn under $mode: $kept layouts of unloaded kernels kept, expected at most 74"
done

# Negative controls: the program's own launch of a dead function is caught as the stand-in's abort; a run
# whose regions were not replayed fails the replay check.
run_into "$WORK/self_bug" with_shim REPRISE_MODE=off MODULE_UNLOAD_SELF_BUG=1 "$SCEN/module_unload"
problems "$WORK/self_bug" "$WORK/module_unload.reuse0.ref.out" no "" > "$WORK/self_bug.problems"
grep -q "the stand-in aborted: standin: cuGraphLaunch: graph node 0 runs a function of an unloaded module" \
    "$WORK/self_bug.problems" || fail "negative control: a program launching a dead function was not caught"
problems "$WORK/module_unload.reuse0.off" "$WORK/module_unload.reuse0.ref.out" yes \
    "module_unload: unloading module 1" > "$WORK/no_replay.problems"
grep -q "no region was replayed" "$WORK/no_replay.problems" ||
    fail "negative control: a run under REPRISE_MODE=off passed the replay check"
finish
