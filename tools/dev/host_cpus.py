#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""host_cpus: which of this machine's CPUs run host code at full speed, to pin benchmarks to them.

    python3 tools/dev/host_cpus.py [--want N]     prints each CPU's time and the chosen list

The H200 machine's host speed is bimodal between processes (the same eager
loop at 350 or 470 us).  On one machine (session 9, docs/measurements.md)
pinned runs of a pure-Python loop took about 4500 us on half its CPUs and
6000-8500 on the others, every time; on the next, the fast CPUs changed
from round to round and a pinned process still changed speed within
seconds.  tools/dev/bench-suite --cpus auto pins to the CPUs chosen here.
"""
import argparse
import os
import statistics
import sys
import time

# A CPU counts as fast when its slowest pass is within this factor of the fastest CPU's.
FAST_WITHIN = 1.10


def spin(n=100000):
    s = 0
    for i in range(n):
        s += i * i
    return s


def time_here(repeats=2):
    """Microseconds of the fastest of a few runs of the fixed loop, on the CPU this thread runs on."""
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        spin()
        best = min(best, (time.perf_counter() - t) * 1e6)
    return best


def measure(cpus, passes=3):
    """{cpu: slowest of `passes` timings}: a CPU that is slow now and then is slow."""
    saved = os.sched_getaffinity(0)
    worst = {c: 0.0 for c in cpus}
    try:
        for _ in range(passes):
            for c in cpus:
                os.sched_setaffinity(0, {c})
                worst[c] = max(worst[c], time_here())
    finally:
        os.sched_setaffinity(0, saved)
    return worst


def choose(worst, want=4, least=2):
    """The fastest CPUs (at most `want`, at least `least` where there are that many), fastest first."""
    ranked = sorted(worst, key=lambda c: worst[c])
    if not ranked:
        return []
    fast = [c for c in ranked if worst[c] <= FAST_WITHIN * worst[ranked[0]]]
    if len(fast) < least:
        fast = ranked[:least]
    return sorted(fast[:want])


def pick(want=4):
    """(chosen CPUs, {cpu: us}) among the CPUs this process may run on."""
    worst = measure(sorted(os.sched_getaffinity(0)))
    return choose(worst, want), worst


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--want", type=int, default=4, help="at most this many CPUs (default 4)")
    a = p.parse_args()
    chosen, worst = pick(a.want)
    for c in sorted(worst):
        print(f"cpu {c}: {worst[c]:.0f} us{'  (chosen)' if c in chosen else ''}")
    print(f"median {statistics.median(worst.values()):.0f} us; chosen {','.join(map(str, chosen))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
