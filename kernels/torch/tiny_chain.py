# SPDX-License-Identifier: MIT
"""tiny_chain: tiny_ops.py's chain of tiny elementwise ops, timed.

    python3 kernels/torch/tiny_chain.py [eager|graph] [ITERS]     (default eager 200)

Each iteration runs tiny_ops.py's chain (80 integer ops and 20 float ops on
4096 elements) and ends with `.item()`.  graph: no hand-written graph
version (prints "median_us na").  Prints "median_us X" (median per
iteration after warm-up) and "checksum HEX" of every item and the final
tensors; exits 77 without torch or a CUDA device.
"""
import hashlib
import sys
import time

from bench_common import report, start
from tiny_ops import N, chain

WARM = 20


def main():
    started = start("tiny_chain", has_graph=False)
    if not isinstance(started, tuple):
        return started
    mode, iters, torch = started
    torch.use_deterministic_algorithms(True)
    dev = torch.device("cuda")
    base = torch.arange(N, dtype=torch.int64, device=dev)
    base_f = (base % 1000).to(torch.float32) / 1024.0
    items = hashlib.sha256()
    times = []
    torch.cuda.synchronize()
    for it in range(WARM + iters):
        t0 = time.perf_counter()
        x, y, total = chain(torch, base, base_f, it, float(it % 64))
        times.append((time.perf_counter() - t0) * 1e6)
        items.update(f"{it}:{total};".encode())
    items.update(x.cpu().numpy().tobytes())
    items.update(y.cpu().numpy().tobytes())
    report(mode, iters, WARM, times, items)
    return 0


if __name__ == "__main__":
    sys.exit(main())
