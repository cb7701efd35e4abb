# SPDX-License-Identifier: MIT
"""triton_loop: a loop of Triton kernels on a small tensor, one sync per iteration.

    python3 kernels/torch/triton_loop.py [eager|graph] [ITERS]      (default eager 200)

Each iteration launches one triton.jit kernel (x = x * a + y * b,
elementwise, in place) 50 times on a 4096-element float32 tensor with a and
b varying by launch (fixed values: scalar arguments the shim must patch),
then torch.cuda.synchronize().  Triton launches through the driver API
(cuLaunchKernel), unseen by a runtime-only shim.  graph: the 50 launches
captured once by hand with torch.cuda.CUDAGraph and replayed.  Prints
"median_us X" and "checksum HEX" of x after every 10th iteration and at
the end (read after the iteration's sync, outside the timed part); exits 77
without torch, Triton or a CUDA device.
"""
import hashlib
import sys
import time

from bench_common import report, start

N, LAUNCHES, WARM, BLOCK = 4096, 50, 20, 1024


def main():
    started = start("triton_loop", has_graph=True)
    if not isinstance(started, tuple):
        return started
    mode, iters, torch = started
    try:
        import triton
        import triton.language as tl
    except ImportError as err:
        print(f"triton_loop: no triton ({err}); skipping", file=sys.stderr)
        return 77
    print(f"triton_loop: torch {torch.__version__}, triton {triton.__version__}", file=sys.stderr)

    @triton.jit
    def add_scale(x_ptr, y_ptr, n, a, b, BLOCK_SIZE: tl.constexpr):
        offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask)
        y = tl.load(y_ptr + offs, mask=mask)
        tl.store(x_ptr + offs, x * a + y * b, mask=mask)

    dev = torch.device("cuda")
    y = (torch.arange(N, dtype=torch.float32, device=dev) % 97) / 128.0
    x0 = (torch.arange(N, dtype=torch.float32, device=dev) % 1000) / 1024.0
    x = x0.clone()
    # Fixed scalars by launch: a in 0.5..0.875 keeps x bounded; never 1 (Triton specialises integer 1, not floats).
    params = [(0.5 + 0.125 * (j % 4), 0.0625 * (1 + j % 3)) for j in range(LAUNCHES)]
    grid = (triton.cdiv(N, BLOCK),)

    def body():
        for a, b in params:
            add_scale[grid](x, y, N, a, b, BLOCK_SIZE=BLOCK)

    body()  # compiles and loads the kernel
    torch.cuda.synchronize()
    x.copy_(x0)
    torch.cuda.synchronize()
    graph = None
    if mode == "graph":
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            body()  # warm-up on a side stream, as torch's docs ask
        torch.cuda.current_stream().wait_stream(side)
        torch.cuda.synchronize()
        x.copy_(x0)
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            body()
        torch.cuda.synchronize()
        x.copy_(x0)  # capture ran nothing, but be sure
        torch.cuda.synchronize()
    digest = hashlib.sha256()
    times = []
    for it in range(WARM + iters):
        t0 = time.perf_counter()
        if graph is not None:
            graph.replay()
        else:
            body()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) * 1e6)
        if it % 10 == 9:
            digest.update(x.cpu().numpy().tobytes())
    digest.update(x.cpu().numpy().tobytes())
    report(mode, iters, WARM, times, digest)
    return 0


if __name__ == "__main__":
    sys.exit(main())
