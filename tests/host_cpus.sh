#!/bin/sh
# SPDX-License-Identifier: MIT
# tools/dev/host_cpus.py, which tools/dev/bench-suite uses to pin its runs: it keeps the CPUs within 10% of the
# fastest (at most 4, at least 2), and on this machine picks CPUs the process may run on.
# Skips (77) without python3.
. "${top_srcdir:-.}/tests/lib.sh"
command -v python3 > /dev/null || { echo "no python3: skipped"; exit 77; }
python3 - "$top_srcdir/tools/dev" <<'PY' || fail "host_cpus.py chose wrongly (above)"
import os, sys
sys.path.insert(0, sys.argv[1])
import host_cpus as h
bad = 0
def expect(worst, want, got):
    global bad
    if h.choose(worst, want) != got:
        print(f"choose({worst}, {want}) = {h.choose(worst, want)}, expected {got}"); bad = 1
# The H200 machine's pattern: fast CPUs near 4500 us, slow ones 6000-8500.
expect({0: 5557, 1: 4561, 2: 4859, 3: 7751, 7: 4549, 10: 4480, 12: 4964}, 4, [1, 2, 7, 10])
expect({0: 5557, 1: 4561, 2: 4859, 3: 7751, 7: 4549, 10: 4480, 12: 4964}, 8, [1, 2, 7, 10])
# Only one fast CPU: the next fastest joins it (a training step's second thread needs a CPU).
expect({0: 9000, 1: 4500, 2: 7000}, 4, [1, 2])
expect({5: 100}, 4, [5])
expect({}, 4, [])
chosen, worst = h.pick()
allowed = os.sched_getaffinity(0)
if not chosen or not set(chosen) <= allowed or set(worst) != allowed or min(worst.values()) <= 0:
    print(f"pick() = {chosen}, {worst} on CPUs {sorted(allowed)}"); bad = 1
if os.sched_getaffinity(0) != allowed:
    print("pick() left this process pinned"); bad = 1
sys.exit(bad)
PY
finish
