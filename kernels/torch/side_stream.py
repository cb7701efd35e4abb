# SPDX-License-Identifier: MIT
"""side_stream: an eager MLP on a stream of its own, with cuBLAS GEMMs inside each iteration.

    python3 kernels/torch/side_stream.py [eager] [ITERS]      (default eager 120)

PyTorch runs on the legacy default stream unless told otherwise; this
script, like programs that overlap work, runs everything on a
torch.cuda.Stream() (created non-blocking).  Each iteration copies a new
input in, runs a 4-layer MLP of width 256 on a batch of 8 (Linear + ReLU:
cuBLAS launches through the driver API, PyTorch's own kernels through the
runtime) and ends with `.item()`.  The stretch between two `.item()` calls
is a region reprise can graph only on its robust path (re-captured each
time, so that the GEMMs it cannot hold back land in the capture).  No
hand-written graph mode.  Prints "median_us X" (host wall time per
iteration after warm-up) and "checksum HEX" of every iteration's item and
the final output; exits 77 without torch or a CUDA device.
"""
import hashlib
import os
import sys
import time

from bench_common import mlp, report, start

os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
WIDTH, LAYERS, WARM = 256, 4, 20


def main():
    started = start("side_stream", has_graph=False, default_iters=120)
    if not isinstance(started, tuple):
        return started
    mode, iters, torch = started
    model = mlp(torch, WIDTH, LAYERS)
    dev = torch.device("cuda")
    inputs = torch.randn(WARM + iters, 8, WIDTH, device=dev)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    items = hashlib.sha256()
    times = []
    with torch.inference_mode(), torch.cuda.stream(side):
        x = torch.empty(8, WIDTH, device=dev)
        for i in range(WARM + iters):
            t0 = time.perf_counter()
            x.copy_(inputs[i])
            out = model(x * 0.5 + 0.25)
            v = out.sum().item()
            times.append((time.perf_counter() - t0) * 1e6)
            items.update(repr(v).encode())
        items.update(out.float().cpu().numpy().tobytes())
    report(mode, iters, WARM, times, items)
    return 0


if __name__ == "__main__":
    sys.exit(main())
