# SPDX-License-Identifier: MIT
"""mlp_infer: small MLP inference at batch 1, one host sync per iteration.

    python3 kernels/torch/mlp_infer.py [eager|graph] [ITERS]      (default eager 200)

A 4-layer MLP of width 256 (Linear + ReLU) runs on a static input buffer
into which each iteration copies its own input; the iteration ends with
`.item()`.  graph: the same forward captured once by hand with
torch.cuda.CUDAGraph and replayed (the hand-written reference).  Prints
"median_us X" (median host wall time per iteration after warm-up) and
"checksum HEX" of every iteration's item and the final output; exits 77
without torch or a CUDA device.
"""
import hashlib
import os
import sys
import time

from bench_common import mlp, report, start

os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
WIDTH, LAYERS, WARM = 256, 4, 20


def main():
    started = start("mlp_infer", has_graph=True)
    if not isinstance(started, tuple):
        return started
    mode, iters, torch = started
    model = mlp(torch, WIDTH, LAYERS)
    dev = torch.device("cuda")
    inputs = torch.randn(WARM + iters, 1, WIDTH, device=dev)
    static_in = torch.zeros(1, WIDTH, device=dev)

    def forward():
        return model(static_in).sum()

    graph = None
    with torch.inference_mode():
        if mode == "graph":
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                for _ in range(3):  # warm up on a side stream, as torch's docs ask
                    forward()
            torch.cuda.current_stream().wait_stream(side)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                static_out = forward()
        items = hashlib.sha256()
        times = []
        torch.cuda.synchronize()
        for it in range(WARM + iters):
            t0 = time.perf_counter()
            static_in.copy_(inputs[it])
            if graph is not None:
                graph.replay()
                out = static_out
            else:
                out = forward()
            v = out.item()
            times.append((time.perf_counter() - t0) * 1e6)
            items.update(repr(v).encode())
        final = model(static_in)
    items.update(final.detach().cpu().numpy().tobytes())
    report(mode, iters, WARM, times, items)
    return 0


if __name__ == "__main__":
    sys.exit(main())
